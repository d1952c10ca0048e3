import { deepFreeze } from '../../src/deep-freeze';
import { visibleAttributes } from '../../src/report/plan-view';

test('deepFreeze freezes every object and array a value holds, and nothing it inherits', () => {
  const inherited = { shared: { mutable: true } };
  const value = Object.assign(Object.create(inherited) as Record<string, unknown>, { list: [{ a: 1 }, ['b']], nested: { deeper: { c: 'd' } } });
  expect(deepFreeze(value)).toBe(value);
  const list = value.list as [{ a: number }, string[]];
  for (const inner of [value, list, list[0], list[1], value.nested, (value.nested as { deeper: object }).deeper]) expect(Object.isFrozen(inner)).toBe(true);
  // Only own values are walked (as Object.values lists them): what the prototype holds is not this value's.
  expect(Object.isFrozen(inherited.shared)).toBe(false);
  expect(Object.isFrozen(inherited)).toBe(false);
});

test('visibleAttributes keeps own fields in their order, without hidden names, undefined values or inherited keys', () => {
  const attributes = Object.assign(Object.create({ inherited: 'no' }) as Record<string, unknown>, { b: 1, password: 'x', a: undefined, c: [2], 10: 'n' });
  const visible = visibleAttributes(attributes, new Set(['password']));
  expect(Object.keys(visible)).toEqual(['10', 'b', 'c']);
  expect(visible).toEqual({ 10: 'n', b: 1, c: [2] });
  expect(visibleAttributes(null, new Set())).toEqual({});
});
