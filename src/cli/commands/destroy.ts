/**
 * `secretform destroy [options] [--auto-approve] [--if-digest D]`: deletes every resource in state (or the
 * targets and what depends on them). `--if-digest` is the cdktf deploy bridge's guard: the target is deleted
 * only when its digest in state is D, so replacing a null_resource never deletes what its successor applied.
 */
import type { Command } from 'commander';
import { runChangeCommand, type ChangeFlags } from '../change-run';
import { addEngineOptions } from '../engine-flags';
import { processIo } from '../io';
import type { CommandOutcome } from '../main';

export function registerDestroyCommand(program: Command, outcome: CommandOutcome): void {
  addEngineOptions(program.command('destroy').description('delete the resources recorded in state from the service'))
    .option('--auto-approve', 'destroy without asking (required when stdin is not interactive, e.g. in CI)')
    .option('--if-digest <digest>', 'cdktf deploy bridge: destroy the single --target only if its state digest is this one')
    .action(async (flags: ChangeFlags) => {
      outcome.exitCode = await runChangeCommand('destroy', flags, processIo());
    });
}
