/** `secretform synth [--app CMD] [--output DIR]`: runs the app (see synthesize.ts) and says what it wrote. */
import * as path from 'node:path';
import type { Command } from 'commander';
import { synthesize } from '../../synthesize';
import { attempt, CommandFailure } from '../run/command-failure';
import type { CommandOutcome } from '../run/command-outcome';
import { collectNames, SYNTH_ENV_HELP, SYNTH_ENV_OPTION } from '../run/engine-flags';
import { addEnvironmentHelp, SYNTH_VARIABLES } from '../run/environment-variables';


interface SynthFlags {
  app?: string;
  output?: string;
  synthEnv?: string[];
}

export function registerSynthCommand(program: Command, outcome: CommandOutcome): void {
  addEnvironmentHelp(program.command('synth'), SYNTH_VARIABLES)
    .description('run the cdktf app (cdktf.json) and write the synthesized stacks (like `cdktf synth`)')
    .option('--app <command>', 'command that runs the app (default: "app" of cdktf.json)')
    .option('--output <dir>', 'output directory (default: "output" of cdktf.json, else cdktf.out)')
    .option(SYNTH_ENV_OPTION, SYNTH_ENV_HELP, collectNames)
    .action(async (flags: SynthFlags) => {
      const result = await attempt(() => synthesize({ app: flags.app, output: flags.output, passEnv: flags.synthEnv }));
      if (result instanceof CommandFailure) {
        // synth has always led its failure with its own name.
        outcome.end = new CommandFailure(result.code, result.message, result.subject, 1, 'secretform synth');
        return;
      }
      const where = path.relative(process.cwd(), result.outdir) || '.';
      process.stdout.write(`synthesized ${result.stacks.length} stack${result.stacks.length === 1 ? '' : 's'} to ${where}: ${result.stacks.join(', ')}\n`);
      outcome.end = 0;
    });
}
