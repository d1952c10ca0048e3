/**
 * The JSON report of a run over several stacks (interface.md "Environments"): the per-stack objects as
 * `planToJson` makes them, the summary summed over them, and the stacks that have no plan with the reason.
 */
import type { PlanSummary } from '../engine/plan/plan';
import { planToJson, type PlanJson } from './json';
import { stackProblem, summedSummary, type StackReport } from './stacks-view';

export interface StacksPlanJson {
  format_version: '1.0';
  stacks: PlanJson[];
  summary: PlanSummary;
  /** Stacks without a plan: `failed` (the error) or `skipped` (a dependency failed). Absent when every stack planned. */
  errors?: { stack: string; status: 'failed' | 'skipped'; message: string }[];
}

export function stacksToJson(reports: readonly StackReport[]): StacksPlanJson {
  const json: StacksPlanJson = {
    format_version: '1.0',
    stacks: reports.flatMap((report) => (report.status === 'done' ? [planToJson(report.value)] : [])),
    summary: summedSummary(reports),
  };
  const errors = reports.flatMap((report) => (report.status === 'done' ? [] : [{ stack: report.stack, status: report.status, message: stackProblem(report)! }]));
  if (errors.length > 0) json.errors = errors;
  return json;
}

export function renderStacksJson(reports: readonly StackReport[]): string {
  return `${JSON.stringify(stacksToJson(reports), null, 2)}\n`;
}
