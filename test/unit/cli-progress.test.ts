import { createProgressReporter, operationLine, plannedOperations, seconds, type Clock } from '../../src/cli/run/progress';
import type { Plan } from '../../src/engine/plan/plan';
import { fakeIo } from './cli-fake-io';

/** A clock moved by hand, whose ticker runs only when told. */
function manualClock(): Clock & { advance(ms: number): void; tick(): void; tickers: number } {
  let time = 1_000_000;
  const ticks = new Set<() => void>();
  return {
    now: () => time,
    every(_ms, tick) {
      ticks.add(tick);
      return { stop: () => ticks.delete(tick) };
    },
    advance(ms) {
      time += ms;
    },
    tick() {
      for (const tick of ticks) tick();
    },
    get tickers() {
      return ticks.size;
    },
  };
}

/** The live line's text as last drawn. */
function lastDraw(stderr: string): string {
  const draws = stderr.split('\r\x1b[2K').filter((text) => text !== '');
  return draws[draws.length - 1];
}

describe('progress', () => {
  test('redraws refresh progress in place on a terminal and clears it when done', () => {
    const io = fakeIo({ tty: true });
    let now = 0;
    const progress = createProgressReporter(io, { showOperations: false }, () => now);
    now = 1000;
    progress.onProgress({ kind: 'refresh', done: 120, total: 1000 });
    now += 10; // too soon to redraw
    progress.onProgress({ kind: 'refresh', done: 121, total: 1000 });
    now += 500;
    progress.onProgress({ kind: 'refresh', done: 500, total: 1000 });
    progress.onProgress({ kind: 'refresh', done: 1000, total: 1000 });
    expect(io.stderr.text).toBe('\r\x1b[2KRefreshing 120/1000\r\x1b[2KRefreshing 500/1000\r\x1b[2K');
    expect(io.stdout.text).toBe('');
  });

  test('on a terminal, stacks refreshing at the same time share one line: their reads summed, cleared once all are done', () => {
    const io = fakeIo({ tty: true });
    let now = 0;
    const progress = createProgressReporter(io, { showOperations: false }, () => now);
    const refresh = (stack: string, done: number, total: number) => {
      now += 200; // each event late enough to be drawn
      progress.onProgress({ kind: 'refresh', stack, done, total });
    };
    refresh('prod', 0, 3);
    refresh('staging', 0, 2);
    refresh('staging', 2, 2); // one stack done is not the end of the refresh
    refresh('prod', 3, 3);
    expect(io.stderr.text.split('\r\x1b[2K')).toEqual(['', 'Refreshing 0/3, 1 stack running', 'Refreshing 0/5, 2 stacks running', 'Refreshing 2/5, 1 stack running, 1 done', '']);
    expect(io.stdout.text).toBe('');
  });

  test('shows no refresh progress when stderr is not a terminal (CI logs), for one stack or several', () => {
    const io = fakeIo();
    const progress = createProgressReporter(io, { showOperations: false }, () => 1000);
    progress.onProgress({ kind: 'refresh', done: 1, total: 2 });
    progress.onProgress({ kind: 'refresh', done: 2, total: 2 });
    progress.onProgress({ kind: 'refresh', stack: 'prod', done: 1, total: 2 });
    progress.onProgress({ kind: 'refresh', stack: 'staging', done: 1, total: 2 });
    progress.finish();
    expect(io.stderr.text).toBe('');
  });

  test('on a pipe: each succeeded operation as one numbered, timed line on stdout, nothing else anywhere', () => {
    const io = fakeIo();
    const clock = manualClock();
    const progress = createProgressReporter(io, { showOperations: true }, clock);
    progress.onProgress({ kind: 'operations', total: 3 });
    progress.onProgress({ kind: 'operation-start', address: 'prod/a', action: 'create' });
    progress.onProgress({ kind: 'operation-start', address: 'prod/b', action: 'delete' });
    clock.advance(400);
    progress.onProgress({ kind: 'operation-done', address: 'prod/a', action: 'create', status: 'succeeded' });
    clock.advance(1850);
    progress.onProgress({ kind: 'operation-done', address: 'prod/b', action: 'delete', status: 'succeeded' });
    progress.onProgress({ kind: 'operation-start', address: 'prod/c', action: 'update' });
    progress.onProgress({ kind: 'operation-done', address: 'prod/c', action: 'update', status: 'failed', message: '400 bad' });
    progress.finish();

    expect(io.stdout.text).toBe('[1/3] prod/a: created (0.4 s)\n[2/3] prod/b: destroyed (2.3 s)\n');
    expect(io.stderr.text).toBe('');
    expect(clock.tickers).toBe(0);
    expect(progress.totalLine()).toBe('Total time: 2.3 s');
  });

  test('on a terminal: a live line on stderr with spinner, count, operations in flight, elapsed time and then an estimate', () => {
    const io = fakeIo({ tty: true });
    const clock = manualClock();
    const progress = createProgressReporter(io, { showOperations: true, verb: 'Destroying' }, clock);
    progress.onProgress({ kind: 'operations', total: 5 });
    for (const name of ['a', 'b', 'c', 'd']) progress.onProgress({ kind: 'operation-start', address: `prod/${name}`, action: 'delete' });
    clock.advance(100);
    clock.tick();
    expect(lastDraw(io.stderr.text)).toBe('⠙ Destroying 0/5, 4 in flight, 0.1 s elapsed');

    for (const name of ['a', 'b', 'c']) {
      clock.advance(1000);
      progress.onProgress({ kind: 'operation-done', address: `prod/${name}`, action: 'delete', status: 'succeeded' });
    }
    // Redrawn at once after each lasting line, with the new count: 3 done in 3.1 s, the 2 left take about 2.1 s more.
    expect(lastDraw(io.stderr.text)).toBe('⠙ Destroying 3/5, 1 in flight, 3.1 s elapsed, about 2.1 s left');
    clock.tick();
    expect(lastDraw(io.stderr.text)).toBe('⠹ Destroying 3/5, 1 in flight, 3.1 s elapsed, about 2.1 s left');
    // Lasting lines go to stdout, the live line is erased before each and drawn again after it.
    expect(io.stdout.text).toBe('[1/5] prod/a: destroyed (1.1 s)\n[2/5] prod/b: destroyed (2.1 s)\n[3/5] prod/c: destroyed (3.1 s)\n');

    progress.finish();
    expect(io.stderr.text.endsWith('\r\x1b[2K')).toBe(true);
    expect(clock.tickers).toBe(0);
  });

  test('over several stacks, N adds up the operations of each stack as it starts', () => {
    const io = fakeIo();
    const progress = createProgressReporter(io, { showOperations: true }, manualClock());
    progress.onProgress({ kind: 'operations', total: 1 });
    progress.onProgress({ kind: 'operation-done', address: 'base/kv', action: 'create', status: 'succeeded' });
    progress.onProgress({ kind: 'operations', total: 2 });
    progress.onProgress({ kind: 'operation-done', address: 'prod/kv', action: 'create', status: 'succeeded' });
    expect(io.stdout.text).toBe('[1/1] base/kv: created\n[2/3] prod/kv: created\n');
  });

  test('over several stacks, once the plans told the run\'s total, one numbering from the first line', () => {
    const io = fakeIo();
    const progress = createProgressReporter(io, { showOperations: true }, manualClock());
    progress.expectOperations(4);
    progress.onProgress({ kind: 'operations', total: 2 });
    progress.onProgress({ kind: 'operation-done', address: 'base/kv', action: 'create', status: 'succeeded' });
    progress.onProgress({ kind: 'operation-done', address: 'base/users', action: 'create', status: 'succeeded' });
    progress.onProgress({ kind: 'operations', total: 2 });
    progress.onProgress({ kind: 'operation-done', address: 'prod/kv', action: 'create', status: 'succeeded' });
    progress.onProgress({ kind: 'operation-done', address: 'prod/users', action: 'create', status: 'succeeded' });
    expect(io.stdout.text).toBe('[1/4] base/kv: created\n[2/4] base/users: created\n[3/4] prod/kv: created\n[4/4] prod/users: created\n');
  });

  test('a plan\'s operations: one per change, two for a replacement, none for forget, no-op or refresh-only', () => {
    const plan = (refreshOnly: boolean, ...actions: string[]) => ({ refreshOnly, changes: actions.map((action) => ({ action })) }) as unknown as Plan;
    expect(plannedOperations([plan(false, 'create', 'update', 'delete', 'replace', 'forget', 'no-op'), plan(false, 'create')])).toBe(6);
    expect(plannedOperations([plan(true, 'update', 'update')])).toBe(0);
    expect(plannedOperations([])).toBe(0);
  });

  test('the total time leaves out the time spent waiting for approval', () => {
    const clock = manualClock();
    const progress = createProgressReporter(fakeIo(), { showOperations: true }, clock);
    clock.advance(1200);
    progress.pause();
    clock.advance(60_000);
    progress.resume();
    clock.advance(64_000);
    expect(progress.totalLine()).toBe('Total time: 1 min 05 s');
  });

  test('durations read as seconds with a tenth, minutes past a minute', () => {
    expect(seconds(0)).toBe('0.0 s');
    expect(seconds(23_449)).toBe('23.4 s');
    expect(seconds(125_000)).toBe('2 min 05 s');
  });

  test('operation lines say what happened', () => {
    expect(operationLine('prod/a', 'replace:delete', 'succeeded')).toBe('prod/a: destroyed (to be re-created)');
    expect(operationLine('prod/a', 'replace:create', 'succeeded')).toBe('prod/a: replaced');
    expect(operationLine('prod/a', 'update', 'failed', 'service answered 400')).toBe('prod/a: update failed: service answered 400');
    expect(operationLine('prod/a', 'delete', 'skipped', 'digest differs')).toBe('prod/a: delete skipped: digest differs');
  });
});
