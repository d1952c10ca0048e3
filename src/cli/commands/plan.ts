/**
 * `secretform plan [options] [--format text|markdown|json] [--out-file PATH] [--out PLANFILE] [--detailed-exitcode]
 * [--refresh-only]`: refreshes the live objects and shows what apply would change, and what changed outside the
 * code. `--out` also saves the plan for `secretform apply PLANFILE`. Exit code 0, 1 on error, and with
 * --detailed-exitcode 2 when there are changes or drift.
 */
import * as path from 'node:path';
import type { Command } from 'commander';
import { createSavedPlan, ok, plan, writeSavedPlan, type EngineOptions, type Plan, type Result } from '../../engine';
import { hasChangesOrDrift } from '../../engine/plan/plan';
import { addEngineOptions, nonEmptyFlag, parseEngineFlags, prepareServiceRun, type EngineFlags } from '../engine-flags';
import { failWith, processIo, type CliIo } from '../io';
import type { CommandOutcome } from '../main';
import { addReportOptions, parseReportFlags, writePlanReport, type ReportFlags } from '../plan-report';
import { stackReport } from '../../report';
import { createProgressReporter } from '../progress';
import { mandatoryPolicyFailure } from '../policy-outcome';
import { addPolicyOption, loadRunPolicies, type PolicyFlags } from '../policy-flags';
import { SARIF_OPTION_HELP, writeSarifFile } from '../sarif-output';
import { chooseStacks } from '../stack-choice';
import { runStacksPlan } from '../stacks-plan-run';

export interface PlanFlags extends EngineFlags, ReportFlags, PolicyFlags {
  /** `--out PLANFILE`: the saved plan. */
  out?: string;
  /** `--sarif PATH`: the policy results as SARIF. */
  sarif?: string;
  detailedExitcode?: boolean;
  refreshOnly?: boolean;
}

/** Exit code of a successful plan with changes or drift, when --detailed-exitcode asks for it. */
export const CHANGES_EXIT_CODE = 2;

export function registerPlanCommand(program: Command, outcome: CommandOutcome): void {
  addPolicyOption(addReportOptions(addEngineOptions(program.command('plan').description('show what apply would change on the service, and what changed outside the code'))))
    .option('--sarif <path>', SARIF_OPTION_HELP)
    .option('--out <planfile>', 'also save the plan to this file (JSON, mode 0600, no secret value) for `secretform apply PLANFILE`')
    .option('--detailed-exitcode', 'exit 2 when there are changes or drift, 0 when there are none, 1 on error')
    .option('--refresh-only', 'only report changes made outside the code; plan no change')
    .action(async (flags: PlanFlags) => {
      outcome.exitCode = await runPlan(flags, processIo());
    });
}

export async function runPlan(flags: PlanFlags, io: CliIo): Promise<number> {
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
    return failWith(io, error);
  }
  const prepared = await prepareServiceRun(settings, io);
  if (!prepared.ok) return prepared.exitCode;
  const choice = chooseStacks(prepared.options, settings, 'read', 'plan', io);
  if (choice.kind === 'failed') return choice.exitCode;

  const progress = createProgressReporter(io, { showOperations: false });
  const options = { ...choice.options, refreshOnly: flags.refreshOnly === true, onProgress: progress.onProgress, policies };
  if (choice.kind === 'several') {
    const request = { options, outdir: choice.outdir, stacks: choice.stacks, ...report, planFile, sarifFile, planned: () => progress.finish() };
    const outcome = await runStacksPlan(request, io);
    if ('exitCode' in outcome) return outcome.exitCode;
    return flags.detailedExitcode === true && outcome.changes ? CHANGES_EXIT_CODE : 0;
  }
  const planned = await planAndSave(options, planFile, io);
  progress.finish();
  if (!planned.ok) return failWith(io, planned.error);
  const computed = planned.value;

  try {
    writePlanReport([stackReport(computed)], report.format, report.outFile, io, planFile);
    if (sarifFile !== undefined) writeSarifFile([computed], sarifFile, io);
  } catch (error) {
    return failWith(io, error);
  }
  if (planFile !== undefined) io.stderr.write(`Saved the plan to ${planFile}: apply exactly this plan with \`secretform apply ${planFile}\`\n`);
  // A failed mandatory policy fails the plan once its reports are out: the reviewer sees why.
  const policyFailure = mandatoryPolicyFailure([computed]);
  if (policyFailure !== undefined) return failWith(io, policyFailure);
  return flags.detailedExitcode === true && hasChangesOrDrift(computed) ? CHANGES_EXIT_CODE : 0;
}

/** The plan; with `--out PLANFILE` also saved to that file (relative to the project directory). */
async function planAndSave(options: EngineOptions, planFile: string | undefined, io: CliIo): Promise<Result<Plan>> {
  if (planFile === undefined) return plan(options);
  const made = await createSavedPlan(options);
  if (!made.ok) return made;
  const written = await writeSavedPlan(path.resolve(io.cwd, planFile), made.value.saved);
  return written.ok ? ok(made.value.plan) : written;
}
