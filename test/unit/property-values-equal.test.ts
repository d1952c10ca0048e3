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

/** A copy of a JSON value with every object's keys in another order (what another answer of the same object may hold). */
function reordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reordered);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).reverse().map(([key, item]) => [key, reordered(item)]));
}

test('lists in the same order are equal as multisets, at once; the rule still decides when the order differs', () => {
  fc.assert(
    fc.property(list, (a) => {
      // The same elements in the same order (keys of objects reordered): equal, as the multiset rule says.
      expect(valuesEqual(a, reordered(a), true)).toBe(true);
      expect(referenceUnorderedEqual(a, reordered(a) as unknown[])).toBe(true);
    }),
    { numRuns: 2000 },
  );
  // A first element equal in place but a later one not: the multiset rule, not the order, decides.
  expect(valuesEqual(['a', 'b', 'a'], ['a', 'a', 'b'], true)).toBe(true);
  expect(valuesEqual(['a', 'b', 'b'], ['a', 'a', 'b'], true)).toBe(false);
  expect(valuesEqual([{ n: 1 }, { n: 2 }], [{ n: 2 }, { n: 1 }], true)).toBe(true);
});

// Objects with keys from a small set (so that equal and nearly equal pairs are frequent), undefined values included.
const objectValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  leaf: fc.constantFrom('a', 'b', 1, 2, true, null, undefined),
  object: fc.dictionary(fc.constantFrom('x', 'y', 'z'), fc.oneof({ depthSize: 'small' }, tie('leaf'), tie('object'), tie('list')), { maxKeys: 3 }),
  list: fc.array(fc.oneof(tie('leaf'), tie('object')), { maxLength: 2 }),
})).object;

test('objects compare by their keys whatever the order, a missing key and an undefined value alike', () => {
  fc.assert(
    fc.property(objectValue, objectValue, (a, b) => {
      // The rule the loop over both key lists replaced: a set of both objects' keys, each value compared.
      const keys = new Set([...Object.keys(a as object), ...Object.keys(b as object)]);
      const reference = [...keys].every((key) => valuesEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
      expect(valuesEqual(a, b)).toBe(reference);
      expect(valuesEqual(a, reordered(a))).toBe(true);
    }),
    { numRuns: 5000 },
  );
  expect(valuesEqual({ x: 1, y: undefined }, { x: 1 })).toBe(true);
  expect(valuesEqual({ x: 1 }, { x: 1, y: 2 })).toBe(false);
  expect(valuesEqual({ x: 1, y: 2 }, { x: 1 })).toBe(false);
});
