/**
 * The one run of `secretform plan`, over one stack or several: every stack planned (in dependency order,
 * independent ones at the same time), one report covering them all (a run of one stack: its plan alone), and
 * with `--out` one saved plan covering them all. Exit code 1 when a stack failed or was skipped (after the report
 * of the others; a run of one stack reports its failure alone, as the command's error), else 0, or 2 with
 * --detailed-exitcode when any stack has changes or drift (decided by the plan command).
 */
import * as path from 'node:path';
import { createSavedPlan, ok, plan, writeSavedPlanSet, type Plan, type Result, type StackOutcome, type StackSetOptions } from '../../engine';
import { hasChangesOrDrift } from '../../engine/plan/plan';
import { inStack } from '../../engine/errors';
import { describeEngineError } from '../../report/engine-error';
import { commandFailure, type CommandEnd } from './command-failure';
import { writeError, type CliIo } from './io';
import { reportShowsErrorsOnScreen, stacksProblemsAboveLine, writePlanReport, type PlanFormat } from '../views/plan-report';
import { unchangedStackReport, type StackReport } from '../../report';
import { mandatoryPolicyFailure } from '../views/policy-outcome';
import { writeSarifFile } from '../views/sarif-output';

export interface PlanRunRequest {
  /** The run's options with its stacks (`stacks`, chosen with `chooseStacks`; none when `--changed` found none changed). */
  options: StackSetOptions & { stacks: readonly string[] };
  /** `--changed`: the stacks chosen but unchanged since their last apply, listed as such and never read. */
  unchanged?: readonly string[];
  /** The order of the report's sections: the stacks chosen, changed or not (default: the order the stacks ran). */
  order?: readonly string[];
  format: PlanFormat;
  outFile?: string;
  planFile?: string;
  /** `--sarif PATH`: the policy results of every stack planned. */
  sarifFile?: string;
  /** Called when planning is over, before the report is written (ends the progress line). */
  planned: () => void;
}

/**
 * How the plan ended: its failure, the exit code of a run whose report says which stacks failed, or (every stack
 * planned) whether any stack has changes or drift.
 */
export type PlanRunOutcome = CommandEnd | 'changes' | 'no changes';

export async function runPlanOfStacks(request: PlanRunRequest, io: CliIo): Promise<PlanRunOutcome> {
  const { options, planFile } = request;
  const stacks = options.stacks;
  const unchanged = request.unchanged ?? [];
  // With --changed and nothing changed, nothing is planned (no request) and no plan is saved.
  const planned = stacks.length === 0 ? ok([]) : await planAndSave(options, planFile, io);
  request.planned();
  if (!planned.ok) return commandFailure(planned.error);
  const outcomes = planned.value;
  // The only stack: its failure is the command's error, unprefixed, with no report (a set of one skips nothing).
  if (stacks.length === 1 && unchanged.length === 0 && outcomes[0].status === 'failed') return commandFailure(outcomes[0].error);
  const problems = outcomes.filter((outcome) => outcome.status !== 'done');
  const reports = inOrder([...outcomes, ...unchanged.map(unchangedStackReport)], request.order);
  try {
    // The comment says how the saved plan is applied only when it was saved (not when a stack failed).
    await writePlanReport(reports, request.format, request.outFile, io, problems.length === 0 && stacks.length > 0 ? planFile : undefined);
    if (request.sarifFile !== undefined) writeSarifFile(plannedStacks(outcomes), request.sarifFile, io);
  } catch (error) {
    return commandFailure(error);
  }
  // Said whether or not another stack failed: the reports show the failed policy, and so does the closing message.
  const policyFailure = mandatoryPolicyFailure(plannedStacks(outcomes));
  if (problems.length > 0) {
    if (reportShowsErrorsOnScreen(io, request.format, request.outFile)) writeError(io, stacksProblemsAboveLine(problems.map((problem) => problem.stack)));
    else for (const problem of problems) {
      // Said after every stack's report: the failure names its stack.
      writeError(io, problem.status === 'failed' ? describeEngineError(inStack(problem.error, problem.stack)) : `stack ${problem.stack} was not planned: stack ${problem.dependency}, which it depends on, failed or was skipped`);
    }
    if (planFile !== undefined) writeError(io, `the plan was not saved to ${planFile}: it would not cover every stack asked for`);
    if (policyFailure !== undefined) writeError(io, describeEngineError(policyFailure));
    return 1;
  }
  if (planFile !== undefined && stacks.length === 0) {
    io.stderr.write(`No stack changed since its last apply: nothing was planned, and no plan was saved to ${planFile}\n`);
  } else if (planFile !== undefined) {
    const what = stacks.length === 1 ? 'the plan' : `the plan of ${stacks.length} stacks`;
    io.stderr.write(`Saved ${what} to ${planFile}: apply exactly this plan with \`secretform apply ${planFile}\`\n`);
  }
  // A failed mandatory policy fails the plan once its reports are out: the reviewer sees why.
  if (policyFailure !== undefined) return policyFailure;
  return outcomes.some((outcome) => outcome.status === 'done' && hasChangesOrDrift(outcome.value)) ? 'changes' : 'no changes';
}

/** The reports in the order the stacks were chosen (unchanged ones among the others), else as they came. */
function inOrder(reports: StackReport[], order: readonly string[] | undefined): StackReport[] {
  if (order === undefined) return reports;
  const position = new Map(order.map((stack, index) => [stack, index]));
  return [...reports].sort((a, b) => (position.get(a.stack) ?? 0) - (position.get(b.stack) ?? 0));
}

function plannedStacks(outcomes: readonly StackOutcome<Plan>[]): Plan[] {
  return outcomes.flatMap((outcome) => (outcome.status === 'done' ? [outcome.value] : []));
}

/** The plan of every stack; with `--out PLANFILE` also saved to that file (relative to the project directory). */
async function planAndSave(options: StackSetOptions, planFile: string | undefined, io: CliIo): Promise<Result<StackOutcome<Plan>[]>> {
  if (planFile === undefined) return plan(options);
  const made = await createSavedPlan(options);
  if (!made.ok) return made;
  if (made.value.saved === undefined) return ok(made.value.outcomes);
  const written = await writeSavedPlanSet(path.resolve(io.cwd, planFile), made.value.saved);
  return written.ok ? ok(made.value.outcomes) : written;
}
