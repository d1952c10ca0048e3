/**
 * The value, frozen with everything it holds. An object already frozen is taken as frozen throughout (this
 * module freezes that way), so values shared between frozen structures are walked once.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
