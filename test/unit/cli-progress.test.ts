import { createProgressReporter, operationLine } from '../../src/cli/progress';
import { fakeIo } from './cli-fake-io';

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

  test('shows no refresh progress when stderr is not a terminal (CI logs)', () => {
    const io = fakeIo();
    const progress = createProgressReporter(io, { showOperations: false }, () => 1000);
    progress.onProgress({ kind: 'refresh', done: 1, total: 2 });
    progress.onProgress({ kind: 'refresh', done: 2, total: 2 });
    progress.finish();
    expect(io.stderr.text).toBe('');
  });

  test('prints each succeeded operation on stdout, and leaves failures for the final report', () => {
    const io = fakeIo();
    const progress = createProgressReporter(io, { showOperations: true });
    progress.onProgress({ kind: 'operation-start', address: 'prod/a', action: 'create' });
    progress.onProgress({ kind: 'operation-done', address: 'prod/a', action: 'create', status: 'succeeded' });
    progress.onProgress({ kind: 'operation-done', address: 'prod/b', action: 'delete', status: 'succeeded' });
    progress.onProgress({ kind: 'operation-done', address: 'prod/c', action: 'update', status: 'failed', message: '400 bad' });
    expect(io.stdout.text).toBe('prod/a: created\nprod/b: destroyed\n');
  });

  test('operation lines say what happened', () => {
    expect(operationLine('prod/a', 'replace:delete', 'succeeded')).toBe('prod/a: destroyed (to be re-created)');
    expect(operationLine('prod/a', 'replace:create', 'succeeded')).toBe('prod/a: replaced');
    expect(operationLine('prod/a', 'update', 'failed', 'service answered 400')).toBe('prod/a: update failed: service answered 400');
    expect(operationLine('prod/a', 'delete', 'skipped', 'digest differs')).toBe('prod/a: delete skipped: digest differs');
  });
});
