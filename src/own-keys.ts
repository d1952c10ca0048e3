/**
 * Lookups in plain objects keyed by input (state entries by address, a saved plan's live digests, waivers by
 * policy id): a key such as `constructor` or `toString` would otherwise find what every object inherits from
 * `Object.prototype`, and an assignment to `__proto__` would replace the object's prototype instead of adding an
 * entry. Every such read goes through `ownValue`, every such write through `setOwn`.
 */

/** The value `record` holds as its own property `key`; never one inherited from `Object.prototype`. */
export function ownValue<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * Sets the own property `key` of `record`, `__proto__` included (an assignment would set the prototype).
 * A plain assignment where nothing is inherited under `key` (nearly every address): `defineProperty` is V8's slow
 * path, and an apply records every object through here (about 0.1 ms a call on a state of 1,000 objects, a tenth
 * of a 5-stack apply's CPU). A key found on the prototype chain (`__proto__`, `toString`, or anything added to
 * `Object.prototype`) is defined, so that no inherited setter runs.
 */
export function setOwn<T>(record: Record<string, T>, key: string, value: T): void {
  if (!(key in record) || Object.hasOwn(record, key)) record[key] = value;
  else Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
}
