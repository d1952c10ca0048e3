import fc from 'fast-check';
import { ownValue, setOwn } from '../../src/own-keys';

const INHERITED_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', 'isPrototypeOf'];
const keys = fc.oneof(fc.string(), fc.constantFrom(...INHERITED_NAMES), fc.string().map((name) => `stack/${name}`));

describe('setOwn and ownValue', () => {
  it('store any key as an own, enumerable entry and leave the prototype alone', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(keys, fc.integer())), (entries) => {
        const record: Record<string, number> = {};
        const expected = new Map<string, number>();
        for (const [key, value] of entries) {
          setOwn(record, key, value);
          expected.set(key, value);
        }
        expect(Object.getPrototypeOf(record)).toBe(Object.prototype);
        for (const [key, value] of expected) {
          expect(Object.getOwnPropertyDescriptor(record, key)).toEqual({ value, enumerable: true, writable: true, configurable: true });
          expect(ownValue(record, key)).toBe(value);
        }
        expect(Object.keys(record).sort()).toEqual([...expected.keys()].sort());
        expect(JSON.parse(JSON.stringify(record))).toEqual(Object.fromEntries(expected));
      }),
    );
  });

  it('never runs a setter the record inherits, and never finds an inherited value', () => {
    const set = jest.fn();
    const prototype = Object.defineProperty({}, 'stack/trap', { set, get: () => 'inherited', configurable: true });
    const record = Object.create(prototype) as Record<string, string>;
    expect(ownValue(record, 'stack/trap')).toBeUndefined();
    setOwn(record, 'stack/trap', 'own');
    expect(set).not.toHaveBeenCalled();
    expect(ownValue(record, 'stack/trap')).toBe('own');
    expect(Object.keys(record)).toEqual(['stack/trap']);
  });

  it('keep __proto__ an entry on a record without a prototype too', () => {
    const record = Object.create(null) as Record<string, number>;
    setOwn(record, '__proto__', 1);
    setOwn(record, '__proto__', 2);
    expect(Object.getPrototypeOf(record)).toBeNull();
    expect(ownValue(record, '__proto__')).toBe(2);
    expect(Object.keys(record)).toEqual(['__proto__']);
  });
});
