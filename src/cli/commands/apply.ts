/**
 * `secretform apply [options] [--auto-approve] [--refresh-only]`: shows the plan, asks for approval, and carries
 * it out. `--refresh-only` records the live state of managed objects as applied (accepts drift) instead.
 * `secretform apply PLANFILE...`: carries out saved plans (`plan --out`) as they are, without a prompt, refusing
 * them when one is stale; several files (one per CI job) are applied as one set (cli/run/saved-plan-apply.ts).
 */
import type { Command } from 'commander';
import { runChangeCommand, type ChangeFlags } from '../run/change-run';
import { addEngineOptions } from '../run/engine-flags';
import { addPolicyOption } from '../run/policy-flags';
import { processIo } from '../run/io';
import type { CommandOutcome } from '../run/command-outcome';
import { runSavedPlanApply } from '../run/saved-plan-apply';

export function registerApplyCommand(program: Command, outcome: CommandOutcome): void {
  addPolicyOption(addEngineOptions(program.command('apply').description('apply the changes the plan shows to the service, or a saved plan (PLANFILE)'))
    .argument('[planfile...]', 'plans saved by `secretform plan --out PLANFILE`: applied as they are, without a prompt; several files as one set'))
    .option('--auto-approve', 'apply without asking (required when stdin is not interactive, e.g. in CI)')
    .option('--refresh-only', 'record the live state of managed objects as applied (accept drift); change nothing on the service')
    .action(async (planFiles: string[], flags: ChangeFlags) => {
      outcome.exitCode = planFiles.length === 0
        ? await runChangeCommand('apply', flags, processIo())
        : await runSavedPlanApply(planFiles, flags, processIo());
    });
}
