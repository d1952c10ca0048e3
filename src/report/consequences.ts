/**
 * The words of a delete's or replace's consequences (what else goes on the service, counted by the engine),
 * shared by the text and markdown reports; JSON writes them as they are (`"consequences"`).
 */
import { uncountedWarning } from '../engine/guardrails/uncounted-warning';
import type { Plan, PlannedChange } from '../engine/plan/plan';
import type { Consequence } from '../resources/types';
import { escapeInline } from './markdown-escape';
import { countOf } from '../resources/nouns';

/**
 * `12 secrets go with it: the secrets stored in kv mount "apps" are deleted with it`; where the service's answer
 * could not tell how many, `an unknown number of secrets go with it: ...` (the reason: `uncountedReason`).
 */
export function consequenceText(consequence: Consequence): string {
  if ('uncounted' in consequence) return `an unknown number of ${consequence.what} go with it: ${consequence.detail}`;
  // "at least 1" counts more than one; a plan saved before the singular existed says the plural.
  const one = consequence.count === 1 && !consequence.atLeast;
  const count = `${consequence.atLeast ? 'at least ' : ''}${countOf(consequence.count, { one: one ? (consequence.one ?? consequence.what) : consequence.what, many: consequence.what })}`;
  return `${count} ${one ? 'goes' : 'go'} with it: ${consequence.detail}`;
}

/**
 * Why a count could not be made (the call and what it answered), for the line after the consequence's own: the
 * reviewer reads what goes first, and the reason (often longer than the line above) only if they need it.
 */
function uncountedReason(consequence: Consequence): string | undefined {
  return 'uncounted' in consequence ? `could not be counted: ${consequence.uncounted}` : undefined;
}

/** The text report's comment lines under a resource's title: one per consequence, and its reason below it. */
export function consequenceComments(change: PlannedChange): string[] {
  return (change.consequences ?? []).flatMap((consequence) => {
    const reason = uncountedReason(consequence);
    return [`  # ! ${consequenceText(consequence)}`, ...(reason === undefined ? [] : [`  #   ${reason}`])];
  });
}

/** The markdown warning block's line for a change, with its consequences (and a reason) as nested items. */
export function warningWithConsequences(line: string, change: PlannedChange): string[] {
  return [line, ...(change.consequences ?? []).flatMap((consequence) => {
    const reason = uncountedReason(consequence);
    return [`>   - ⚠️ ${escapeInline(consequenceText(consequence))}`, ...(reason === undefined ? [] : [`>     - ${escapeInline(reason)}`])];
  })];
}

/**
 * The plan's warnings as a report that shows each consequence under its resource lists them (text, markdown):
 * the warning of an uncounted consequence names the resource and what could not be counted, and points up to
 * the resource for why, instead of repeating a reason that can be longer than the line above it. The others,
 * and a plan's warnings for stderr or a library caller, are unchanged.
 */
export function warningsBesideConsequences(plan: Pick<Plan, 'changes' | 'warnings'>): string[] {
  const shortened = new Map<string, string>();
  for (const change of plan.changes) {
    for (const consequence of change.consequences ?? []) {
      if (!('uncounted' in consequence)) continue;
      shortened.set(
        uncountedWarning(change.address, change.action, consequence),
        `${change.address}: could not count the ${consequence.what} its ${change.action} takes with it (see above); review them by hand`,
      );
    }
  }
  return plan.warnings.map((warning) => shortened.get(warning) ?? warning);
}
