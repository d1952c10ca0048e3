import type { DriftEntry, Plan, PlanJsonAction, PlannedChange, PlanSummary } from '../engine/plan/plan';
import { PLAN_JSON_ACTIONS, summarize } from '../engine/plan/plan';
import type { Consequence } from '../resources/types';
import type { PolicyResult } from '../policy/evaluation';
import { secretFieldNames, serviceManagedSecrets, visibleAttributes } from './plan-view';
import { reasonsText } from './reason-words';
import { JsonList, jsonPieces, materialized } from './json-pieces';
import { onlyPlan, stackProblem, summedSummary, UNCHANGED_WORDS, type StackReport } from './stacks-view';

/** The machine-readable plan (`plan --format json`), shaped as interface.md "Plan JSON" fixes it. */
export interface PlanJson {
  format_version: '1.0';
  stack: string;
  resource_changes: ResourceChangeJson[];
  resource_drift: ResourceDriftJson[];
  summary: PlanSummary;
  /** Present when policy packs were evaluated: one entry per policy and resource evaluated. */
  policy_results?: PolicyResultJson[];
}

export interface PolicyResultJson {
  policy: string;
  enforcement: 'advisory' | 'mandatory';
  address: string;
  status: 'passed' | 'failed' | 'waived';
  message: string;
  /** The service field names the violations name. */
  fields: string[];
  /** For `waived`: the reason the construct gives. */
  waiver_reason?: string;
}

export interface ResourceChangeJson {
  address: string;
  /** The address in state before the construct id changed (terraform's `previous_address`). */
  previous_address?: string;
  type: string;
  id: string;
  actions: JsonAction[];
  action_reason?: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  sensitive: string[];
  replace_paths: string[][];
  /** Root credentials the service rotated (rotate-root), managed by the service now: field -> when. */
  managed_by_service?: Record<string, string>;
  /** For a delete or replace: what else goes with the object on the service (docs/guardrails.md). */
  consequences?: ConsequenceJson[];
}

/**
 * One thing a delete takes with it: `{ "what": "secrets", "count": 12, "detail": "..." }`, `at_least` when bounded;
 * `"count": null` and `uncounted` (why) when the service's answer could not tell how many.
 */
export interface ConsequenceJson {
  what: string;
  count: number | null;
  at_least?: true;
  uncounted?: string;
  detail: string;
}

export interface ResourceDriftJson {
  address: string;
  type: string;
  id: string;
  kind: DriftEntry['kind'];
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

export type JsonAction = PlanJsonAction;

/** The report over several stacks (interface.md "Environments"): each planned stack's object as `planToJson` makes it. */
export interface StacksPlanJson {
  format_version: '1.0';
  stacks: PlanJson[];
  /** Each count summed over the planned stacks. */
  summary: PlanSummary;
  /** Stacks without a plan: `failed` (the error) or `skipped` (a dependency failed). Absent when every stack planned. */
  errors?: { stack: string; status: 'failed' | 'skipped'; message: string }[];
  /**
   * Stacks `--changed` left out: unchanged since their last apply, so not read (`status` `unchanged`). Absent
   * when the run covered every stack asked for; added beside `stacks`, so a consumer that ignores it reads on.
   */
  unchanged?: { stack: string; status: 'unchanged'; message: string }[];
}

/**
 * The report as indented JSON text, ending with a newline: one stack that planned as its `PlanJson` (see
 * `onlyPlan`), several stacks as a `StacksPlanJson`. The pieces of `jsonReportPieces` joined: the one writer of
 * the report's text, whether it goes to a file or, piece by piece, to stdout.
 */
export function renderJson(reports: readonly StackReport[]): string {
  let text = '';
  for (const piece of jsonReportPieces(reports)) text += piece;
  return `${text}\n`;
}

/**
 * The report's JSON text (without `renderJson`'s final newline) in pieces, made as they are taken
 * (json-pieces.ts): a few changes at a time, so that a writer can write each while the next is made. Joined, the
 * pieces are `JSON.stringify(reportToJson(reports), null, 2)` exactly.
 */
export function jsonReportPieces(reports: readonly StackReport[]): Iterable<string> {
  return jsonPieces(reportLayout(reports, true));
}

/**
 * The report's JSON object. `forText`: it is only made into JSON text (renderJson, the CLI's report), so the
 * attributes of a change with nothing to hide are the plan's own objects, not copies (the text is the same).
 */
export function reportToJson(reports: readonly StackReport[], forText = false): PlanJson | StacksPlanJson {
  return materialized(reportLayout(reports, forText)) as PlanJson | StacksPlanJson;
}

/** One stack's plan, the shape of the whole report for one stack and of each entry of `stacks` for several. */
export function planToJson(plan: Plan, forText = false): PlanJson {
  return materialized(planLayout(plan, forText)) as PlanJson;
}

/**
 * The report's JSON object with each list of a plan (changes, drift, policy results) still to be made: the one
 * description of the report's shape, made into the object by `reportToJson` and into text piece by piece by
 * `jsonReportPieces`.
 */
function reportLayout(reports: readonly StackReport[], forText: boolean): object {
  const only = onlyPlan(reports);
  if (only !== undefined) return planLayout(only, forText);
  const json: Record<string, unknown> = {
    format_version: '1.0',
    stacks: reports.flatMap((report) => (report.status === 'done' ? [planLayout(report.value, forText)] : [])),
    summary: summedSummary(reports),
  };
  const errors = reports.flatMap((report) => (report.status === 'failed' || report.status === 'skipped' ? [{ stack: report.stack, status: report.status, message: stackProblem(report)! }] : []));
  if (errors.length > 0) json.errors = errors;
  const unchanged = reports.flatMap((report) => (report.status === 'unchanged' ? [{ stack: report.stack, status: report.status, message: UNCHANGED_WORDS }] : []));
  if (unchanged.length > 0) json.unchanged = unchanged;
  return json;
}

/** `planToJson`'s object with its lists still to be made (`JsonList`). */
function planLayout(plan: Plan, forText: boolean): object {
  return {
    format_version: '1.0',
    stack: plan.stack,
    resource_changes: new JsonList(plan.changes, (change) => changeToJson(change, forText)),
    resource_drift: new JsonList(plan.drift, driftToJson),
    summary: summarize(plan),
    ...(plan.policy !== undefined ? { policy_results: new JsonList(plan.policy.results, policyResultToJson) } : {}),
  };
}

function policyResultToJson(result: PolicyResult): PolicyResultJson {
  return {
    policy: result.policy,
    enforcement: result.enforcement,
    address: result.address,
    status: result.status,
    message: result.message,
    fields: [...result.fields],
    ...(result.waiverReason !== undefined ? { waiver_reason: result.waiverReason } : {}),
  };
}

function changeToJson(change: PlannedChange, forText: boolean): ResourceChangeJson {
  // Secret values never reach a Plan; leaving secret field names out of before/after is a second guard.
  const hidden = secretFieldNames(change);
  // For a text, attributes with nothing to hide are shown as they are: JSON.stringify leaves out what
  // visibleAttributes would (keys whose value is undefined), so the text is the same without a copy of each.
  const shown = (attributes: Readonly<Record<string, unknown>>): Record<string, unknown> =>
    forText && hidden.size === 0 ? attributes : visibleAttributes(attributes, hidden);
  const before = change.before === null ? null : shown(change.before);
  // An unchanged object's change holds the live attributes twice: shown twice, copied once.
  const after = change.after === change.before ? before : change.after === null ? null : shown(change.after);
  return {
    address: change.address,
    ...(change.previousAddress !== undefined ? { previous_address: change.previousAddress } : {}),
    type: change.type,
    id: change.id,
    actions: [...PLAN_JSON_ACTIONS[change.action]],
    ...(change.reasons.length > 0 ? { action_reason: reasonsText(change.reasons) } : {}),
    before,
    after,
    sensitive: [...change.sensitive],
    replace_paths: change.replacePaths.map((path) => [...path]),
    ...managedByService(change),
    ...(change.consequences && change.consequences.length > 0 ? { consequences: change.consequences.map(consequenceToJson) } : {}),
  };
}

function consequenceToJson(consequence: Consequence): ConsequenceJson {
  // null, not 0 and not absent: a consumer that reads the count alone must not take an unknown for "none".
  if ('uncounted' in consequence) return { what: consequence.what, count: null, uncounted: consequence.uncounted, detail: consequence.detail };
  return { what: consequence.what, count: consequence.count, ...(consequence.atLeast ? { at_least: true as const } : {}), detail: consequence.detail };
}

function managedByService(change: PlannedChange): { managed_by_service?: Record<string, string> } {
  const entries = serviceManagedSecrets(change);
  return entries.length === 0 ? {} : { managed_by_service: Object.fromEntries(entries.map((entry) => [entry.field, entry.rotatedAt])) };
}

function driftToJson(entry: DriftEntry): ResourceDriftJson {
  return {
    address: entry.address,
    type: entry.type,
    id: entry.id,
    kind: entry.kind,
    before: entry.before,
    after: entry.after,
  };
}
