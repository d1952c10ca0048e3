/**
 * The CLI's one failure shape: a command returns a `CommandFailure` (or the exit code of an outcome it printed),
 * and `endCommand`, which main.ts calls once, prints it with its subject and gives its exit code.
 */
import { EngineError } from '../../src/engine/errors';
import { attempt, commandFailure, CommandFailure, endCommand, failureInStack, usageFailure } from '../../src/cli/run/command-failure';
import { UsageError } from '../../src/cli/run/usage-error';
import { writeStacksResult } from '../../src/cli/views/change-outcome';
import { fakeIo } from './cli-fake-io';

describe('endCommand', () => {
  test('prints a failure as `Error: <subject>: <message>` and returns its exit code', () => {
    const io = fakeIo();
    expect(endCommand(io, new CommandFailure('state_corrupt', 'state is damaged', { stack: 'blue', address: 'blue/kv' }))).toBe(1);
    expect(io.stderr.text).toBe('Error: stack blue: blue/kv: state is damaged\n');
    expect(io.stdout.text).toBe('');
  });

  test('an exit code passes through, printing nothing: the command said everything itself', () => {
    const io = fakeIo();
    expect(endCommand(io, 2)).toBe(2);
    expect(endCommand(io, 0)).toBe(0);
    expect(io.stderr.text).toBe('');
  });

  test("a failure's own exit code and lead (synth and dev-server lead with their name)", () => {
    const io = fakeIo();
    expect(endCommand(io, new CommandFailure('failed', 'the app failed', {}, 3, 'secretform synth'))).toBe(3);
    expect(io.stderr.text).toBe('secretform synth: the app failed\n');
  });
});

describe('commandFailure: anything a command meets, as its failure', () => {
  test('an engine error keeps its code and subject; its message is not prefixed twice', () => {
    const failure = commandFailure(new EngineError('service_config', 'GREEN_TOKEN is not set', { stack: 'green' }));
    expect([failure.code, failure.message, failure.subject, failure.exitCode]).toEqual(['service_config', 'GREEN_TOKEN is not set', { stack: 'green' }, 1]);
    const io = fakeIo();
    endCommand(io, failureInStack(failure, 'green'));
    expect(io.stderr.text).toBe('Error: stack green: GREEN_TOKEN is not set\n');
  });

  test('a flag error is a usage failure; any other error a failure with its message', () => {
    expect(commandFailure(new UsageError('--format must be text'))).toEqual(usageFailure('--format must be text'));
    expect(commandFailure(new Error('cannot write'))).toEqual(new CommandFailure('failed', 'cannot write'));
    expect(commandFailure('plain words').message).toBe('plain words');
  });

  test('failureInStack names the stack once, in a run of several', () => {
    const named = failureInStack(usageFailure('the connection differs'), 'blue');
    expect(named.subject).toEqual({ stack: 'blue' });
    expect(failureInStack(named, 'green')).toBe(named);
  });

  test('attempt: the value of a step, or what it threw as the failure', async () => {
    expect(await attempt(() => 42)).toBe(42);
    expect(await attempt(() => Promise.resolve('synthesized'))).toBe('synthesized');
    expect(await attempt(() => {
      throw new UsageError('--parallelism must be a positive integer');
    })).toEqual(usageFailure('--parallelism must be a positive integer'));
  });
});

describe("a stack's failure said among the others' results names its stack once", () => {
  const clock = { totalLine: () => 'Total time: 1s' };
  const failed = (error: EngineError) => ({ stacks: [{ stack: 'blue', status: 'failed' as const, error }], confirmed: false });

  test('a failure that does not name its stack gets it; one that does keeps it, not doubled', () => {
    const io = fakeIo();
    expect(writeStacksResult('apply', failed(new EngineError('state_corrupt', 'state is damaged')), io, clock)).toBe(1);
    expect(writeStacksResult('apply', failed(new EngineError('service_mismatch', 'its state was applied elsewhere', { stack: 'blue' })), io, clock)).toBe(1);
    expect(io.stderr.text).toBe('Error: stack blue: state is damaged\nError: stack blue: its state was applied elsewhere\n');
  });
});
