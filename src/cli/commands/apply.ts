/**
 * `secretform apply [options] [--auto-approve] [--refresh-only]`: shows the plan, asks for approval, and carries
 * it out. `--refresh-only` records the live state of managed objects as applied (accepts drift) instead.
 * `secretform apply PLANFILE`: carries out a saved plan (`plan --out`) as it is, without a prompt, refusing it
 * when it is stale.
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
    .argument('[planfile]', 'a plan saved by `secretform plan --out PLANFILE`: applied as it is, without a prompt'))
    .option('--auto-approve', 'apply without asking (required when stdin is not interactive, e.g. in CI)')
    .option('--refresh-only', 'record the live state of managed objects as applied (accept drift); change nothing on the service')
    .action(async (planFile: string | undefined, flags: ChangeFlags) => {
      outcome.end = planFile === undefined
        ? await runChangeCommand('apply', flags, processIo())
        : await runSavedPlanApply(planFile, flags, processIo());
    });
}
