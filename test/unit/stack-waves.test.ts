/** The waves of `secretform stacks --format github-matrix`: how many listed stacks lie beneath each on a chain. */
import { stackWaves } from '../../src/engine/stacks/stack-waves';

const deps = (entries: Record<string, string[]>) => new Map(Object.entries(entries));

test('independent stacks are all wave 0; a chain counts one wave per listed stack', () => {
  const chain = deps({ a: [], b: ['a'], c: ['b'], d: [] });
  expect(Object.fromEntries(stackWaves(['a', 'b', 'c', 'd'], chain))).toEqual({ a: 0, b: 1, c: 2, d: 0 });
});

test('a diamond takes its longest chain', () => {
  const diamond = deps({ base: [], left: ['base'], right: ['base'], mid: ['right'], top: ['left', 'mid'] });
  expect(Object.fromEntries(stackWaves(['base', 'left', 'right', 'mid', 'top'], diamond))).toEqual({ base: 0, left: 1, right: 1, mid: 2, top: 3 });
});

test('a stack left out of the list orders nothing itself, but the listed stacks beneath it still do', () => {
  const chain = deps({ a: [], b: ['a'], c: ['b'] });
  // b unchanged (not listed): c still runs after a.
  expect(Object.fromEntries(stackWaves(['a', 'c'], chain))).toEqual({ a: 0, c: 1 });
  // Only c listed: nothing listed beneath it.
  expect(Object.fromEntries(stackWaves(['c'], chain))).toEqual({ c: 0 });
  expect(Object.fromEntries(stackWaves(['b', 'c'], chain))).toEqual({ b: 0, c: 1 });
});
