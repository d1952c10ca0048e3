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
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const key of keys) if (!valuesEqual(a[key], b[key])) return false;
    return true;
  }
  return false;
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
