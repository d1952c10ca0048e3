import { countResources, refreshOnlySummaryLine, summaryLine, writeApplyResult, writeRunResult } from '../../src/cli/views/apply-report';
import { nothingToDoLine } from '../../src/cli/views/nothing-to-do';
import { writeChangeResult, writeNothingToDoResult, writeStacksResult } from '../../src/cli/views/change-outcome';
import { EngineError } from '../../src/engine/errors';
import type { DriftEntry, PlannedChange } from '../../src/engine/plan/plan';
import { buildOperations } from '../../src/engine/apply/task-graph';
import type { ApplyResult, OperationOutcome } from '../../src/engine/run/apply-options';
import type { ResourcePlan } from '../../src/engine/plan/resource-plan';
import { fakeIo } from './cli-fake-io';
import { emptyPlan } from './report-plan-fixture';

const outcome = (address: string, action: string, status: OperationOutcome['status'], message?: string): OperationOutcome => ({ address, action, status, message });

/** The run's clock: what `Total time` says, when it is due. */
const clock = { totalLine: () => 'Total time: 1.5 s' };

function result(outcomes: OperationOutcome[], flags: Partial<ApplyResult> = {}): ApplyResult {
  return { plan: emptyPlan(), outcomes, interrupted: false, succeeded: outcomes.every((o) => o.status === 'succeeded'), confirmed: true, stateOnly: [], ...flags };
}

describe('apply report', () => {
  test('counts succeeded operations; a replacement adds and destroys', () => {
    expect(
      countResources([
        outcome('a', 'create', 'succeeded'),
        outcome('b', 'update', 'succeeded'),
        outcome('c', 'replace:delete', 'succeeded'),
        outcome('c', 'replace:create', 'succeeded'),
        outcome('d', 'delete', 'succeeded'),
        outcome('e', 'create', 'failed'),
        outcome('f', 'update', 'skipped'),
        // A replacement whose create failed destroyed the old object and added nothing.
        outcome('g', 'replace:delete', 'succeeded'),
        outcome('g', 'replace:create', 'failed'),
      ]),
    ).toEqual({ added: 2, changed: 1, destroyed: 3 });
  });

  test('counts the operations the engine actually runs for each plan action', () => {
    const planned = (address: string, action: string) => ({ address, change: { action }, dependencies: [] }) as unknown as ResourcePlan;
    const { operations } = buildOperations([planned('a', 'create'), planned('b', 'update'), planned('c', 'replace'), planned('d', 'delete')]);
    const succeeded = [...operations.values()].map((operation) => outcome(operation.address, operation.label, 'succeeded'));
    expect(countResources(succeeded)).toEqual({ added: 2, changed: 1, destroyed: 2 });
  });

  test('summary lines', () => {
    expect(summaryLine('apply', { added: 2, changed: 1, destroyed: 0 })).toBe('Apply complete! Resources: 2 added, 1 changed, 0 destroyed.');
    expect(summaryLine('destroy', { added: 0, changed: 0, destroyed: 3 })).toBe('Destroy complete! Resources: 3 destroyed.');
  });

  test('a successful run prints the summary and exits 0', () => {
    const io = fakeIo();
    expect(writeApplyResult('apply', result([outcome('a', 'create', 'succeeded')]), io)).toBe(0);
    expect(io.stdout.text).toBe('\nApply complete! Resources: 1 added, 0 changed, 0 destroyed.\n');
    expect(io.stderr.text).toBe('');
  });

  test('failures go to stderr as errors and the run exits 1', () => {
    const io = fakeIo();
    const code = writeApplyResult(
      'apply',
      result([outcome('prod/a', 'create', 'succeeded'), outcome('prod/b', 'update', 'failed', 'service answered 400: bad ttl'), outcome('prod/c', 'create', 'skipped', 'prod/b failed')]),
      io,
    );
    expect(code).toBe(1);
    expect(io.stderr.text).toContain('Error: prod/b: update failed: service answered 400: bad ttl\n');
    expect(io.stderr.text).toContain('Error: apply failed: 1 operation failed (1 added, 0 changed, 0 destroyed)');
    expect(io.stdout.text).toBe('prod/c: create skipped: prod/b failed\n');
    expect(io.stdout.text).not.toContain('Apply complete!');
  });

  test('an interrupted run says so and exits 1', () => {
    const io = fakeIo();
    const outcomes = [outcome('prod/a', 'delete', 'succeeded'), outcome('prod/b', 'delete', 'skipped', 'not started'), outcome('prod/c', 'delete', 'skipped', 'not started')];
    expect(writeApplyResult('destroy', result(outcomes, { interrupted: true, succeeded: false }), io)).toBe(1);
    expect(io.stderr.text).toContain('Error: destroy was interrupted before it finished (0 added, 0 changed, 1 destroyed; 2 operations were not started)');
    expect(io.stdout.text).toBe('');
  });

  test('a run stopped by a failure of the whole run reports it once, not per operation', () => {
    const io = fakeIo();
    const stopped = (address: string): OperationOutcome => ({ ...outcome(address, 'create', 'failed', 'not done: the service is down'), stoppedByRunFailure: true });
    const outcomes = [outcome('prod/a', 'create', 'succeeded'), stopped('prod/b'), stopped('prod/c'), outcome('prod/d', 'create', 'skipped', 'not started: the run stopped')];
    const code = writeApplyResult('apply', result(outcomes, { succeeded: false, runFailure: 'stopped: the service is down or unreachable at SERVICE_ADDR. POST ... (ECONNREFUSED)' }), io);
    expect(code).toBe(1);
    expect(io.stderr.text).toBe(
      'Error: apply stopped: the service is down or unreachable at SERVICE_ADDR. POST ... (ECONNREFUSED)\n' +
        'apply did not finish (1 added, 0 changed, 0 destroyed; 2 operations failed with this error, 1 not started); state records exactly what succeeded. ' +
        'Fix the cause and run `secretform apply` again.\n',
    );
    expect(io.stdout.text).toBe('');
  });

  test("one stack's advice carries the --stack and --target flags it was run with, in every command it gives", () => {
    const selection = { stacks: ['prod'], targets: ['prod/a', 'prod/b'] };
    const interrupted = fakeIo();
    writeApplyResult('destroy', result([outcome('prod/a', 'delete', 'skipped', 'not started')], { interrupted: true, succeeded: false }), interrupted, selection);
    expect(interrupted.stderr.text).toContain(
      'Run `secretform plan --stack prod --target prod/a --target prod/b` to see what is left, then `secretform destroy --stack prod --target prod/a --target prod/b` again.\n',
    );
    const failedRun = fakeIo();
    writeApplyResult('apply', result([outcome('prod/a', 'create', 'failed', 'service answered 400')]), failedRun, selection);
    expect(failedRun.stderr.text).toContain('Fix the errors above and run `secretform apply --stack prod --target prod/a --target prod/b` again.\n');
    const stoppedRun = fakeIo();
    const stopped = { ...outcome('prod/a', 'create', 'failed', 'not done: the service is down'), stoppedByRunFailure: true };
    writeApplyResult('apply', result([stopped], { succeeded: false, runFailure: 'stopped: the service is down' }), stoppedRun, { stacks: [], targets: ['prod/a'] });
    expect(stoppedRun.stderr.text).toContain('Fix the cause and run `secretform apply --target prod/a` again.\n');
  });

  test("the service's warnings go to stderr, before the summary", () => {
    const io = fakeIo();
    const warnings = ['prod/a: the service warned: Endpoint ignored these unrecognized parameters: [x]'];
    expect(writeApplyResult('apply', result([outcome('prod/a', 'create', 'succeeded')], { warnings }), io)).toBe(0);
    expect(io.stderr.text).toBe('Warning: prod/a: the service warned: Endpoint ignored these unrecognized parameters: [x]\n');
    expect(io.stdout.text).toContain('Apply complete!');
  });
});

/** A stack of a run over several stacks that failed. */
const failed = { stack: 'prod', status: 'failed', error: new EngineError('service_unusable', 'the service is down') } as const;

describe('the result of a run over several stacks', () => {
  /** A refresh-only apply of `stack` that recorded `count` drifted objects. */
  const recorded = (stack: string, count: number): ApplyResult => {
    const drift = Array.from({ length: count }, (_, index) => ({ address: `${stack}/user-${index}` }) as DriftEntry);
    return result([], { plan: emptyPlan({ stack, refreshOnly: true, drift }), stateOnly: drift.map(({ address }) => ({ address, change: 'refreshed' })) });
  };

  test('a refresh-only run says under each stack what a run of that stack alone says, then the total recorded, and no Total time', () => {
    const io = fakeIo();
    const stacks = [{ stack: 'base', status: 'done', value: recorded('base', 1) }, { stack: 'prod', status: 'done', value: recorded('prod', 2) }] as const;
    expect(writeStacksResult('apply', { confirmed: true, stacks: [...stacks] }, io, clock)).toBe(0);
    expect(io.stdout.text).toBe(
      `\n=== Stack base ===\n\n${refreshOnlySummaryLine(1)}\n\n=== Stack prod ===\n\n${refreshOnlySummaryLine(2)}\n` +
        '\nTotal over 2 stacks: Refresh-only apply complete! Recorded the live state of 3 drifted resources in state; nothing was changed on the service.\n',
    );
    expect(io.stderr.text).toBe('');
  });

  test('a refresh-only run in which a stack failed reports the others, then a total that says the run did not complete', () => {
    const io = fakeIo();
    expect(writeStacksResult('apply', { confirmed: true, stacks: [{ stack: 'base', status: 'done', value: recorded('base', 1) }, failed] }, io, clock)).toBe(1);
    expect(io.stdout.text).toBe(
      `\n=== Stack base ===\n\n${refreshOnlySummaryLine(1)}\n` +
        '\nTotal over 2 stacks: Refresh-only apply did not complete (1 stack failed). Recorded the live state of 1 drifted resource in state; nothing was changed on the service.\n',
    );
    expect(io.stderr.text).toBe('Error: stack prod: the service is down\n');
  });

  test("apply ends with the resources added, changed and destroyed over the stacks, in the words of one stack's summary", () => {
    const io = fakeIo();
    const base = result([outcome('base/a', 'create', 'succeeded'), outcome('base/b', 'update', 'succeeded')]);
    const prod = result([outcome('prod/c', 'replace:delete', 'succeeded'), outcome('prod/c', 'replace:create', 'succeeded')]);
    const stacks = [{ stack: 'base', status: 'done', value: base }, { stack: 'prod', status: 'done', value: prod }] as const;
    expect(writeStacksResult('apply', { confirmed: true, stacks: [...stacks] }, io, clock)).toBe(0);
    expect(io.stdout.text).toBe(
      `\n=== Stack base ===\n\n${summaryLine('apply', { added: 1, changed: 1, destroyed: 0 })}\n` +
        `\n=== Stack prod ===\n\n${summaryLine('apply', { added: 1, changed: 0, destroyed: 1 })}\n` +
        '\nTotal over 2 stacks: Apply complete! Resources: 2 added, 1 changed, 1 destroyed.\nTotal time: 1.5 s\n',
    );
  });

  test('destroy ends with the resources destroyed over the stacks', () => {
    const io = fakeIo();
    const gone = (stack: string, count: number) => result(Array.from({ length: count }, (_, index) => outcome(`${stack}/${index}`, 'delete', 'succeeded')));
    expect(writeStacksResult('destroy', { confirmed: true, stacks: [{ stack: 'prod', status: 'done', value: gone('prod', 2) }, { stack: 'base', status: 'done', value: gone('base', 1) }] }, io, clock)).toBe(0);
    expect(io.stdout.text.split('\n').slice(-3)).toEqual(['Total over 2 stacks: Destroy complete! Resources: 3 destroyed.', 'Total time: 1.5 s', '']);
  });

  test('a run in which a stack failed, or was skipped, ends with a total that says so and counts what the others did', () => {
    const io = fakeIo();
    const partly = result([outcome('staging/a', 'create', 'succeeded'), outcome('staging/b', 'create', 'failed', 'service answered 400')]);
    const stacks = [
      { stack: 'base', status: 'done', value: result([outcome('base/a', 'create', 'succeeded')]) },
      { stack: 'staging', status: 'done', value: partly },
      failed,
      { stack: 'tools', status: 'skipped', dependency: 'prod' },
    ] as const;
    expect(writeStacksResult('apply', { confirmed: true, stacks: [...stacks] }, io, clock)).toBe(1);
    // staging's operation failed and prod failed: two stacks; what succeeded in staging is counted, as state records it.
    expect(io.stdout.text.split('\n').slice(-3)).toEqual(['Total over 4 stacks: Apply did not complete (2 stacks failed, 1 skipped). Resources: 2 added, 0 changed, 0 destroyed.', 'Total time: 1.5 s', '']);
    expect(io.stdout.text).not.toMatch(/Total over .*complete!/);
  });

  test('a stack stopped by Ctrl-C is counted as interrupted, as its own report says; one whose run failure came too, as failed', () => {
    const io = fakeIo();
    const stopped = (stack: string, flags: Partial<ApplyResult> = {}) =>
      result([outcome(`${stack}/a`, 'create', 'succeeded'), outcome(`${stack}/b`, 'create', 'skipped', 'not started: the run was interrupted')], { interrupted: true, succeeded: false, ...flags });
    const stacks = [
      { stack: 'base', status: 'done', value: stopped('base') },
      { stack: 'prod', status: 'done', value: stopped('prod') },
      { stack: 'staging', status: 'done', value: stopped('staging', { runFailure: 'stopped: the service is down' }) },
      { stack: 'tools', status: 'skipped', dependency: 'prod' },
    ] as const;
    expect(writeStacksResult('apply', { confirmed: true, stacks: [...stacks] }, io, clock)).toBe(1);
    expect(io.stderr.text.match(/^Error: apply was interrupted before it finished/gm)).toHaveLength(2);
    expect(io.stderr.text).toContain('Error: apply stopped: the service is down');
    expect(io.stdout.text.split('\n').slice(-3)).toEqual(['Total over 4 stacks: Apply did not complete (1 stack failed, 2 interrupted, 1 skipped). Resources: 3 added, 0 changed, 0 destroyed.', 'Total time: 1.5 s', '']);
  });

  test('a run whose only stack problems are interrupts counts them first, naming what it counts', () => {
    const io = fakeIo();
    const stopped = result([outcome('base/a', 'delete', 'skipped', 'not started: the run was interrupted')], { interrupted: true, succeeded: false });
    writeStacksResult('destroy', { confirmed: true, stacks: [{ stack: 'base', status: 'done', value: stopped }, { stack: 'prod', status: 'skipped', dependency: 'base' }] }, io, clock);
    expect(io.stdout.text).toContain('\nTotal over 2 stacks: Destroy did not complete (1 stack interrupted, 1 skipped). Resources: 0 destroyed.\n');
  });

  test('a stack skipped because the stack it waits for was interrupted says so; one skipped for a failure, as before', () => {
    const io = fakeIo();
    const stopped = result([outcome('base/a', 'create', 'skipped', 'not started: the run was interrupted')], { interrupted: true, succeeded: false });
    const stacks = [
      { stack: 'base', status: 'done', value: stopped },
      { stack: 'staging', status: 'skipped', dependency: 'base' },
      failed,
      { stack: 'tools', status: 'skipped', dependency: 'prod' },
    ] as const;
    writeStacksResult('apply', { confirmed: true, stacks: [...stacks] }, io, clock);
    expect(io.stderr.text).toContain('Error: stack staging was not applied: stack base, which it waits for, was interrupted\n');
    expect(io.stderr.text).toContain('Error: stack tools was not applied: stack prod, which it waits for, failed or was skipped\n');
  });

  test("a stack's advice carries the run's --stack and --target flags, so that it runs the same stacks and targets again", () => {
    const selection = { stacks: ['staging', 'prod-*'], targets: ['staging/b', 'prod/a'] };
    const io = fakeIo();
    const stopped = result([outcome('prod/a', 'create', 'skipped', 'not started: the run was interrupted')], { interrupted: true, succeeded: false });
    const failedRun = result([outcome('staging/b', 'create', 'failed', 'service answered 400')]);
    writeStacksResult('apply', { confirmed: true, stacks: [{ stack: 'prod', status: 'done', value: stopped }, { stack: 'staging', status: 'done', value: failedRun }] }, io, clock, (command, stack, stackIo) =>
      writeChangeResult(command, stack, stackIo, selection),
    );
    const flags = "--stack staging --stack 'prod-*' --target staging/b --target prod/a";
    expect(io.stderr.text).toContain(`Run \`secretform plan ${flags}\` to see what is left, then \`secretform apply ${flags}\` again.\n`);
    expect(io.stderr.text).toContain(`Fix the errors above and run \`secretform apply ${flags}\` again.\n`);
  });

  test('a run over one stack counts it as one stack in its total', () => {
    const io = fakeIo();
    writeStacksResult('apply', { confirmed: true, stacks: [{ stack: 'prod', status: 'done', value: result([outcome('prod/a', 'create', 'succeeded')]) }] }, io, clock);
    expect(io.stdout.text).toContain('\nTotal over 1 stack: Apply complete! Resources: 1 added, 0 changed, 0 destroyed.\n');
  });
});

describe('stacks with nothing to do in a run over several stacks', () => {
  /** A planned create in `stack`, and its succeeded operation. */
  const created = (stack: string): ApplyResult =>
    result([outcome(`${stack}/a`, 'create', 'succeeded')], { plan: emptyPlan({ stack, changes: [{ address: `${stack}/a`, action: 'create' } as PlannedChange] }) });
  /** A run of `stack` whose plan had nothing to do. */
  const idle = (stack: string, flags: Partial<ApplyResult> = {}): ApplyResult => result([], { plan: emptyPlan({ stack }), ...flags });

  test("one stack's words, and the same over several stacks", () => {
    expect(nothingToDoLine('apply', false, { stack: 'prod' })).toBe('Nothing to apply.');
    expect(nothingToDoLine('apply', true, { stack: 'prod' })).toBe('Nothing to record.');
    expect(nothingToDoLine('destroy', false, { stack: 'prod' })).toBe('No resources in state for stack prod to destroy. Nothing to do.');
    expect(nothingToDoLine('apply', false, { stacks: ['base', 'prod', 'staging'] })).toBe('Nothing to apply in 3 stacks.');
    expect(nothingToDoLine('apply', true, { stacks: ['prod'] })).toBe('Nothing to record in 1 stack.');
    expect(nothingToDoLine('destroy', false, { stacks: ['base', 'prod'] })).toBe('No resources in state for any of the 2 stacks to destroy. Nothing to do.');
    expect(nothingToDoLine('destroy', false, { stacks: ['prod'] })).toBe('No resources in state for stack prod to destroy. Nothing to do.');
  });

  test('a stack with nothing to apply says so under its name, then what it recorded, and counts nothing in the total', () => {
    const io = fakeIo();
    const stacks = [
      { stack: 'base', status: 'done', value: idle('base', { stateOnly: [{ address: 'base/user', change: 'refreshed' }] }) },
      { stack: 'prod', status: 'done', value: created('prod') },
    ] as const;
    expect(writeStacksResult('apply', { confirmed: true, stacks: [...stacks] }, io, clock, writeChangeResult)).toBe(0);
    expect(io.stdout.text).toBe(
      '\n=== Stack base ===\n\nNothing to apply.\nbase/user: refreshed state recorded\n' +
        `\n=== Stack prod ===\n\n${summaryLine('apply', { added: 1, changed: 0, destroyed: 0 })}\n` +
        '\nTotal over 2 stacks: Apply complete! Resources: 1 added, 0 changed, 0 destroyed.\nTotal time: 1.5 s\n',
    );
  });

  test('destroy and refresh-only say what one stack says when it has nothing to destroy or record', () => {
    const destroyed = fakeIo();
    const deleted = result([outcome('base/a', 'delete', 'succeeded')], { plan: emptyPlan({ stack: 'base', changes: [{ address: 'base/a', action: 'delete' } as PlannedChange] }) });
    const stacks = [{ stack: 'prod', status: 'done', value: idle('prod') }, { stack: 'base', status: 'done', value: deleted }] as const;
    writeStacksResult('destroy', { confirmed: true, stacks: [...stacks] }, destroyed, clock, writeChangeResult);
    expect(destroyed.stdout.text).toBe(
      '\n=== Stack prod ===\n\nNo resources in state for stack prod to destroy. Nothing to do.\n' +
        '\n=== Stack base ===\n\nDestroy complete! Resources: 1 destroyed.\n' +
        '\nTotal over 2 stacks: Destroy complete! Resources: 1 destroyed.\nTotal time: 1.5 s\n',
    );
    const recorded = fakeIo();
    writeStacksResult('apply', { confirmed: true, stacks: [{ stack: 'prod', status: 'done', value: idle('prod', { plan: emptyPlan({ refreshOnly: true }) }) }] }, recorded, clock, writeChangeResult);
    expect(recorded.stdout.text).toContain('\n=== Stack prod ===\n\nNothing to record.\n');
  });

  test('with nothing to do in any stack, the line said before the run is the result: only what each recorded follows, and failures', () => {
    const io = fakeIo();
    const stacks = [{ stack: 'base', status: 'done', value: idle('base', { stateOnly: [{ address: 'base/user', change: 'refreshed' }] }) }, failed] as const;
    expect(writeNothingToDoResult('apply', { confirmed: true, stacks: [...stacks] }, io)).toBe(1);
    expect(io.stdout.text).toBe('base/user: refreshed state recorded\n');
    expect(io.stderr.text).toBe('Error: stack prod: the service is down\n');
  });
});

describe('Total time', () => {
  test('one stack: after an apply or destroy result, succeeded or not; not after a refresh-only apply that recorded', () => {
    const applied = fakeIo();
    expect(writeRunResult('apply', result([outcome('prod/a', 'create', 'succeeded')]), applied, clock)).toBe(0);
    expect(applied.stdout.text).toBe('\nApply complete! Resources: 1 added, 0 changed, 0 destroyed.\nTotal time: 1.5 s\n');
    const failedRun = fakeIo();
    expect(writeRunResult('destroy', result([outcome('prod/a', 'delete', 'failed', 'service answered 500')]), failedRun, clock)).toBe(1);
    expect(failedRun.stdout.text).toBe('Total time: 1.5 s\n');
    const recordedRun = fakeIo();
    const drift = [{ address: 'prod/user' } as DriftEntry];
    expect(writeRunResult('apply', result([], { plan: emptyPlan({ refreshOnly: true, drift }) }), recordedRun, clock)).toBe(0);
    expect(recordedRun.stdout.text).toBe(`\n${refreshOnlySummaryLine(1)}\n`);
  });

  test('several stacks: once, after the total, when any stack has an apply or destroy result, as for one stack', () => {
    const io = fakeIo();
    writeStacksResult('apply', { confirmed: true, stacks: [{ stack: 'base', status: 'done', value: result([outcome('base/a', 'create', 'succeeded')]) }, failed] }, io, clock);
    expect(io.stdout.text.match(/^Total time: .*$/gm)).toEqual(['Total time: 1.5 s']);
    expect(io.stdout.text.endsWith('. Resources: 1 added, 0 changed, 0 destroyed.\nTotal time: 1.5 s\n')).toBe(true);
  });
});
