import { EventEmitter } from 'node:events';
import { watchInterrupts } from '../../src/cli/run/interrupt';
import { guardOutput } from '../../src/cli/run/output-guard';
import { fakeIo } from './cli-fake-io';

const epipe = () => Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });

describe('guardOutput', () => {
  test('an error on either stream closes the output once, and listeners hear it once; a late listener at once', () => {
    const stdout = new EventEmitter();
    const stderr = new EventEmitter();
    const guard = guardOutput([stdout, stderr]);
    const heard = jest.fn();
    guard.onClosed(heard);
    expect(guard.closed).toBe(false);
    stdout.emit('error', epipe());
    stderr.emit('error', epipe());
    expect(guard.closed).toBe(true);
    expect(heard).toHaveBeenCalledTimes(1);
    const late = jest.fn();
    guard.onClosed(late);
    expect(late).toHaveBeenCalledTimes(1);
  });

  test('a closed output stops an apply as a first Ctrl-C does, silently; a cancelled watch ignores it', () => {
    const stdout = new EventEmitter();
    const guard = guardOutput([stdout]);
    const io = fakeIo();
    const exit = jest.fn();
    const watch = watchInterrupts(io, new EventEmitter(), exit, guard);
    stdout.emit('error', epipe());
    expect(watch.signal.aborted).toBe(true);
    expect(exit).not.toHaveBeenCalled();
    expect(io.stderr.text).toBe('');

    const other = new EventEmitter();
    const otherGuard = guardOutput([other]);
    const disposed = watchInterrupts(io, new EventEmitter(), exit, otherGuard);
    disposed.dispose();
    other.emit('error', epipe());
    expect(disposed.signal.aborted).toBe(false);
  });
});
