/**
 * `secretform destroy [options] [--auto-approve]`: deletes every resource in state (or the targets and what
 * depends on them).
 */
import type { Command } from 'commander';
import { runChangeCommand, type ChangeFlags } from '../run/change-run';
import { addEngineOptions, ONLY_STACK_OR_NAMED } from '../run/engine-flags';
import { addEnvironmentHelp, COLOR_VARIABLES, SERVICE_VARIABLES, STATE_VARIABLES, SYNTH_VARIABLES } from '../run/environment-variables';
import { processIo } from '../run/io';
import type { CommandOutcome } from '../run/command-outcome';

export function registerDestroyCommand(program: Command, outcome: CommandOutcome): void {
  addEnvironmentHelp(addEngineOptions(program.command('destroy').description('delete the resources recorded in state from the service'), ONLY_STACK_OR_NAMED), [
    ...SERVICE_VARIABLES, ...STATE_VARIABLES, ...SYNTH_VARIABLES, ...COLOR_VARIABLES,
  ])
    .option('--auto-approve', 'destroy without asking (required when stdin is not interactive, e.g. in CI)')
    .action(async (flags: ChangeFlags) => {
      outcome.end = await runChangeCommand('destroy', flags, processIo());
    });
}
