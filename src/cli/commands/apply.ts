/** `secretform apply [options] [--auto-approve]`: shows the plan, asks for approval, and carries it out. */
import type { Command } from 'commander';
import { runChangeCommand, type ChangeFlags } from '../change-run';
import { addEngineOptions } from '../engine-flags';
import { processIo } from '../io';
import type { CommandOutcome } from '../main';

export function registerApplyCommand(program: Command, outcome: CommandOutcome): void {
  addEngineOptions(program.command('apply').description('apply the changes the plan shows to the service'))
    .option('--auto-approve', 'apply without asking (required when stdin is not interactive, e.g. in CI)')
    .action(async (flags: ChangeFlags) => {
      outcome.exitCode = await runChangeCommand('apply', flags, processIo());
    });
}
