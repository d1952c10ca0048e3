/**
 * The GitHub alert blocks at the top of the pull-request comment, what a reviewer must not miss:
 * `> [!CAUTION]` for everything that loses an object (a destroy or a replacement, with what goes with it on the
 * service, and an object deleted outside secretform) and `> [!WARNING]` for objects changed outside secretform (drift), which the plan puts back.
 * GitHub shows each as a coloured box with an icon; other renderers show a plain quote, still readable.
 */
import type { DriftEntry, Plan, PlannedChange } from '../engine/plan/plan';
import { warningWithConsequences } from './consequences';
import { escapeInline, inlineCode } from './markdown-escape';
import type { MarkdownSection } from './markdown-split';
import { actionableChanges, actionHeadline, changeHeadline, driftHeadline } from './plan-view';
import { ACTION_ICON } from './status';

export function alertSections(plan: Plan): MarkdownSection[] {
  return [...cautionSection([plan]), ...driftWarningSection(plan.drift)];
}

/**
 * A stack's alerts in a comment over several stacks: its drift only, since what loses an object is listed for
 * every stack at the top (`cautionSection` of all the plans), above the fold, where a reviewer looks first.
 */
export function stackAlertSections(plan: Plan): MarkdownSection[] {
  return driftWarningSection(plan.drift);
}

/**
 * Everything the plans lose, in one CAUTION block; none when nothing is lost. Over several stacks (`byStack`)
 * each stack's lines sit under a `Stack \`name\`:` item, since an address alone does not say which stack (and
 * so which environment) loses the object.
 */
export function cautionSection(plans: readonly Plan[], byStack = false): MarkdownSection[] {
  const parts = plans.map((plan) => {
    const part = cautionParts(plan);
    return byStack ? { ...part, lines: underStack(plan.stack, part.lines) } : part;
  });
  const destructive = parts.reduce((sum, part) => sum + part.destructive, 0);
  const deletedCount = parts.reduce((sum, part) => sum + part.deleted, 0);
  if (destructive === 0 && deletedCount === 0) return [];
  const title = [
    destructive > 0 ? `${count(destructive, 'resource', 'resources')} will be destroyed or replaced` : undefined,
    deletedCount > 0 ? `${count(deletedCount, 'object was', 'objects were')} deleted outside secretform` : undefined,
  ].filter((part) => part !== undefined).join('; ');
  return [{
    head: `> [!CAUTION]\n> **${title}:**`,
    continuedHead: `> [!CAUTION]\n> **${title} (continued):**`,
    lines: parts.flatMap((part) => part.lines),
    tail: '',
  }];
}

/** A stack's lines of the CAUTION block one level down, under an item naming the stack; none when it loses nothing. */
function underStack(stack: string, lines: readonly string[]): string[] {
  if (lines.length === 0) return [];
  return [`> - Stack ${inlineCode(stack)}:`, ...lines.map((line) => `>   ${line.slice('> '.length)}`)];
}

/** One plan's lines of the CAUTION block, and what they count. */
function cautionParts(plan: Plan): { destructive: number; deleted: number; lines: string[] } {
  const changes = plan.refreshOnly ? [] : actionableChanges(plan);
  const destructive = changes.filter((c) => c.action === 'delete' || c.action === 'replace');
  const deletedDrift = plan.drift.filter((entry) => entry.kind === 'deleted');
  const driftAddresses = new Set(deletedDrift.map((entry) => entry.address));
  // A change the engine made because its object was deleted outside secretform, without a drift entry of its own.
  const deletedChanges = changes.filter(
    (c) => !driftAddresses.has(c.address) && c.reasons.some((reason) => reason.kind === 'deleted_outside') && !destructive.includes(c),
  );
  const byAddress = new Map(changes.map((c) => [c.address, c]));
  const lines = [
    ...destructive.flatMap((c) => warningWithConsequences(`> - ${ACTION_ICON[c.action]} ${subject(c.address, c.type)} ${escapeInline(changeHeadline(c))}`, c)),
    ...deletedDrift.map((entry) => `> - ${subject(entry.address, entry.type)} ${escapeInline(deletedOutsideText(entry, byAddress.get(entry.address)))}`),
    ...deletedChanges.map((c) => `> - ${subject(c.address, c.type)} was deleted outside secretform; it ${escapeInline(actionHeadline(c.action))}`),
  ];
  return { destructive: destructive.length, deleted: deletedDrift.length + deletedChanges.length, lines };
}

function driftWarningSection(drift: readonly DriftEntry[]): MarkdownSection[] {
  const changed = drift.filter((entry) => entry.kind !== 'deleted');
  if (changed.length === 0) return [];
  const title = `${count(changed.length, 'object', 'objects')} changed outside secretform`;
  return [{
    head: `> [!WARNING]\n> **${title}:**`,
    continuedHead: `> [!WARNING]\n> **${title} (continued):**`,
    lines: changed.map((entry) => `> - ${subject(entry.address, entry.type)} ${escapeInline(driftText(entry))}`),
    tail: '',
  }];
}

/** `has changed (token_ttl, token_policies)`, or a health kind's own headline. */
function driftText(entry: DriftEntry): string {
  const fields = entry.fields.map((field) => field.field);
  return fields.length === 0 ? driftHeadline(entry) : `${driftHeadline(entry)} (${fields.join(', ')})`;
}

/** `has been deleted outside secretform; it will be created`, saying what the plan does about it. */
function deletedOutsideText(entry: DriftEntry, change: PlannedChange | undefined): string {
  const deleted = `${driftHeadline(entry)} outside secretform`;
  return change === undefined ? deleted : `${deleted}; it ${actionHeadline(change.action)}`;
}

function subject(address: string, type: string): string {
  return `${inlineCode(address)} (${inlineCode(type)})`;
}

function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}
