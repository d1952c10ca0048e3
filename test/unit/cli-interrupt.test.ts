import { EventEmitter } from 'node:events';
import { IMMEDIATE_EXIT_CODE, watchInterrupts } from '../../src/cli/run/interrupt';
import { fakeIo } from './cli-fake-io';

describe('watchInterrupts', () => {
  test('aborts the signal on the first SIGINT and says it is stopping, without exiting', () => {
    const io = fakeIo();
    const source = new EventEmitter();
    const exit = jest.fn();
    const watch = watchInterrupts(io, source, exit);
    expect(watch.signal.aborted).toBe(false);
    source.emit('SIGINT');
    expect(watch.signal.aborted).toBe(true);
    expect(io.stderr.text).toContain('Interrupt received (SIGINT): stopping after the operations in flight finish; state will be saved');
    expect(exit).not.toHaveBeenCalled();
  });

  test('exits at once with 130 on the second SIGINT', () => {
    const io = fakeIo();
    const source = new EventEmitter();
    const exit = jest.fn();
    watchInterrupts(io, source, exit);
    source.emit('SIGINT');
    source.emit('SIGINT');
    expect(exit).toHaveBeenCalledTimes(1);
    expect(exit).toHaveBeenCalledWith(IMMEDIATE_EXIT_CODE);
    expect(IMMEDIATE_EXIT_CODE).toBe(130);
    expect(io.stderr.text).toContain('Second interrupt: exiting now');
  });

  test('treats SIGTERM (a cancelled CI job) like SIGINT, and exits with 143 on a second one', () => {
    const io = fakeIo();
    const source = new EventEmitter();
    const exit = jest.fn();
    const watch = watchInterrupts(io, source, exit);
    source.emit('SIGTERM');
    expect(watch.signal.aborted).toBe(true);
    expect(io.stderr.text).toContain('Interrupt received (SIGTERM): stopping after the operations in flight finish');
    expect(exit).not.toHaveBeenCalled();
    source.emit('SIGTERM');
    expect(exit).toHaveBeenCalledWith(143);
  });

  test('stops listening once disposed', () => {
    const source = new EventEmitter();
    const watch = watchInterrupts(fakeIo(), source, jest.fn());
    expect(source.listenerCount('SIGINT')).toBe(1);
    expect(source.listenerCount('SIGTERM')).toBe(1);
    watch.dispose();
    expect(source.listenerCount('SIGINT')).toBe(0);
    expect(source.listenerCount('SIGTERM')).toBe(0);
    expect(watch.signal.aborted).toBe(false);
  });
});
