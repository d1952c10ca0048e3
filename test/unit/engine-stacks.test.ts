/**
 * A run over several stacks, the pure parts: which stacks `--stack` selects, the order dependencies give (a
 * cycle named), and the scheduling (a failed stack stops only its dependents, independent stacks overlap).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EngineError, fail, ok } from '../../src/engine/errors';
import { orderStacks, readStackDependencies, reverseDependencies } from '../../src/engine/stacks/stack-order';
import { narrowToTargets, selectStacks } from '../../src/engine/stacks/stack-selection';
import { stackProgress } from '../../src/engine/stacks/stack-progress';
import { runStacksInOrder } from '../../src/engine/stacks/stack-scheduler';
import type { ProgressEvent } from '../../src/engine/setup/engine-options';
import { resolveStateLocation } from '../../src/engine/state/state-location';
import { tempDir } from '../support/temp-dir';

const STACKS = ['base', 'prod-eu', 'prod-us', 'staging'];

describe('selectStacks', () => {
  test('names and glob patterns select the stacks they match, each once, in the output order', () => {
    expect(selectStacks(STACKS, ['staging', 'prod-*', 'prod-eu'], 'change', 'apply')).toEqual(ok(['prod-eu', 'prod-us', 'staging']));
    expect(selectStacks(STACKS, ['*'], 'change', 'apply')).toEqual(ok(STACKS));
  });

  test('without --stack a read covers every stack, a change refuses several and lists them', () => {
    expect(selectStacks(STACKS, [], 'read', 'plan')).toEqual(ok(STACKS));
    const refused = selectStacks(STACKS, [], 'change', 'destroy');
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.error.message).toMatch(/holds 4 stacks \(base, prod-eu, prod-us, staging\); destroy changes the service, so name the stacks/);
    expect(selectStacks(['only'], [], 'change', 'apply')).toEqual(ok(['only']));
  });

  test('an unknown name or a pattern matching nothing is an error listing the stacks', () => {
    const unknown = selectStacks(STACKS, ['prod'], 'read', 'plan');
    expect(!unknown.ok && unknown.error.message).toBe('there is no stack "prod"; stacks: base, prod-eu, prod-us, staging');
    const none = selectStacks(STACKS, ['dev-*'], 'read', 'plan');
    expect(!none.ok && none.error.message).toBe("--stack 'dev-*' matches no stack; stacks: base, prod-eu, prod-us, staging");
  });
});

describe('stack order', () => {
  const deps = (entries: Record<string, string[]>) => new Map(Object.entries(entries));

  test('every stack comes after the stacks it depends on; destroy waits for the dependents', () => {
    const dependencies = deps({ app: ['db', 'base'], db: ['base'], base: [], other: [] });
    expect(orderStacks(['app', 'db', 'base', 'other'], dependencies)).toEqual(ok(['base', 'db', 'app', 'other']));
    expect(reverseDependencies(dependencies)).toEqual(deps({ app: [], db: ['app'], base: ['app', 'db'], other: [] }));
  });

  test('a cycle is an error that names it', () => {
    const order = orderStacks(['a', 'b', 'c'], deps({ a: ['b'], b: ['c'], c: ['a'] }));
    expect(!order.ok && order.error.message).toMatch(/^the stacks depend on each other in a cycle: a -> b -> c -> a \(each depends on the next\)/);
  });

  test('dependencies come from the manifest, limited to the stacks of the run', () => {
    const outdir = tempDir('sf-stacks-');
    writeFileSync(join(outdir, 'manifest.json'), JSON.stringify({ stacks: { base: { dependencies: [] }, prod: { dependencies: ['base', 'shared'] }, shared: {} } }));
    expect(readStackDependencies(outdir, ['base', 'prod'])).toEqual(ok(deps({ base: [], prod: ['base'] })));
  });
});

describe('runStacksInOrder', () => {
  test('a failed stack skips its dependents, naming it, and the others finish', async () => {
    const ran: string[] = [];
    const outcomes = await runStacksInOrder(['base', 'app', 'tools', 'other'], new Map(Object.entries({ base: [], app: ['base'], tools: ['app'], other: [] })), (stack) => {
      ran.push(stack);
      return Promise.resolve(stack === 'base' ? fail(new EngineError('service_unusable', 'base is down')) : ok(stack));
    });
    expect(ran.sort()).toEqual(['base', 'other']);
    expect(outcomes.map((o) => [o.stack, o.status, o.status === 'skipped' ? o.dependency : undefined])).toEqual([
      ['base', 'failed', undefined], ['app', 'skipped', 'base'], ['tools', 'skipped', 'app'], ['other', 'done', undefined],
    ]);
  });

  test('independent stacks run at the same time', async () => {
    let running = 0;
    let most = 0;
    await runStacksInOrder(['a', 'b', 'c'], new Map(), async () => {
      most = Math.max(most, ++running);
      await new Promise((resolve) => setTimeout(resolve, 20));
      running--;
      return ok(undefined);
    });
    expect(most).toBe(3);
  });
});

test('{stack} in a state file path is the stack name', () => {
  const location = resolveStateLocation('state/{stack}.json', {}, '/project', 'prod');
  expect(location.ok && location.value.display).toBe('/project/state/prod.json');
});

test('--target over several stacks keeps the stacks that hold a target, each with its own targets', () => {
  const narrowed = narrowToTargets(['base', 'prod', 'staging'], ['prod/kv', 'base/auth', 'prod/auth']);
  expect(narrowed.ok && narrowed.value.stacks).toEqual(['base', 'prod']);
  expect(narrowed.ok && narrowed.value.targetsOf('prod')).toEqual(['prod/kv', 'prod/auth']);
  const outside = narrowToTargets(['base', 'prod'], ['qa/kv']);
  expect(!outside.ok && outside.error.message).toBe('--target qa/kv: not an address of the stacks of this run (base, prod); an address starts with its stack\'s name');
});

test("a stack's progress events name the stack, so counts of stacks running at the same time can be told apart", () => {
  const events: ProgressEvent[] = [];
  const onProgress = stackProgress((event) => events.push(event), 'prod');
  onProgress?.({ kind: 'refresh', done: 1, total: 4 });
  onProgress?.({ kind: 'operation-start', address: 'prod/kv', action: 'create' });
  expect(events).toEqual([{ kind: 'refresh', stack: 'prod', done: 1, total: 4 }, { kind: 'operation-start', stack: 'prod', address: 'prod/kv', action: 'create' }]);
  expect(stackProgress(undefined, 'prod')).toBeUndefined();
});
