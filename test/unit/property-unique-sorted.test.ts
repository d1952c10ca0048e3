/**
 * An unordered list's canonical form (define.ts `uniqueSorted`) makes each element's JSON text once; this property
 * holds it to the rule it replaced: a copy sorted by `compareJson`, each element kept unless it compares equal to
 * the one before.
 */
import fc from 'fast-check';
import { canonicalValue, compareJson } from '../../src/resources/define';
import type { FieldSpec } from '../../src/resources/types';

function reference(items: readonly unknown[]): unknown[] {
  const sorted = [...items].sort(compareJson);
  return sorted.filter((item, index) => index === 0 || compareJson(item, sorted[index - 1]) !== 0);
}

const stringList: FieldSpec = { api: 'groups', prop: 'groups', kind: 'stringList', doc: 'groups', unordered: true };
const objectList: FieldSpec = { api: 'rules', prop: 'rules', kind: 'objectList', doc: 'rules', unordered: true, elementKeys: ['a', 'b'] };

// Strings whose JSON text sorts apart from the strings themselves ('a' before 'a!' as text, after it as JSON).
const text = fc.constantFrom('a', 'a!', 'a ', 'ab', 'A', '', 'x"y', 'x\\y', '\u00e9', 'b');

test('an unordered string list is sorted and made unique as the compareJson rule says', () => {
  fc.assert(
    fc.property(fc.array(text, { maxLength: 8 }), (items) => {
      expect(canonicalValue(stringList, items)).toEqual(reference(items));
    }),
    { numRuns: 5000 },
  );
  expect(canonicalValue(stringList, ['a!', 'a', 'a!'])).toEqual(['a!', 'a']);
});

test('an unordered object list is sorted and made unique as the compareJson rule says', () => {
  const element = fc.record({ a: fc.constantFrom('x', 'y', ''), b: fc.constantFrom(1, 2) }, { requiredKeys: [] });
  fc.assert(
    fc.property(fc.array(element, { maxLength: 6 }), (items) => {
      const canonical = items.map((item) => Object.fromEntries(['a', 'b'].flatMap((key) => {
        const value = (item as Record<string, unknown>)[key];
        return value === undefined || value === '' ? [] : [[key, value]];
      })));
      expect(canonicalValue(objectList, items)).toEqual(reference(canonical));
    }),
    { numRuns: 3000 },
  );
});
