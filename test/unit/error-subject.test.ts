/**
 * Errors with a subject (issue 31): an EngineError carries the stack and the address it is about, set once where
 * they are known, and `describeEngineError` alone puts them into words, so that a stack is named exactly once
 * whichever way its failure travelled (never dropped, never twice as in `stack blue: stack blue: ...`).
 */
import { join } from 'node:path';
import { EngineError, inStack } from '../../src/engine/errors';
import type { DesiredStack } from '../../src/engine/setup/desired';
import { serviceMismatch } from '../../src/engine/setup/service-identity';
import { checkStackConnection } from '../../src/engine/setup/stack-connection';
import { prepareStacks } from '../../src/engine/stacks/stack-preparation';
import { emptyState } from '../../src/engine/state/state-file';
import { describeEngineError } from '../../src/report/engine-error';
import { tempDir } from '../support/temp-dir';

const connection = { construct: 'green/conn', address: 'http://127.0.0.1:8300', tokenEnv: 'GREEN_TOKEN', skipVerify: false };

describe('describeEngineError', () => {
  test('puts the stack, then the address, before the message; an error without a subject is its message', () => {
    expect(describeEngineError(new EngineError('state_io', 'disk full'))).toBe('disk full');
    expect(describeEngineError(new EngineError('state_io', 'disk full', { stack: 'blue' }))).toBe('stack blue: disk full');
    expect(describeEngineError(new EngineError('import_invalid', 'no such mount', { address: 'blue/kv' }))).toBe('blue/kv: no such mount');
    expect(describeEngineError(new EngineError('import_invalid', 'no such mount', { stack: 'blue', address: 'blue/kv' }))).toBe('stack blue: blue/kv: no such mount');
  });
});

describe('inStack: the stack is set once', () => {
  test('an error without a stack gets it, keeping its code, message and address', () => {
    const named = inStack(new EngineError('state_corrupt', 'state is damaged', { address: 'blue/kv' }), 'blue');
    expect(named).toBeInstanceOf(EngineError);
    expect([named.code, named.message, named.subject]).toEqual(['state_corrupt', 'state is damaged', { stack: 'blue', address: 'blue/kv' }]);
  });

  test('an error that names its stack keeps it: naming it again on the way out does not double it', () => {
    const own = new EngineError('service_mismatch', 'its state was applied elsewhere', { stack: 'blue' });
    expect(inStack(own, 'blue')).toBe(own);
    expect(describeEngineError(inStack(inStack(own, 'blue'), 'blue'))).toBe('stack blue: its state was applied elsewhere');
  });
});

describe('the engine sets the subject where it is known, and never writes it into the message', () => {
  test("a stack's ServiceConnection names the stack in a run of one stack too", () => {
    const checked = checkStackConnection({ stack: 'green', connection, env: {}, cwd: '/' });
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.error.subject).toEqual({ stack: 'green' });
    expect(checked.error.message).toMatch(/^GREEN_TOKEN is not set: /);
    expect(describeEngineError(checked.error)).toMatch(/^stack green: GREEN_TOKEN is not set: the stack's ServiceConnection green\/conn reads the token/);
  });

  test('a state of another service is about its stack', () => {
    const refused = serviceMismatch({ stack: 'prod', state: { ...emptyState('prod'), service: 'http://a.example:8200' }, stateLocation: 's.json', service: 'http://b.example:8200', source: 'SERVICE_ADDR', migrateState: false });
    expect(refused?.subject).toEqual({ stack: 'prod' });
    expect(refused?.message).toMatch(/^its state \(s\.json\) was applied to the service at http:\/\/a\.example:8200/);
  });

  test("a set of several names each stack's failure once: the environment's address, and a ServiceConnection's token", () => {
    const statePath = join(tempDir('sf-subject-'), '{stack}.state.json');
    const desiredOf = (stack: string) => ({ kind: 'loaded' as const, desired: { stack, resources: [], ...(stack === 'green' ? { connection } : {}) } as DesiredStack });
    const set = (stacks: string[]) => ({ stacks, several: true, dependencies: new Map(stacks.map((stack) => [stack, []])), targetsOf: () => undefined });

    const environment = prepareStacks({ statePath, env: { SERVICE_ADDR: 'ftp://nowhere' } }, set(['blue', 'green']), desiredOf, false);
    expect(environment.ok).toBe(false);
    if (environment.ok) return;
    expect(environment.error.subject).toEqual({ stack: 'blue' });
    expect(describeEngineError(environment.error)).toMatch(/^stack blue: SERVICE_ADDR: /);

    const own = prepareStacks({ statePath, env: { SERVICE_TOKEN: 'root', SERVICE_ADDR: 'http://127.0.0.1:8200' } }, set(['blue', 'green']), desiredOf, false);
    expect(own.ok).toBe(false);
    if (own.ok) return;
    expect(own.error.subject).toEqual({ stack: 'green' });
    const described = describeEngineError(own.error);
    expect(described).toMatch(/^stack green: GREEN_TOKEN is not set/);
    expect(described.match(/stack green: /g)).toHaveLength(1);
  });
});
