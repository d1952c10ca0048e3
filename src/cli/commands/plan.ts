/**
 * `secretform plan [options] [--format text|markdown|json] [--out-file PATH] [--out PLANFILE] [--detailed-exitcode]
 * [--refresh-only]`: refreshes the live objects and shows what apply would change, and what changed outside the
 * code. `--out` also saves the plan for `secretform apply PLANFILE`. Exit code 0, 1 on error, and with
 * --detailed-exitcode 2 when there are changes or drift.
 */
import type { Command } from 'commander';
import { addEngineOptions, EVERY_STACK, nonEmptyFlag, parseEngineFlags, prepareServiceRun, type EngineFlags, type EngineSettings } from '../run/engine-flags';
import type { EngineOptions } from '../../engine/setup/engine-options';
import { chooseChangedStacks } from '../run/changed-selection';
import { commandFailure, CommandFailure, type CommandEnd } from '../run/command-failure';
import { processIo, type CliIo } from '../run/io';
import type { CommandOutcome } from '../run/command-outcome';
import { addReportOptions, parseReportFlags, type ReportFlags } from '../views/plan-report';
import { runPlanOfStacks } from '../run/plan-run';
import { createProgressReporter } from '../run/progress';
import { addPolicyOption, loadRunPolicies, type PolicyFlags } from '../run/policy-flags';
import { SARIF_OPTION_HELP } from '../views/sarif-output';
import { chooseStacks } from '../run/stack-choice';
import { addEnvironmentHelp, COLOR_VARIABLES, COMMENT_VARIABLES, FINGERPRINT_VARIABLES, SERVICE_VARIABLES, STATE_VARIABLES, SYNTH_VARIABLES } from '../run/environment-variables';

export interface PlanFlags extends EngineFlags, ReportFlags, PolicyFlags {
  /** `--out PLANFILE`: the saved plan. */
  out?: string;
  /** `--sarif PATH`: the policy results as SARIF. */
  sarif?: string;
  detailedExitcode?: boolean;
  refreshOnly?: boolean;
  /** `--changed`: plan only the stacks changed since their last apply. */
  changed?: boolean;
}

/** Exit code of a successful plan with changes or drift, when --detailed-exitcode asks for it. */
export const CHANGES_EXIT_CODE = 2;

export function registerPlanCommand(program: Command, outcome: CommandOutcome): void {
  const plan = addPolicyOption(addReportOptions(addEngineOptions(program.command('plan').description('show what apply would change on the service, and what changed outside the code'), EVERY_STACK)))
    .option('--sarif <path>', SARIF_OPTION_HELP)
    .option('--out <planfile>', 'also save the plan itself to this file for `secretform apply PLANFILE` (JSON, mode 0600, no secret value); the report still goes to stdout or --out-file')
    .option('--detailed-exitcode', 'exit 2 when there are changes or drift, 0 when there are none, 1 on error')
    .option('--refresh-only', 'only report changes made outside the code; plan no change')
    .option('--changed', 'plan only the stacks changed since their last apply (code, state, service, or a stack they depend on); the others are listed as unchanged and not read')
    .action(async (flags: PlanFlags) => {
      outcome.end = await runPlan(flags, processIo());
    });
  addEnvironmentHelp(plan, [...SERVICE_VARIABLES, ...STATE_VARIABLES, ...FINGERPRINT_VARIABLES, ...SYNTH_VARIABLES, 'SECRETFORM_POLICY_TIMEOUT', ...COLOR_VARIABLES, ...COMMENT_VARIABLES]);
}

/** The stacks to plan: those `--stack` chooses, or with `--changed` the changed ones among them (and the others). */
async function chooseForPlan(options: EngineOptions, settings: EngineSettings, changed: boolean, io: CliIo): Promise<PlanChoice | CommandFailure> {
  if (!changed) {
    const choice = chooseStacks(options, settings, 'read', 'plan', io);
    return choice instanceof CommandFailure ? choice : { choice };
  }
  const split = await chooseChangedStacks(options, settings, 'plan', io);
  if (split instanceof CommandFailure) return split;
  return { choice: split.choice ?? { options, stacks: [] }, unchanged: split.unchanged, order: split.order };
}

interface PlanChoice {
  choice: { options: EngineOptions; stacks: string[] };
  unchanged?: string[];
  order?: string[];
}

export async function runPlan(flags: PlanFlags, io: CliIo): Promise<CommandEnd> {
  let settings;
  let report;
  let planFile;
  let sarifFile;
  let policies;
  try {
    settings = parseEngineFlags(flags);
    report = parseReportFlags(flags);
    planFile = nonEmptyFlag('--out', flags.out);
    sarifFile = nonEmptyFlag('--sarif', flags.sarif);
    policies = await loadRunPolicies(flags, io);
  } catch (error) {
    return commandFailure(error);
  }
  const prepared = await prepareServiceRun(settings, io);
  if (prepared instanceof CommandFailure) return prepared;
  const selection = await chooseForPlan(prepared, settings, flags.changed === true, io);
  if (selection instanceof CommandFailure) return selection;
  const { choice, unchanged, order } = selection;

  const progress = createProgressReporter(io, { showOperations: false });
  const options = { ...choice.options, stacks: choice.stacks, refreshOnly: flags.refreshOnly === true, onProgress: progress.onProgress, policies };
  const outcome = await runPlanOfStacks({ options, unchanged, order, ...report, planFile, sarifFile, planned: () => progress.finish() }, io);
  if (outcome !== 'changes' && outcome !== 'no changes') return outcome;
  return flags.detailedExitcode === true && outcome === 'changes' ? CHANGES_EXIT_CODE : 0;
}
