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

/** Sets the own property `key` of `record`, `__proto__` included (an assignment would set the prototype). */
export function setOwn<T>(record: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
}
