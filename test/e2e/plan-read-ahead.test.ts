/**
 * A plan of the whole stack sends the reads of the objects in code before its state is read (the state is read
 * while they are on their way: src/engine/plan/read-ahead.ts). What must hold: each object is still read once,
 * objects only in state are read too, errors come in the same order as before, and nothing is read ahead of a
 * `--target` selection (it needs the state to compute).
 */
import { writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { AuthMount, SecretValue, UserpassUser, apply, plan } from '../../src';
import { actions, newStack, startHarness, unwrap, type Harness } from './engine-harness';

jest.setTimeout(60_000);

function usersStack(names: readonly string[], password: (name: string) => SecretValue = (name) => SecretValue.unsafePlainText(`${name}-password`)) {
  const stack = newStack();
  const mount = new AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass' });
  for (const name of names) new UserpassUser(stack, name, { mount, username: name, password: password(name) });
  return stack;
}

const reads = (h: Harness) => h.logSince().filter((entry) => entry.method === 'GET' && entry.path.startsWith('auth/userpass/users/')).map((entry) => entry.path).sort();
const damageState = (h: Harness) => writeFile(path.join(h.dir, '.secretform', 'test.state.json'), '{"version": 1, "lineage": ');

/** Registers a harness per test with users ann, bob and cid applied and the log marked after; returns its getter. */
function appliedUsersHarness(): () => Harness {
  let h: Harness | undefined;
  beforeEach(async () => {
    h = await startHarness();
    unwrap(await apply(h.options(usersStack(['ann', 'bob', 'cid']))));
    h.markLog();
  });
  afterEach(() => h?.close());
  return () => h as Harness;
}

describe('a plan reads the objects in code while its state is read', () => {
  const harness = appliedUsersHarness();
  let h: Harness;
  beforeEach(() => (h = harness()));

  test('each object is read once, and an object only state records is read and planned for deletion', async () => {
    const planned = unwrap(await plan(h.options(usersStack(['ann', 'bob']))));
    expect(actions(planned)).toEqual({ 'test/cid': 'delete' });
    expect(reads(h)).toEqual(['auth/userpass/users/ann', 'auth/userpass/users/bob', 'auth/userpass/users/cid']);
  });

  test('the reads go out before the state is read: a damaged state still fails the plan, after they were sent', async () => {
    await damageState(h);
    const result = await plan(h.options(usersStack(['ann', 'bob', 'cid'])));
    expect(!result.ok && result.error.code).toBe('state_corrupt');
    expect(reads(h)).toEqual(['auth/userpass/users/ann', 'auth/userpass/users/bob', 'auth/userpass/users/cid']);
  });

  test('a secret that cannot be resolved is reported after a damaged state, as before, and nothing is read ahead', async () => {
    const intact = await h.stateText();
    await damageState(h);
    const result = await plan(h.options(usersStack(['ann', 'bob'], () => SecretValue.fromEnv('READ_AHEAD_UNSET_PASSWORD'))));
    expect(!result.ok && result.error.code).toBe('state_corrupt');
    expect(reads(h)).toEqual([]);
    await writeFile(path.join(h.dir, '.secretform', 'test.state.json'), intact);
    const unresolved = await plan(h.options(usersStack(['ann', 'bob'], () => SecretValue.fromEnv('READ_AHEAD_UNSET_PASSWORD'))));
    expect(!unresolved.ok && unresolved.error.code).toBe('secret_unresolved');
  });

  test('a --target selection is read only once the state is read', async () => {
    await damageState(h);
    const result = await plan(h.options(usersStack(['ann', 'bob', 'cid']), { targets: ['test/ann'] }));
    expect(!result.ok && result.error.code).toBe('state_corrupt');
    expect(h.logSince()).toEqual([]);
  });
});

describe('the reads go out with one object of each type first, then by address (src/engine/refresh/read-order.ts)', () => {
  const harness = appliedUsersHarness();
  let h: Harness;
  beforeEach(() => (h = harness()));

  // By address: test/ann, test/bob, test/cid (users), test/userpass (the mount, read through the listing sys/auth).
  const order = (h: Harness) => h.logSince().filter((entry) => entry.method === 'GET' && (entry.path.startsWith('auth/userpass/users/') || entry.path === 'sys/auth')).map((entry) => entry.path);
  const expected = ['auth/userpass/users/ann', 'sys/auth', 'auth/userpass/users/bob', 'auth/userpass/users/cid'];

  test("a plan's read-ahead", async () => {
    unwrap(await plan(h.options(usersStack(['ann', 'bob', 'cid']), { parallelism: 1 })));
    expect(order(h)).toEqual(expected);
  });

  test("an apply's refresh (no read-ahead: it reads under the state's lock)", async () => {
    unwrap(await apply(h.options(usersStack(['ann', 'bob', 'cid']), { parallelism: 1 })));
    expect(order(h)).toEqual(expected);
  });
});
