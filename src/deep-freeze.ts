/**
 * The value, frozen with everything it holds. An object already frozen is taken as frozen throughout (this
 * module freezes that way), so values shared between frozen structures are walked once.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    // Each own enumerable value, as Object.values lists them, without an array of them per object frozen (a
    // plan freezes every change and attribute object it holds).
    for (const key in value) if (Object.hasOwn(value, key)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}
