/**
 * `secretform destroy [options] [--auto-approve]`: deletes every resource in state (or the targets and what
 * depends on them).
 */
import type { Command } from 'commander';
import { runChangeCommand, type ChangeFlags } from '../run/change-run';
import { addEngineOptions } from '../run/engine-flags';
import { processIo } from '../run/io';
import type { CommandOutcome } from '../run/command-outcome';

export function registerDestroyCommand(program: Command, outcome: CommandOutcome): void {
  addEngineOptions(program.command('destroy').description('delete the resources recorded in state from the service'))
    .option('--auto-approve', 'destroy without asking (required when stdin is not interactive, e.g. in CI)')
    .action(async (flags: ChangeFlags) => {
      outcome.end = await runChangeCommand('destroy', flags, processIo());
    });
}
