import { Command, CommanderError } from 'commander';
import { endCommand } from './run/command-failure';
import type { CommandOutcome, CommandRegistration } from './run/command-outcome';
import { guardTerminalOutput } from './run/terminal-output';
import { OUTPUT_CLOSED_EXIT_CODE, processOutputGuard } from './run/output-guard';
import { readPackageVersion } from './run/version';
import { addEnvironmentHelp } from './run/environment-variables';

/**
 * The commands by name, each loaded only when it runs (or for --help): `version` answers without loading
 * anything, and `plan --no-synth` never loads cdktf nor the dev server.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const COMMANDS: Readonly<Record<string, () => CommandRegistration>> = {
  synth: () => (require('./commands/synth') as typeof import('./commands/synth')).registerSynthCommand,
  plan: () => (require('./commands/plan') as typeof import('./commands/plan')).registerPlanCommand,
  apply: () => (require('./commands/apply') as typeof import('./commands/apply')).registerApplyCommand,
  destroy: () => (require('./commands/destroy') as typeof import('./commands/destroy')).registerDestroyCommand,
  show: () => (require('./commands/show') as typeof import('./commands/show')).registerShowCommand,
  import: () => (require('./commands/import') as typeof import('./commands/import')).registerImportCommand,
  generate: () => (require('./commands/generate') as typeof import('./commands/generate')).registerGenerateCommand,
  state: () => (require('./commands/state') as typeof import('./commands/state')).registerStateCommand,
  'force-unlock': () => (require('./commands/force-unlock') as typeof import('./commands/force-unlock')).registerForceUnlockCommand,
  drift: () => (require('./commands/drift') as typeof import('./commands/drift')).registerDriftCommand,
  graph: () => (require('./commands/graph') as typeof import('./commands/graph')).registerGraphCommand,
  stacks: () => (require('./commands/stacks') as typeof import('./commands/stacks')).registerStacksCommand,
  action: () => (require('./commands/action') as typeof import('./commands/action')).registerActionCommand,
  exec: () => (require('./commands/exec') as typeof import('./commands/exec')).registerExecCommand,
  'dev-server': () => (require('./commands/dev-server') as typeof import('./commands/dev-server')).registerDevServerCommand,
};
/* eslint-enable @typescript-eslint/no-require-imports */

/** Every command's name, in the order `secretform --help` lists them (after `version`). */
export const COMMAND_NAMES: readonly string[] = Object.keys(COMMANDS);

/** The program with `version` and the commands named in `names` registered (tests build it with all of them). */
export function createProgram(version: string, outcome: CommandOutcome, names: readonly string[]): Command {
  const program = new Command('secretform')
    .description('Infrastructure as code for the secrets service')
    .version(`secretform ${version}`, '-V, --version', 'print the version')
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)');
  addEnvironmentHelp(program.command('version'), [])
    .description('print the version')
    .action(() => {
      process.stdout.write(`secretform ${version}\n`);
    });
  for (const name of names) COMMANDS[name]()(program, outcome);
  return program;
}

/** The `secretform` command line. `argv` as in process.argv (node, script, args...). Resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  // Installed first, so a reader that goes away early (`| head`) never crashes the process with EPIPE.
  const output = processOutputGuard();
  // Before anything is written: no name, value or server answer may drive the terminal (terminal-output.ts).
  guardTerminalOutput(process.env);
  // A write that fails after the command returned reports its EPIPE late: decide the exit code on the way out.
  process.once('exit', () => {
    if (output.closed) process.exitCode = OUTPUT_CLOSED_EXIT_CODE;
  });
  const outcome: CommandOutcome = { end: 0 };
  const named = argv[2];
  const only = named !== undefined && Object.hasOwn(COMMANDS, named) ? [named] : COMMAND_NAMES;
  const skipCommands = named === 'version' || named === '--version' || named === '-V';
  const program = createProgram(readPackageVersion(), outcome, skipCommands ? [] : only);
  if (argv.length <= 2) {
    program.outputHelp({ error: true });
    return 1;
  }
  try {
    await program.parseAsync(argv);
  } catch (error) {
    // Usage errors are already printed by commander; --help and --version end with code 0.
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 1;
    throw error;
  }
  // The one place a command's failure is printed.
  const exitCode = endCommand(process, outcome.end);
  return output.closed ? OUTPUT_CLOSED_EXIT_CODE : exitCode;
}
