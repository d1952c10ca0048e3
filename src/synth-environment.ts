/**
 * The environment of the synth child process (the user's cdktf app). The app needs the basics of a process and
 * the settings the user chooses to give it; it never needs the service token, the state key or location, a
 * client key, nor the variables that hold the secret values the engine resolves later. So the child gets:
 *
 * 1. the process basics of ALLOWED_NAMES and ALLOWED_PREFIXES (a prefixed name that looks like a credential,
 *    e.g. `NODE_AUTH_TOKEN`, `npm_config__authToken`, is left out);
 * 2. the variables the user names with `--synth-env NAME` (repeatable) or `SECRETFORM_SYNTH_ENV` (comma- or
 *    space-separated); a name ending in `*` takes every variable with that prefix, except names that look like
 *    a credential (`APP_DB_PASSWORD`): before the first synth no output says which variables hold secrets, so
 *    a prefix must not sweep them in; a credential the app itself needs is named exactly;
 * 3. minus the denylist, which always wins: `SERVICE_*`, `SECRETFORM_*`, every variable a
 *    `SecretValue.fromEnv` reference of the previous synth output names, and every variable a stack's
 *    `ServiceConnection` reads its token from (`tokenEnv`).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { secretVariablesOfConfiguration } from './secret-variables';

/** The user's list of extra variables for the app, read by secretform itself (it is never passed on). */
export const SYNTH_ENV_VARIABLE = 'SECRETFORM_SYNTH_ENV';

const ALLOWED_NAMES = new Set([
  'PATH', 'PATHEXT', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LANGUAGE', 'TZ', 'TERM', 'COLORTERM',
  'TMPDIR', 'TMP', 'TEMP', 'CI', 'NO_COLOR', 'FORCE_COLOR', 'PWD',
  // Windows process basics.
  'SYSTEMROOT', 'SystemRoot', 'SYSTEMDRIVE', 'COMSPEC', 'ComSpec', 'WINDIR', 'APPDATA', 'LOCALAPPDATA',
  'USERPROFILE', 'HOMEDRIVE', 'HOMEPATH', 'PROGRAMDATA', 'ProgramData', 'ProgramFiles',
]);

const ALLOWED_PREFIXES = ['LC_', 'NODE_', 'npm_', 'CDKTF_', 'JSII_', 'XDG_'];

/** Names under an allowed prefix that look like they carry a credential. */
const CREDENTIAL_LIKE = /TOKEN|SECRET|PASSW|PASSPHRASE|CREDENTIAL|AUTH|(^|_)KEY($|_)|PRIVATE/i;

const DENIED_PREFIXES = ['SERVICE_', 'SECRETFORM_'];

export interface SynthEnvironmentInput {
  /** The environment to take variables from (the command's). */
  source: Readonly<Record<string, string | undefined>>;
  /** Names (or `PREFIX*`) the user passes on with `--synth-env`. */
  passEnv?: readonly string[];
  /** Variables that hold secrets (names of `SecretValue.fromEnv` references): never passed on. */
  secretVariables?: ReadonlySet<string>;
}

/** The variables the synth child gets, by the rule above. */
export function synthEnvironment(input: SynthEnvironmentInput): Record<string, string> {
  const requested = [...(input.passEnv ?? []), ...splitList(input.source[SYNTH_ENV_VARIABLE])];
  const secretVariables = input.secretVariables ?? new Set<string>();
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.source)) {
    if (value === undefined) continue;
    if (isDenied(name, secretVariables)) continue;
    if (isProcessBasic(name) || requested.some((pattern) => isRequested(pattern, name))) env[name] = value;
  }
  return env;
}

/**
 * Whether a child process secretform starts must never get `name`: secretform's own settings (`SERVICE_*`,
 * `SECRETFORM_*`, which hold the token, the state key or a database password) and the stack's secret variables.
 */
export function isDenied(name: string, secretVariables: ReadonlySet<string>): boolean {
  const upper = name.toUpperCase();
  return DENIED_PREFIXES.some((prefix) => upper.startsWith(prefix)) || secretVariables.has(name);
}

/** Whether a variable's name says it holds a credential (`SERVICE_TOKEN`, `SECRETFORM_STATE_KEY`, `APP_DB_PASSWORD`). */
export function looksLikeCredential(name: string): boolean {
  return CREDENTIAL_LIKE.test(name);
}

function isProcessBasic(name: string): boolean {
  if (ALLOWED_NAMES.has(name)) return true;
  return ALLOWED_PREFIXES.some((prefix) => name.startsWith(prefix)) && !CREDENTIAL_LIKE.test(name);
}

function isRequested(pattern: string, name: string): boolean {
  if (!pattern.endsWith('*')) return pattern === name;
  return name.startsWith(pattern.slice(0, -1)) && !CREDENTIAL_LIKE.test(name);
}

function splitList(value: string | undefined): string[] {
  return (value ?? '').split(/[\s,]+/).filter((name) => name !== '');
}

/**
 * Names of the variables that hold secrets in a synth output (every stack of it): those its `SecretValue.fromEnv`
 * references read, and the token variables its connections name. An output that does not exist or cannot be
 * read names none: the denylist's prefixes still apply.
 */
export function secretVariablesOfOutput(outdir: string): Set<string> {
  return secretVariablesOfStacks(outdir, () => undefined);
}

/**
 * The same names, taking a stack's from `recorded(stackDir)` when it gives them (synthesize.ts passes the digest
 * record's: it says why that is safe), else from the stack's file.
 */
export function secretVariablesOfStacks(outdir: string, recorded: (stackDir: string) => readonly string[] | undefined): Set<string> {
  const names = new Set<string>();
  const stacksDir = path.join(outdir, 'stacks');
  let stacks: string[];
  try {
    stacks = fs.readdirSync(stacksDir);
  } catch {
    return names;
  }
  for (const stack of stacks) {
    const stackDir = path.join(stacksDir, stack);
    const listed = recorded(stackDir);
    if (listed !== undefined) {
      for (const name of listed) names.add(name);
      continue;
    }
    let config: unknown;
    try {
      config = JSON.parse(fs.readFileSync(path.join(stackDir, 'cdk.tf.json'), 'utf8'));
    } catch {
      continue;
    }
    for (const name of secretVariablesOfConfiguration(config)) names.add(name);
  }
  return names;
}
