/**
 * Counting what a delete takes with it, for the types' `consequences` hooks: the entries under a LIST path,
 * folders (keys ending in `/`) listed in turn, bounded so that a huge mount costs a plan a few hundred reads at
 * most and says "at least" beyond that. A read that tells nothing (a denial, an answer that is not the listing
 * it should be) makes the count unknown, never 0: the guardrail is there so that nobody deletes data unseen.
 */
import { isPlainObject, unwrapData } from './define';
import { listedNames, NAME_LISTING } from './discovery';
import type { Noun } from './nouns';
import type { Consequence, ConsequenceRead, ListingCall } from './types';

/** At most this many LIST calls per count: a deeper tree is reported as "at least". */
export const MAX_LIST_CALLS = 200;
/** At most this many entries per count. */
export const MAX_COUNTED = 10_000;

export interface ListedCount {
  readonly count: number;
  /** The bound stopped the count: there are at least `count`. */
  readonly atLeast: boolean;
}

/** A count that could not be made: why (the call and what it answered). */
export interface Uncounted {
  readonly uncounted: string;
}

/**
 * The entries (not folders) under `path` and every folder below it, each LIST answer checked against
 * `NAME_LISTING`. A path that does not exist (the service's own 404) counts 0; one read that tells nothing, anywhere
 * in the tree, leaves the whole count unknown.
 */
export async function countListed(read: ConsequenceRead, path: string): Promise<ListedCount | Uncounted> {
  const folders = [path.replace(/\/+$/, '')];
  let count = 0;
  let calls = 0;
  while (folders.length > 0) {
    if (calls >= MAX_LIST_CALLS || count >= MAX_COUNTED) return { count, atLeast: true };
    const folder = folders.shift()!;
    calls += 1;
    const answer = await read({ method: 'LIST', path: folder, answers: NAME_LISTING });
    if (!answer.ok) return { uncounted: answer.why };
    for (const key of listedNames(answer.body)) {
      if (key.endsWith('/')) folders.push(`${folder}/${key.replace(/\/+$/, '')}`);
      else count += 1;
    }
  }
  return { count, atLeast: false };
}

/**
 * The number of entries of an object-valued field of a GET answer (a destination's `associated_secrets`); the
 * call's shape guarantees the field in a 2xx answer, and the service's own 404 counts 0.
 */
export async function countEntries(read: ConsequenceRead, call: ListingCall, field: string): Promise<ListedCount | Uncounted> {
  const answer = await read(call);
  if (!answer.ok) return { uncounted: answer.why };
  const value = unwrapData(answer.body)?.[field];
  return { count: isPlainObject(value) ? Object.keys(value).length : 0, atLeast: false };
}

/** The consequence a count makes: none when nothing goes, the count, or what could not be counted and why. */
export function consequenceOf(counted: ListedCount | Uncounted, noun: Noun, detail: string): Consequence[] {
  if ('uncounted' in counted) return [{ what: noun.many, uncounted: counted.uncounted, detail }];
  if (counted.count === 0) return [];
  return [{ what: noun.many, one: noun.one, count: counted.count, ...(counted.atLeast ? { atLeast: true } : {}), detail }];
}
