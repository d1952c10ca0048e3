/**
 * Equality of canonical (already normalised) attribute values. Lists whose order the service does not keep
 * compare as multisets; objects compare by keys regardless of key order.
 */
export function valuesEqual(a: unknown, b: unknown, unordered = false): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return false;
    if (unordered) {
      if (a.length <= 1) return a.length === 0 || valuesEqual(a[0], b[0]);
      // Two lists in the same order are the same multiset: what a service that kept the order answers, nearly
      // always, and no sorted copies are made for it.
      if (sameOrder(a, b)) return true;
      // Lists of strings (policies, groups, CIDRs: nearly every unordered list) compare as sorted copies.
      if (a.every(isString) && b.every(isString)) {
        const left = [...a].sort();
        const right = [...b].sort();
        return left.every((v, i) => v === right[i]);
      }
      const left = a.map(stableStringify).sort();
      const right = b.map(stableStringify).sort();
      return left.every((v, i) => v === right[i]);
    }
    return a.every((v, i) => valuesEqual(v, b[i]));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    // Every key of either side, each compared once (no set of both key lists built per object compared).
    for (const key in a) if (Object.hasOwn(a, key) && !valuesEqual(a[key], b[key])) return false;
    for (const key in b) if (Object.hasOwn(b, key) && !Object.hasOwn(a, key) && !valuesEqual(a[key], b[key])) return false;
    return true;
  }
  return false;
}

/** Whether each element of `a` equals the one at the same index of `b` (lists of the same length). */
function sameOrder(a: readonly unknown[], b: readonly unknown[]): boolean {
  for (let i = 0; i < a.length; i++) if (!valuesEqual(a[i], b[i])) return false;
  return true;
}

/** JSON with sorted object keys: a canonical text form for hashing and multiset comparison. */
export function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  if (isPlainObject(value)) {
    const entries = Object.keys(value)
      .sort()
      .filter((k) => value[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${stableStringify(value[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}
