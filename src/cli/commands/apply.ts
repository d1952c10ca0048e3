/**
 * `secretform apply [options] [--auto-approve] [--refresh-only]`: shows the plan, asks for approval, and carries
 * it out. `--refresh-only` records the live state of managed objects as applied (accepts drift) instead.
 * `secretform apply PLANFILE...`: carries out saved plans (`plan --out`) as they are, without a prompt, refusing
 * them when one is stale; several files (one per CI job) are applied as one set (cli/run/saved-plan-apply.ts).
 */
import type { Command } from 'commander';
import { runChangeCommand, type ChangeFlags } from '../run/change-run';
import { addEngineOptions, ONLY_STACK_OR_NAMED } from '../run/engine-flags';
import { addEnvironmentHelp, COLOR_VARIABLES, FINGERPRINT_VARIABLES, SERVICE_VARIABLES, STATE_VARIABLES, SYNTH_VARIABLES } from '../run/environment-variables';
import { addPolicyOption } from '../run/policy-flags';
import { processIo } from '../run/io';
import { usageFailure } from '../run/command-failure';
import type { CommandOutcome } from '../run/command-outcome';
import { runSavedPlanApply } from '../run/saved-plan-apply';

export function registerApplyCommand(program: Command, outcome: CommandOutcome): void {
  const apply = addPolicyOption(addEngineOptions(program.command('apply').description('apply the changes the plan shows to the service, or a saved plan (PLANFILE)'), ONLY_STACK_OR_NAMED)
    .argument('[planfile...]', 'plans saved by `secretform plan --out PLANFILE`: applied as they are, without a prompt; several files as one set'))
    .option('--auto-approve', 'apply without asking (required when stdin is not interactive, e.g. in CI)')
    .option('--refresh-only', 'record the live state of managed objects as applied (accept drift); change nothing on the service')
    .option('--allow-unverified-plan', 'with PLANFILE: apply a stack whose plan carries no MAC (no fingerprint key could be had when it was made), or a plan of several stacks made by secretform before format version 2; check the file yourself first (docs/cli.md)')
    .option('--changed', 'apply only the stacks changed since their last apply (code, state, service, or a stack they depend on); names the stacks, so no --stack is needed')
    .action(async (planFiles: string[], flags: ChangeFlags) => {
      if (planFiles.length === 0 && flags.allowUnverifiedPlan === true) {
        outcome.end = usageFailure('--allow-unverified-plan goes with a saved plan (`secretform apply PLANFILE`): a plan made now is not read from a file');
        return;
      }
      outcome.end = planFiles.length === 0
        ? await runChangeCommand('apply', flags, processIo())
        : await runSavedPlanApply(planFiles, flags, processIo());
    });
  addEnvironmentHelp(apply, [...SERVICE_VARIABLES, ...STATE_VARIABLES, ...FINGERPRINT_VARIABLES, ...SYNTH_VARIABLES, 'SECRETFORM_POLICY_TIMEOUT', ...COLOR_VARIABLES]);
}
