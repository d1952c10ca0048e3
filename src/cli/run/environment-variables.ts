/**
 * Every environment variable secretform reads, what it means, and which commands read it: the one place the
 * "Environment" section of each command's --help comes from (docs/cli.md#environment says the same at length).
 * `namedIn` is the file of src/ that names the variable where it is read, so a test can hold each command's
 * list to what its code reaches (test/unit/cli-help-environment.test.ts).
 */
import type { Command, Help } from 'commander';

export interface EnvironmentVariable {
  /** What the variable does, as one line of --help. */
  meaning: string;
  /** The file of src/ (relative, forward slashes) that names the variable where it is read. */
  namedIn: string;
}

/** The variables, by name. A help line may cover several (`SERVICE_CLIENT_CERT`, `SERVICE_CLIENT_KEY`). */
export const ENVIRONMENT_VARIABLES = {
  SERVICE_ADDR: { meaning: "the service's URL, for a stack without a ServiceConnection (default http://127.0.0.1:8200)", namedIn: 'client/config.ts' },
  SERVICE_TOKEN: { meaning: 'the service token, for a stack without a ServiceConnection (a connection names its own variable); never taken on the command line', namedIn: 'client/config.ts' },
  SERVICE_CACERT: { meaning: "PEM file of the CA(s) that sign the server's certificate", namedIn: 'client/config.ts' },
  SERVICE_CLIENT_CERT: { meaning: 'PEM file of a client certificate (with SERVICE_CLIENT_KEY)', namedIn: 'client/config.ts' },
  SERVICE_CLIENT_KEY: { meaning: 'PEM file of the client certificate\'s key (with SERVICE_CLIENT_CERT)', namedIn: 'client/config.ts' },
  SERVICE_SKIP_VERIFY: { meaning: "true or 1: do not verify the server's certificate (a lab only)", namedIn: 'client/config.ts' },
  SECRETFORM_STATE: { meaning: 'where the state is when --state is not given: a file path ({stack} is the stack\'s name) or a postgres:// URL', namedIn: 'engine/state/state-location.ts' },
  SECRETFORM_STATE_KEY: { meaning: "key of the fingerprints of secrets in state and of a saved plan's MAC (without it: a key kept on the service)", namedIn: 'engine/state/fingerprint.ts' },
  SECRETFORM_FINGERPRINT_KEY_MOUNT: { meaning: 'without SECRETFORM_STATE_KEY: the KV v2 mount of the key kept on the service (default secret)', namedIn: 'engine/state/fingerprint-key-source.ts' },
  SECRETFORM_FINGERPRINT_KEY_PATH: { meaning: 'without SECRETFORM_STATE_KEY: the path of that key (default secretform/fingerprint-keys/<stack>)', namedIn: 'engine/state/fingerprint-key-source.ts' },
  SECRETFORM_SYNTH_ENV: { meaning: 'more variables passed to the app, as --synth-env (comma- or space-separated names, PREFIX* for a prefix)', namedIn: 'synth-environment.ts' },
  SECRETFORM_POLICY_TIMEOUT: { meaning: '--policy-timeout when it is not given (default 60s)', namedIn: 'policy/timeout-advice.ts' },
  NO_COLOR: { meaning: 'set: no colour in the text report (default: colour on a terminal only)', namedIn: 'report/color.ts' },
  FORCE_COLOR: { meaning: 'set (not 0): colour in the text report even when it is not written to a terminal', namedIn: 'report/color.ts' },
  GITHUB_SHA: { meaning: 'GitHub Actions: the commit and run the markdown comment names (with GITHUB_ACTIONS, GITHUB_SERVER_URL, GITHUB_REPOSITORY, GITHUB_RUN_ID)', namedIn: 'cli/run/ci-context.ts' },
  CI_COMMIT_SHORT_SHA: { meaning: 'GitLab CI: the commit, pipeline and job the markdown comment names (with GITLAB_CI, CI_PIPELINE_URL, CI_JOB_URL)', namedIn: 'cli/run/ci-context.ts' },
  SECRETFORM_ACTOR: { meaning: 'who acknowledges (default: GITHUB_ACTOR or GITLAB_USER_LOGIN in CI, else the OS user)', namedIn: 'engine/drift/actor.ts' },
  SECRETFORM_DEV_ROOT_TOKEN: { meaning: 'the root token when --root-token is not given (default root)', namedIn: 'cli/commands/dev-server.ts' },
} as const satisfies Record<string, EnvironmentVariable>;

export type VariableName = keyof typeof ENVIRONMENT_VARIABLES;

/** The service connection of a stack without a ServiceConnection: every command that talks to the service. */
export const SERVICE_VARIABLES: readonly VariableName[] = ['SERVICE_ADDR', 'SERVICE_TOKEN', 'SERVICE_CACERT', 'SERVICE_CLIENT_CERT', 'SERVICE_CLIENT_KEY', 'SERVICE_SKIP_VERIFY'];
/** Where the state is: every command that reads or writes it. */
export const STATE_VARIABLES: readonly VariableName[] = ['SECRETFORM_STATE'];
/** The fingerprint key: the commands that compare or record secrets' fingerprints (plan, apply, import, drift). */
export const FINGERPRINT_VARIABLES: readonly VariableName[] = ['SECRETFORM_STATE_KEY', 'SECRETFORM_FINGERPRINT_KEY_MOUNT', 'SECRETFORM_FINGERPRINT_KEY_PATH'];
/** What the app sees: every command that runs it. */
export const SYNTH_VARIABLES: readonly VariableName[] = ['SECRETFORM_SYNTH_ENV'];
/** The colour of the text report. */
export const COLOR_VARIABLES: readonly VariableName[] = ['NO_COLOR', 'FORCE_COLOR'];
/** The CI context line of the markdown comment. */
export const COMMENT_VARIABLES: readonly VariableName[] = ['GITHUB_SHA', 'CI_COMMIT_SHORT_SHA'];

/** The variables a command reads, as it registers them: its --help ends with them. */
const READ_BY_COMMAND = new WeakMap<Command, readonly VariableName[]>();

/** The variables `command` was registered as reading (empty: it reads none), for tests and for its --help. */
export function variablesReadBy(command: Command): readonly VariableName[] | undefined {
  return READ_BY_COMMAND.get(command);
}

/**
 * Ends `command`'s --help with an "Environment" section listing `names` (or saying it reads none), aligned and
 * wrapped as commander lays out the options.
 */
export function addEnvironmentHelp(command: Command, names: readonly VariableName[]): Command {
  const unique = [...new Set(names)];
  READ_BY_COMMAND.set(command, unique);
  return command.addHelpText('after', () => environmentSection(unique, command.createHelp(), command.configureOutput().getOutHelpWidth?.() ?? 80));
}

/** The section's text: a heading and one line per variable, or the sentence that there is none. */
export function environmentSection(names: readonly VariableName[], help: Help, helpWidth: number): string {
  if (names.length === 0) return '\nEnvironment: this command reads no environment variable of its own.\n';
  help.prepareContext({ helpWidth });
  const termWidth = Math.max(...names.map((name) => name.length));
  const lines = names.map((name) => help.formatItem(name, termWidth, ENVIRONMENT_VARIABLES[name].meaning, help));
  return `\n${help.styleTitle('Environment:')}\n${lines.join('\n')}\n`;
}
