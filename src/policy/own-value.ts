/**
 * A value of a record whose keys come from input (a construct's `policyWaivers`, by policy id), looked up as an
 * own property only: a policy named `constructor` or `toString` must not find `Object.prototype`'s.
 */
export function ownValue<T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}
