/**
 * `secretform plan` over several stacks: every stack planned (in dependency order, independent ones at the same
 * time), one report covering them all, and with `--out` one saved plan covering them all. Exit code 1 when a
 * stack failed or was skipped (after the report of the others), else 0, or 2 with --detailed-exitcode when any
 * stack has changes or drift (decided by the plan command).
 */
import * as path from 'node:path';
import { createSavedPlanSet, ok, planStacks, writeSavedPlanSet, type EngineOptions, type Plan, type Result, type StackOutcome } from '../engine';
import { hasChangesOrDrift } from '../engine/plan/plan';
import { failWith, writeError, type CliIo } from './io';
import { writePlanReport, type PlanFormat } from './plan-report';
import { mandatoryPolicyFailure } from './policy-outcome';
import { writeSarifFile } from './sarif-output';

export interface StacksPlanRequest {
  options: EngineOptions;
  outdir: string;
  stacks: string[];
  format: PlanFormat;
  outFile?: string;
  planFile?: string;
  /** `--sarif PATH`: the policy results of every stack planned. */
  sarifFile?: string;
  /** Called when planning is over, before the report is written (ends the progress line). */
  planned: () => void;
}

/** A failure (already reported) as its exit code, or whether any stack has changes or drift. */
export type StacksPlanOutcome = { exitCode: number } | { changes: boolean };

export async function runStacksPlan(request: StacksPlanRequest, io: CliIo): Promise<StacksPlanOutcome> {
  const { options, outdir, stacks, planFile } = request;
  const planned = await planAndSave({ ...options, outdir, stacks }, planFile, io);
  request.planned();
  if (!planned.ok) return { exitCode: failWith(io, planned.error) };
  const outcomes = planned.value;
  const problems = outcomes.filter((outcome) => outcome.status !== 'done');
  try {
    // The comment says how the saved plan is applied only when it was saved (not when a stack failed).
    writePlanReport(outcomes, request.format, request.outFile, io, problems.length === 0 ? planFile : undefined);
    if (request.sarifFile !== undefined) writeSarifFile(plannedStacks(outcomes), request.sarifFile, io);
  } catch (error) {
    return { exitCode: failWith(io, error) };
  }
  // Said whether or not another stack failed: the reports show the failed policy, and so does the closing message.
  const policyFailure = mandatoryPolicyFailure(plannedStacks(outcomes));
  if (problems.length > 0) {
    for (const problem of problems) {
      writeError(io, problem.status === 'failed' ? `stack ${problem.stack}: ${problem.error.message}` : `stack ${problem.stack} was not planned: stack ${problem.dependency}, which it depends on, failed or was skipped`);
    }
    if (planFile !== undefined) writeError(io, `the plan was not saved to ${planFile}: it would not cover every stack asked for`);
    if (policyFailure !== undefined) writeError(io, policyFailure);
    return { exitCode: 1 };
  }
  if (planFile !== undefined) io.stderr.write(`Saved the plan of ${stacks.length} stacks to ${planFile}: apply exactly this plan with \`secretform apply ${planFile}\`\n`);
  if (policyFailure !== undefined) return { exitCode: failWith(io, policyFailure) };
  return { changes: outcomes.some((outcome) => outcome.status === 'done' && hasChangesOrDrift(outcome.value)) };
}

function plannedStacks(outcomes: readonly StackOutcome<Plan>[]): Plan[] {
  return outcomes.flatMap((outcome) => (outcome.status === 'done' ? [outcome.value] : []));
}

async function planAndSave(
  options: Parameters<typeof planStacks>[0],
  planFile: string | undefined,
  io: CliIo,
): Promise<Result<StackOutcome<Plan>[]>> {
  if (planFile === undefined) return planStacks(options);
  const made = await createSavedPlanSet(options);
  if (!made.ok) return made;
  if (made.value.saved === undefined) return ok(made.value.outcomes);
  const written = await writeSavedPlanSet(path.resolve(io.cwd, planFile), made.value.saved);
  return written.ok ? ok(made.value.outcomes) : written;
}
