import { Command, CommanderError } from 'commander';
import { registerApplyCommand } from './commands/apply';
import { registerDestroyCommand } from './commands/destroy';
import { registerDevServerCommand } from './commands/dev-server';
import { registerGraphCommand } from './commands/graph';
import { registerImportCommand } from './commands/import';
import { registerPlanCommand } from './commands/plan';
import { registerStateCommand } from './commands/state';
import { registerSynthCommand } from './commands/synth';
import { OUTPUT_CLOSED_EXIT_CODE, processOutputGuard } from './output-guard';

/** Where a command leaves its exit code (commander's action handlers return nothing). */
export interface CommandOutcome {
  exitCode: number;
}

/** Each command lives in its own file under ./commands and registers itself here. */
export type CommandRegistration = (program: Command, outcome: CommandOutcome) => void;

const COMMANDS: CommandRegistration[] = [
  registerSynthCommand,
  registerPlanCommand,
  registerApplyCommand,
  registerDestroyCommand,
  registerImportCommand,
  registerStateCommand,
  registerDevServerCommand,
  registerGraphCommand,
];

/** The `secretform` command line. `argv` as in process.argv (node, script, args...). Resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  // Installed first, so a reader that goes away early (`| head`) never crashes the process with EPIPE.
  const output = processOutputGuard();
  // A write that fails after the command returned reports its EPIPE late: decide the exit code on the way out.
  process.once('exit', () => {
    if (output.closed) process.exitCode = OUTPUT_CLOSED_EXIT_CODE;
  });
  const outcome: CommandOutcome = { exitCode: 0 };
  const program = new Command('secretform')
    .description('Infrastructure as code for the secrets service')
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)');
  for (const register of COMMANDS) register(program, outcome);
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
  return output.closed ? OUTPUT_CLOSED_EXIT_CODE : outcome.exitCode;
}
