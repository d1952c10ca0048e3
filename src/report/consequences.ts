/**
 * The words of a delete's or replace's consequences (what else goes on the service, counted by the engine),
 * shared by the text and markdown reports; JSON writes them as they are (`"consequences"`).
 */
import type { PlannedChange } from '../engine/plan/plan';
import type { Consequence } from '../resources/types';
import { escapeInline } from './markdown-escape';

/**
 * `12 secrets go with it: the secrets stored in kv mount "apps" are deleted with it`; where the service's answer
 * could not tell how many, `an unknown number of secrets go with it (could not be counted: <why>): ...`.
 */
export function consequenceText(consequence: Consequence): string {
  if ('uncounted' in consequence) {
    return `an unknown number of ${consequence.what} go with it (could not be counted: ${consequence.uncounted}): ${consequence.detail}`;
  }
  const count = `${consequence.atLeast ? 'at least ' : ''}${consequence.count} ${consequence.what}`;
  return `${count} ${consequence.count === 1 && !consequence.atLeast ? 'goes' : 'go'} with it: ${consequence.detail}`;
}

/** The text report's comment lines under a resource's title, one per consequence. */
export function consequenceComments(change: PlannedChange): string[] {
  return (change.consequences ?? []).map((consequence) => `  # ! ${consequenceText(consequence)}`);
}

/** The markdown warning block's line for a change, with its consequences as nested items. */
export function warningWithConsequences(line: string, change: PlannedChange): string[] {
  return [line, ...(change.consequences ?? []).map((consequence) => `>   - ⚠️ ${escapeInline(consequenceText(consequence))}`)];
}
