import type { DriftEntry, Plan, PlannedChange, PlanAction } from '../engine/plan/plan';
import { summarize } from '../engine/plan/plan';
import { reasonsText } from './reason-words';
import { formatChange, formatValue } from './values';

/**
 * What the text and markdown reports share: which lines a resource shows and in what words. The renderers only
 * decide layout, colour and escaping, so the terminal and the pull-request comment always say the same thing.
 */

export type LineSymbol = '+' | '-' | '~';

/** One attribute line of a resource block: `<symbol> <name> = <value>`. */
export interface AttributeLine {
  symbol: LineSymbol;
  name: string;
  /** Already formatted: `"svc"`, `3600 -> 7200` or `(sensitive value)`. */
  value: string;
  forcesReplacement: boolean;
  /** A remark shown after the value as `# <note>`. */
  note?: string;
  /**
   * The values behind `value`, for a renderer that lays them out itself (the markdown diff shows an in-place
   * change as a `-` old and a `+` new line). Absent on a secret's line: only its mask is ever shown.
   */
  raw?: { before?: unknown; after?: unknown };
}

export const SENSITIVE_VALUE = '(sensitive value)';
export const NOT_VERIFIABLE = '(not verifiable on the service)';
/** The heading of the list of secrets that `unverifiableSecrets` returns. */
export const UNVERIFIABLE_SECRETS_TITLE = 'Secrets unchanged since the last apply that the service does not return for comparison';

/** terraform's `# (3 unchanged attributes hidden)` line, for a count from `unchangedAttributeCount` above 0. */
export function unchangedAttributesNote(count: number): string {
  return `# (${count} unchanged ${count === 1 ? 'attribute' : 'attributes'} hidden)`;
}

export function attributeLineText(line: AttributeLine): string {
  let text = `${line.symbol} ${line.name} = ${line.value}`;
  if (line.forcesReplacement) text += ' # forces replacement';
  if (line.note !== undefined) text += ` # ${line.note}`;
  return text;
}

/** The changes a report lists as resource blocks: everything but no-ops, and no-ops that moved. */
export function actionableChanges(plan: Plan): PlannedChange[] {
  return plan.changes.filter((change) => change.action !== 'no-op' || change.previousAddress !== undefined);
}

/**
 * The title of a resource block, as terraform words it: `<old> has moved to <new>` for an object whose
 * construct id changed and nothing else, else `<address> will be ...`.
 */
export function changeTitle(change: PlannedChange): string {
  if (change.action === 'no-op' && change.previousAddress !== undefined) return `${change.previousAddress} has moved to ${change.address}`;
  return `${change.address} ${changeHeadline(change)}`;
}

/** terraform's `# (moved from <old>)` under the title of an object that moved and changes too. */
export function movedFromNote(change: PlannedChange): string | undefined {
  if (change.previousAddress === undefined || change.action === 'no-op') return undefined;
  return `(moved from ${change.previousAddress})`;
}

/** The action in a word or two for tables: a move shows as such. */
export function actionLabel(change: PlannedChange): string {
  if (change.previousAddress === undefined) return ACTION_LABELS[change.action];
  return change.action === 'no-op' ? 'move' : `${ACTION_LABELS[change.action]} (moved)`;
}

/** `will be created (deleted outside secretform)`. */
export function changeHeadline(change: PlannedChange): string {
  return withReason(ACTION_HEADLINES[change.action], reasonsText(change.reasons));
}

/** `will be created`: the headline without its reasons. */
export function actionHeadline(action: PlanAction): string {
  return ACTION_HEADLINES[action];
}

const ACTION_HEADLINES: Record<PlanAction, string> = {
  create: 'will be created',
  update: 'will be updated in-place',
  replace: 'will be replaced',
  delete: 'will be destroyed',
  // terraform's wording for a `removed` block with `destroy = false`.
  forget: 'will no longer be managed by secretform (retainOnDelete: the object stays on the service)',
  'no-op': 'is unchanged',
};

/** The action in one or two words, for tables and warning lists. */
export const ACTION_LABELS: Record<PlanAction, string> = {
  create: 'create',
  update: 'update in-place',
  replace: 'replace',
  delete: 'destroy',
  forget: 'forget',
  'no-op': 'no-op',
};

export function driftHeadline(entry: DriftEntry): string {
  // A kind from a type's health hook brings its own headline.
  if (entry.health) return `${entry.health.headline} (status: ${entry.detail ?? 'unknown'})`;
  return entry.kind === 'deleted' ? 'has been deleted' : 'has changed';
}

/** The line a report adds under a drift of a health kind: `sync status: PENDING`; undefined for other kinds. */
export function driftDetailLine(entry: DriftEntry): string | undefined {
  return entry.health ? `${entry.health.label}: ${entry.detail ?? 'unknown'}` : undefined;
}

function withReason(headline: string, reason: string | undefined): string {
  return reason ? `${headline} (${reason})` : headline;
}

/**
 * The attribute lines of a planned change, sorted by name like terraform's. Values of secret fields never
 * appear: a field named in `sensitive` or `secrets` is left out of `before`/`after` even if one slipped in.
 */
export function changeAttributeLines(change: PlannedChange): AttributeLine[] {
  const hidden = secretFieldNames(change);
  const forcesReplacement = (name: string, flagged: boolean) =>
    change.action === 'replace' && (flagged || change.replacePaths.some((path) => path[0] === name));
  const lines: AttributeLine[] = [];

  switch (change.action) {
    case 'create':
      for (const [name, value] of Object.entries(visibleAttributes(change.after, hidden))) {
        lines.push({ symbol: '+', name, value: formatValue(value), forcesReplacement: false, raw: { after: value } });
      }
      break;
    case 'update':
    case 'replace':
      for (const fieldChange of change.fieldChanges) {
        if (hidden.has(fieldChange.field)) continue;
        lines.push({
          ...fieldChangeLine(fieldChange.field, fieldChange.from, fieldChange.to),
          forcesReplacement: forcesReplacement(fieldChange.field, fieldChange.forcesReplacement),
        });
      }
      break;
    case 'delete':
      for (const [name, value] of Object.entries(visibleAttributes(change.before, hidden))) {
        lines.push({ symbol: '-', name, value: formatValue(value), forcesReplacement: false, raw: { before: value } });
      }
      break;
    case 'forget':
    case 'no-op':
      break;
  }

  if (change.action !== 'delete' && change.action !== 'forget' && change.action !== 'no-op') {
    const drifted = new Set(change.secrets.filter((s) => s.status === 'drifted').map((s) => s.field));
    for (const name of change.sensitive) {
      lines.push({
        symbol: change.action === 'update' ? '~' : '+',
        name,
        value: SENSITIVE_VALUE,
        forcesReplacement: forcesReplacement(name, false),
        ...(drifted.has(name) ? { note: 'differs on the service' } : {}),
      });
    }
  }
  return lines.sort(byName);
}

/** How many attributes of an updated or replaced object stay as they are (terraform's "unchanged attributes hidden"). */
export function unchangedAttributeCount(change: PlannedChange, lines: AttributeLine[]): number {
  const moved = change.action === 'no-op' && change.previousAddress !== undefined;
  if (change.action !== 'update' && change.action !== 'replace' && !moved) return 0;
  const shown = new Set(lines.map((line) => line.name));
  const attributes = visibleAttributes(change.after, secretFieldNames(change));
  return Object.keys(attributes).filter((name) => !shown.has(name)).length;
}

export function driftAttributeLines(entry: DriftEntry): AttributeLine[] {
  const lines: AttributeLine[] = [];
  if (entry.kind === 'changed') {
    for (const field of entry.fields) lines.push(fieldChangeLine(field.field, field.applied, field.live));
  } else if (entry.kind === 'deleted') {
    for (const [name, value] of Object.entries(entry.before ?? {})) {
      if (value !== undefined) lines.push({ symbol: '-', name, value: formatValue(value), forcesReplacement: false, raw: { before: value } });
    }
  }
  return lines.sort(byName);
}

/** Secret fields the plan does not write and the service cannot confirm (masked or never returned). */
export function unverifiableSecrets(change: PlannedChange): string[] {
  if (change.action === 'delete') return [];
  const written = new Set(change.sensitive);
  return change.secrets
    .filter((secret) => secret.status === 'unverifiable' && !written.has(secret.field))
    .map((secret) => secret.field)
    .sort();
}

/** The heading of the list of root credentials that `serviceManagedSecrets` returns. */
export const SERVICE_MANAGED_TITLE = 'Root credentials managed by the service now (rotated with rotate-root; the value in code is not sent)';

/** Root credentials the service rotated and the plan does not write, each with when it was rotated. */
export function serviceManagedSecrets(change: PlannedChange): { field: string; rotatedAt: string }[] {
  if (change.action === 'delete') return [];
  return change.secrets
    .filter((secret) => secret.status === 'managed_by_service')
    .map((secret) => ({ field: secret.field, rotatedAt: secret.rotatedAt ?? 'unknown time' }))
    .sort((a, b) => (a.field < b.field ? -1 : 1));
}

/** `bindpass (rotated by the service at 2026-...)`. */
export function serviceManagedText(entry: { field: string; rotatedAt: string }): string {
  return `${entry.field} (rotated by the service at ${entry.rotatedAt})`;
}

export interface PlanTotals {
  add: number;
  change: number;
  destroy: number;
  /** Objects left on the service and dropped from state (retainOnDelete). */
  forget: number;
  drifted: number;
}

/** Terraform's counting: a replacement is one to add and one to destroy. */
export function planTotals(plan: Plan): PlanTotals {
  const summary = summarize(plan);
  return {
    add: summary.create + summary.replace,
    change: summary.update,
    destroy: summary.delete + summary.replace,
    forget: summary.forget,
    drifted: summary.drifted,
  };
}

/**
 * `Plan: 1 to add, 2 to change, 0 to destroy` (without punctuation, so each report can finish it its way), and
 * `, 1 to forget` when objects are retained, as terraform says it.
 */
export function totalsPhrase(totals: PlanTotals): string {
  const forget = totals.forget > 0 ? `, ${totals.forget} to forget` : '';
  return `Plan: ${totals.add} to add, ${totals.change} to change, ${totals.destroy} to destroy${forget}`;
}

/**
 * `Refresh-only plan: 2 drifted` (without punctuation, as `totalsPhrase`): a refresh-only plan changes nothing
 * on the service, so what drifted is all it counts.
 */
export function refreshOnlyPhrase(drifted: number): string {
  return `Refresh-only plan: ${drifted} drifted`;
}

/** A copy of the attributes without the secret fields and absent values; `{}` for a missing object. */
export function visibleAttributes(
  attributes: Record<string, unknown> | null,
  hidden: ReadonlySet<string>,
): Record<string, unknown> {
  const visible: Record<string, unknown> = {};
  if (attributes === null) return visible;
  // Own keys in their order, as Object.entries lists them, without an array of [name, value] pairs per object
  // (two per change of the JSON report: 6 MB of a 10,000-object plan's allocations).
  for (const name in attributes) {
    if (!Object.hasOwn(attributes, name)) continue;
    const value = attributes[name];
    if (!hidden.has(name) && value !== undefined) visible[name] = value;
  }
  return visible;
}

export function secretFieldNames(change: PlannedChange): ReadonlySet<string> {
  // Most changes have none: one shared empty set rather than a new one per change of a large plan.
  if (change.sensitive.length === 0 && change.secrets.length === 0) return NO_FIELDS;
  return new Set([...change.sensitive, ...change.secrets.map((secret) => secret.field)]);
}

const NO_FIELDS: ReadonlySet<string> = new Set();

/** `+` when the field had no value, `-` when it loses its value, `~` otherwise. */
function fieldChangeLine(name: string, from: unknown, to: unknown): AttributeLine {
  if (from === undefined) return { symbol: '+', name, value: formatValue(to), forcesReplacement: false, raw: { after: to } };
  if (to === undefined) return { symbol: '-', name, value: formatValue(from), forcesReplacement: false, raw: { before: from } };
  return { symbol: '~', name, value: formatChange(from, to), forcesReplacement: false, raw: { before: from, after: to } };
}

function byName(a: AttributeLine, b: AttributeLine): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
