/**
 * valuesEqual compares an unordered list of strings as sorted copies (nearly every unordered list of the model)
 * and a list of at most one element directly; this property holds both shortcuts to the multiset rule they
 * replaced: every element as canonical JSON, sorted, compared in order.
 */
import fc from 'fast-check';
import { stableStringify, valuesEqual } from '../../src/engine/plan/diff/values';

function referenceUnorderedEqual(a: unknown[], b: unknown[]): boolean {
  if (a.length !== b.length) return false;
  const left = a.map(stableStringify).sort();
  const right = b.map(stableStringify).sort();
  return left.every((value, i) => value === right[i]);
}

const element = fc.oneof(
  fc.constantFrom('default', 'admin', 'a', 'b', '10.0.0.0/8', ''),
  fc.constantFrom(1, 2, true, null),
  fc.record({ name: fc.constantFrom('a', 'b'), n: fc.constantFrom(1, 2) }),
);
const list = fc.array(element, { maxLength: 5 });

test('an unordered comparison says what the multiset rule says, for strings, other values and mixed lists', () => {
  fc.assert(
    fc.property(list, list, (a, b) => {
      expect(valuesEqual(a, b, true)).toBe(referenceUnorderedEqual(a, b));
    }),
    { numRuns: 5000 },
  );
  // Permutations of the same strings are equal; a different count of one is not.
  fc.assert(
    fc.property(fc.array(fc.constantFrom('x', 'y', 'z'), { maxLength: 6 }), (a) => {
      expect(valuesEqual(a, [...a].reverse(), true)).toBe(true);
      expect(valuesEqual(a, [...a, 'x'], true)).toBe(false);
    }),
  );
});
