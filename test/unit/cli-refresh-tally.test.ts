/** The refresh counter of the live line, for one stack and for stacks that refresh at the same time. */
import { RefreshTally } from '../../src/cli/run/refresh-tally';

describe('RefreshTally', () => {
  test('one stack (events that name none) reads as the plain counter', () => {
    const tally = new RefreshTally();
    tally.record({ kind: 'refresh', done: 120, total: 1000 });
    expect(tally.line()).toBe('Refreshing 120/1000');
    expect(tally.complete).toBe(false);
    tally.record({ kind: 'refresh', done: 1000, total: 1000 });
    expect(tally.complete).toBe(true);
  });

  test('two stacks reporting in turn: the sum of their reads, never one stack\'s count, and how many are running', () => {
    const tally = new RefreshTally();
    const lines: string[] = [];
    const report = (stack: string, done: number, total: number) => {
      tally.record({ kind: 'refresh', stack, done, total });
      lines.push(tally.line());
    };
    report('prod', 0, 6);
    report('staging', 0, 4);
    report('prod', 1, 6);
    report('staging', 1, 4);
    report('staging', 2, 4);
    report('prod', 2, 6);
    expect(lines).toEqual([
      'Refreshing 0/6, 1 stack running',
      'Refreshing 0/10, 2 stacks running',
      'Refreshing 1/10, 2 stacks running',
      'Refreshing 2/10, 2 stacks running',
      'Refreshing 3/10, 2 stacks running',
      'Refreshing 4/10, 2 stacks running',
    ]);
    report('staging', 4, 4);
    expect(tally.line()).toBe('Refreshing 6/10, 1 stack running, 1 done');
    expect(tally.complete).toBe(false);
    report('prod', 6, 6);
    expect(tally.complete).toBe(true);
  });

  test('a stack that starts after the others were done adds its reads to the total and makes the tally incomplete again', () => {
    const tally = new RefreshTally();
    tally.record({ kind: 'refresh', stack: 'base', done: 3, total: 3 });
    expect(tally.complete).toBe(true);
    tally.record({ kind: 'refresh', stack: 'prod', done: 0, total: 5 });
    expect(tally.complete).toBe(false);
    expect(tally.line()).toBe('Refreshing 3/8, 1 stack running, 1 done');
  });

  test('a stack with nothing to read is done at once', () => {
    const tally = new RefreshTally();
    tally.record({ kind: 'refresh', stack: 'empty', done: 0, total: 0 });
    expect(tally.complete).toBe(true);
  });
});
