/**
 * Counting what a delete takes with it, for the types' `consequences` hooks: the entries under a LIST path,
 * folders (keys ending in `/`) listed in turn, bounded so that a huge mount costs a plan a few hundred reads at
 * most and says "at least" beyond that.
 */
import { isPlainObject, unwrapData } from './define';
import type { DiscoveryRead } from './types';

/** At most this many LIST calls per count: a deeper tree is reported as "at least". */
export const MAX_LIST_CALLS = 200;
/** At most this many entries per count. */
export const MAX_COUNTED = 10_000;

export interface ListedCount {
  readonly count: number;
  /** The bound stopped the count: there are at least `count`. */
  readonly atLeast: boolean;
}

/**
 * The entries (not folders) under `path` and every folder below it. A path that does not exist (LIST answers
 * 404) counts 0. Accepts the envelope's `data.keys` and the bare array some endpoints answer with.
 */
export async function countListed(read: DiscoveryRead, path: string): Promise<ListedCount> {
  const folders = [path.replace(/\/+$/, '')];
  let count = 0;
  let calls = 0;
  while (folders.length > 0) {
    if (calls >= MAX_LIST_CALLS || count >= MAX_COUNTED) return { count, atLeast: true };
    const folder = folders.shift()!;
    calls += 1;
    for (const key of listedKeys(await read({ method: 'LIST', path: folder }))) {
      if (key.endsWith('/')) folders.push(`${folder}/${key.replace(/\/+$/, '')}`);
      else count += 1;
    }
  }
  return { count, atLeast: false };
}

/** The keys of a LIST answer: `data.keys` of an envelope, `keys` of a bare object, or a bare array. */
export function listedKeys(answer: unknown): string[] {
  const keys = Array.isArray(answer) ? answer : unwrapData(answer)?.keys;
  return Array.isArray(keys) ? keys.filter((key): key is string => typeof key === 'string') : [];
}

/** The number of entries of an object-valued field of a GET answer (a destination's `associated_secrets`). */
export function countEntries(answer: unknown, field: string): number {
  const value = unwrapData(answer)?.[field];
  return isPlainObject(value) ? Object.keys(value).length : 0;
}

/** `12 secrets` / `at least 10000 secrets`: how a consequence's count reads in a sentence. */
export function countWords(counted: ListedCount, what: string): string {
  return `${counted.atLeast ? 'at least ' : ''}${counted.count} ${what}`;
}
