/**
 * Cheap shape checks of parsed JSON, for the fast paths in front of a zod schema (a synthesized spec, a state
 * entry). A value they accept, the schema accepts too and returns with the same keys in the same order, so the
 * fast path can keep the value as it is; anything else goes through the schema, which says what is wrong. They
 * take values as JSON.parse makes them (no symbol keys, no accessors, no non-enumerable properties).
 */

/**
 * A plain object as JSON.parse makes it, whose keys a zod record keeps: a `__proto__` key (which JSON may
 * hold) would be dropped by the schema, and an own `constructor` could make zod's plain-object test fail.
 */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype &&
    !Object.prototype.hasOwnProperty.call(value, '__proto__') && !Object.prototype.hasOwnProperty.call(value, 'constructor');
}

/** `z.record(z.string(), z.string())`. */
export function isStringRecord(value: unknown): value is Record<string, string> {
  if (!isJsonObject(value)) return false;
  for (const key in value) if (typeof value[key] !== 'string') return false;
  return true;
}

/** `z.array(z.string())`, or with `nonEmpty` `z.array(z.string().min(1))` (an index loop: a hole is no string). */
export function isStringArray(value: unknown, nonEmpty = false): value is string[] {
  if (!Array.isArray(value)) return false;
  for (let index = 0; index < value.length; index++) {
    const element: unknown = value[index];
    if (typeof element !== 'string' || (nonEmpty && element === '')) return false;
  }
  return true;
}

/** `z.string().min(1)`. */
export function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}

/** `undefined` or a boolean: `z.boolean().optional()`. */
export function isOptionalBoolean(value: unknown): value is boolean | undefined {
  return value === undefined || typeof value === 'boolean';
}

/**
 * Whether every key of `value` is one of `keys`, in their order: then a zod object strips nothing and returns
 * its keys in the same order (it writes them in the order of its shape).
 */
export function hasKeysInOrder(value: Record<string, unknown>, keys: readonly string[]): boolean {
  let next = 0;
  for (const key in value) {
    while (next < keys.length && keys[next] !== key) next++;
    if (next === keys.length) return false;
    next++;
  }
  return true;
}

/**
 * `value` with its keys put in the order of `keys`, as a zod object returns them (a PostgreSQL jsonb row or a
 * cdktf output holds them in an order of its own), or undefined when it has a key that is not among `keys`.
 */
export function inKeyOrder(value: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> | undefined {
  const ordered: Record<string, unknown> = {};
  let found = 0;
  for (const key of keys) {
    if (Object.prototype.hasOwnProperty.call(value, key)) {
      ordered[key] = value[key];
      found++;
    }
  }
  let total = 0;
  for (const _key in value) total++;
  return found === total ? ordered : undefined;
}
