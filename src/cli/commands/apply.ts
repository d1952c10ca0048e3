/**
 * `secretform apply [options] [--auto-approve] [--refresh-only]`: shows the plan, asks for approval, and carries
 * it out. `--refresh-only` records the live state of managed objects as applied (accepts drift) instead.
 * `secretform apply PLANFILE`: carries out a saved plan (`plan --out`) as it is, without a prompt, refusing it
 * when it is stale.
 */
import type { Command } from 'commander';
import { runChangeCommand, type ChangeFlags } from '../run/change-run';
import { addEngineOptions, ONLY_STACK_OR_NAMED } from '../run/engine-flags';
import { addEnvironmentHelp, COLOR_VARIABLES, FINGERPRINT_VARIABLES, SERVICE_VARIABLES, STATE_VARIABLES, SYNTH_VARIABLES } from '../run/environment-variables';
import { addPolicyOption } from '../run/policy-flags';
import { processIo } from '../run/io';
import type { CommandOutcome } from '../run/command-outcome';
import { runSavedPlanApply } from '../run/saved-plan-apply';

export function registerApplyCommand(program: Command, outcome: CommandOutcome): void {
  const apply = addPolicyOption(addEngineOptions(program.command('apply').description('apply the changes the plan shows to the service, or a saved plan (PLANFILE)'), ONLY_STACK_OR_NAMED)
    .argument('[planfile]', 'a plan saved by `secretform plan --out PLANFILE`: applied as it is, without a prompt'))
    .option('--auto-approve', 'apply without asking (required when stdin is not interactive, e.g. in CI)')
    .option('--refresh-only', 'record the live state of managed objects as applied (accept drift); change nothing on the service')
    .action(async (planFile: string | undefined, flags: ChangeFlags) => {
      outcome.exitCode = planFile === undefined
        ? await runChangeCommand('apply', flags, processIo())
        : await runSavedPlanApply(planFile, flags, processIo());
    });
  addEnvironmentHelp(apply, [...SERVICE_VARIABLES, ...STATE_VARIABLES, ...FINGERPRINT_VARIABLES, ...SYNTH_VARIABLES, 'SECRETFORM_POLICY_TIMEOUT', ...COLOR_VARIABLES]);
}
