/**
 * The sections every report is made of, one per stack (a plan, a failure, a skip for a failed dependency, or,
 * with `--changed`, a stack unchanged since its last apply that the run did not read),
 * which form a report takes for them, and what the form over several stacks adds: the totals over the stacks
 * and each stack's outcome word.
 */
import { describeEngineError } from './engine-error';
import type { Plan, PlanSummary } from '../engine/plan/plan';
import { summarize } from '../engine/plan/plan';
import type { StackOutcome } from '../engine/stacks/stack-scheduler';
import { planTotals, refreshOnlyPhrase, totalsPhrase, type PlanTotals } from './plan-view';
import { OUTCOME_LOOK, planOutcome, type PlanOutcome } from './status';

/**
 * A stack `--changed` left out of the run: its desired state is the one its last apply carried out, so it was not
 * read (no request for it). Every format lists it as such, so a reviewer sees the whole app.
 */
export interface UnchangedStackReport {
  stack: string;
  status: 'unchanged';
}

/** One stack of a report, a section: as the run over several stacks hands it over, or unchanged and not read. */
export type StackReport = StackOutcome<Plan> | UnchangedStackReport;

/** The words every format uses for a stack that `--changed` left out. */
export const UNCHANGED_WORDS = 'unchanged since its last apply, not read';

/** The section of a stack `--changed` left out. */
export function unchangedStackReport(stack: string): UnchangedStackReport {
  return { stack, status: 'unchanged' };
}

/** The section of a stack that planned: a run of one stack is a report of this one section. */
export function stackReport(plan: Plan): StackReport {
  return { stack: plan.stack, status: 'done', value: plan };
}

/**
 * The plan a report shows in the one-section form, or undefined for the form over several stacks. One stack
 * that planned is reported as a run of that stack alone (no stack heading, no total over one stack), whether
 * one stack was asked for or a run over several came down to one (e.g. `--target` in one stack); a stack that
 * failed or was skipped has no plan to show, so its section says why under its name.
 */
export function onlyPlan(reports: readonly StackReport[]): Plan | undefined {
  return reports.length === 1 && reports[0].status === 'done' ? reports[0].value : undefined;
}

/**
 * The plans' warnings in the report's words: a stack's own in the one-section form, each after `stack <name>: `
 * in the form over several stacks, where a warning alone would not say which stack it is about.
 */
export function reportWarnings(reports: readonly StackReport[]): string[] {
  const only = onlyPlan(reports);
  if (only !== undefined) return [...only.warnings];
  return reports.flatMap((report) => (report.status === 'done' ? report.value.warnings.map((warning) => `stack ${report.stack}: ${warning}`) : []));
}

/** Why a stack has no plan, in one sentence (no secret: engine messages never hold one); undefined when it has one or is unchanged. */
export function stackProblem(report: StackReport): string | undefined {
  if (report.status === 'failed') return describeEngineError(report.error);
  if (report.status === 'skipped') return `not planned: stack ${report.dependency}, which it depends on, failed or was skipped`;
  return undefined;
}

/** A stack's outcome: its plan's, `no_changes` when unchanged since its last apply, or `error` when it has none. */
export function stackOutcome(report: StackReport): PlanOutcome {
  if (report.status === 'unchanged') return 'no_changes';
  return report.status === 'done' ? planOutcome(report.value) : 'error';
}

/**
 * How many stacks of a run failed, were interrupted (apply and destroy: Ctrl-C; a plan is never interrupted),
 * and were skipped because a stack they wait for did not succeed.
 */
export interface StackProblems {
  failed: number;
  interrupted?: number;
  skipped: number;
}

export interface StacksTotals extends PlanTotals, StackProblems {
  /** Stacks `--changed` left out (unchanged since their last apply, not read). */
  unchanged: number;
}

/** Terraform's counting summed over the planned stacks, and how many stacks failed or were skipped. */
export function stacksTotals(reports: readonly StackReport[]): StacksTotals {
  const totals: StacksTotals = { add: 0, change: 0, destroy: 0, forget: 0, drifted: 0, failed: 0, skipped: 0, unchanged: 0 };
  for (const report of reports) {
    if (report.status === 'failed') totals.failed++;
    else if (report.status === 'skipped') totals.skipped++;
    else if (report.status === 'unchanged') totals.unchanged++;
    else {
      const stack = planTotals(report.value);
      totals.add += stack.add;
      totals.change += stack.change;
      totals.destroy += stack.destroy;
      totals.forget += stack.forget;
      totals.drifted += stack.drifted;
    }
  }
  return totals;
}

/**
 * The totals in the words each stack's report uses: `Plan: 4 to add, 1 to change, 0 to destroy, 2 drifted`, or,
 * when the stacks planned refresh-only (each says only `Refresh-only plan: 1 drifted`), `Refresh-only plan: 2
 * drifted`. A run plans every stack in one mode, so any planned stack tells which.
 */
export function stacksTotalsPhrase(reports: readonly StackReport[], totals: StacksTotals): string {
  const refreshOnly = reports.some((report) => report.status === 'done' && report.value.refreshOnly);
  return refreshOnly ? refreshOnlyPhrase(totals.drifted) : `${totalsPhrase(totals)}, ${totals.drifted} drifted`;
}

/** The JSON summary over the planned stacks: each PlanSummary count summed. */
export function summedSummary(reports: readonly StackReport[]): PlanSummary {
  const sum: PlanSummary = { create: 0, update: 0, replace: 0, delete: 0, forget: 0, no_op: 0, drifted: 0 };
  for (const report of reports) {
    if (report.status !== 'done') continue;
    const summary = summarize(report.value);
    for (const key of Object.keys(sum) as (keyof PlanSummary)[]) sum[key] += summary[key];
  }
  return sum;
}

/** The most alarming outcome of the run (statuses are ordered from the most alarming). */
export function runOutcome(reports: readonly StackReport[]): PlanOutcome {
  const outcomes = new Set(reports.map(stackOutcome));
  return (Object.keys(OUTCOME_LOOK) as PlanOutcome[]).find((outcome) => outcomes.has(outcome)) ?? 'no_changes';
}

/**
 * `1 stack failed, 2 interrupted, 1 skipped` (empty when every stack succeeded): the first count says what it
 * counts, the others follow it.
 */
export function problemsWords(problems: StackProblems): string {
  const counts: [number, string][] = [
    [problems.failed, 'failed'],
    [problems.interrupted ?? 0, 'interrupted'],
    [problems.skipped, 'skipped'],
  ];
  return counts
    .filter(([count]) => count > 0)
    .map(([count, word], index) => `${index === 0 ? stackCount(count) : count} ${word}`)
    .join(', ');
}

/** `1 stack`, `3 stacks`: how the reports over several stacks count them. */
export function stackCount(count: number): string {
  return `${count} stack${count === 1 ? '' : 's'}`;
}

/** `, 1 stack failed, 1 skipped` (empty when none failed or was skipped): the end of a plan's total line. */
export function problemsPhrase(problems: StackProblems): string {
  const words = problemsWords(problems);
  return words === '' ? '' : `, ${words}`;
}

/** `, 2 stacks unchanged since their last apply (not read)` (empty when `--changed` left none out). */
export function unchangedPhrase(totals: StacksTotals): string {
  if (totals.unchanged === 0) return '';
  return `, ${stackCount(totals.unchanged)} unchanged since ${totals.unchanged === 1 ? 'its' : 'their'} last apply (not read)`;
}
