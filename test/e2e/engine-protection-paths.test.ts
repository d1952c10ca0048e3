/**
 * A protected object is never deleted by any path (issue 34 item 5), through the engine API against the dev
 * server: its own replace, every construct of its stack removed, and, for an object kept with `retainOnDelete`
 * (promised to stay on the service), the delete of the mount it lives in, which would take it along while the
 * plan only forgets it. Each refuses before any write; the objects stay.
 */
import { apply, AuthMount, UserpassUser, SecretValue } from '../../src';
import { newStack, startHarness, unwrap, type Harness } from './engine-harness';

jest.setTimeout(60_000);

// A dev server and a state of its own for each test: the stack is always `test`.
let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => h?.close());

const writes = () => h.logSince().filter((entry) => entry.method !== 'GET' && entry.method !== 'LIST');

/** The auth mount `path` and a user in it with `lifecycle`, or (mount false) the user alone or (user false) nothing. */
function stack(path: string, options: { mount?: boolean; user?: boolean; username?: string; protect?: boolean; retainOnDelete?: boolean }) {
  const s = newStack();
  if (options.mount !== false) new AuthMount(s, 'people', { path, type: 'userpass' });
  if (options.user !== false) {
    new UserpassUser(s, 'alice', {
      mount: path, username: options.username ?? 'alice', password: SecretValue.unsafePlainText('alice-password-7e2'),
      protect: options.protect, retainOnDelete: options.retainOnDelete,
    });
  }
  return s;
}

async function expectRefused(run: ReturnType<typeof stack>, ...expected: string[]): Promise<void> {
  h.markLog();
  const result = await apply(h.options(run));
  expect(result.ok).toBe(false);
  expect(!result.ok && result.error.code).toBe('protected');
  for (const text of expected) expect(!result.ok && result.error.message).toContain(text);
  expect(writes()).toEqual([]);
}

test('a retained user inside an auth mount removed from the code: refused, the user stays on the service', async () => {
  unwrap(await apply(h.options(stack('kept', { retainOnDelete: true }))));
  await expectRefused(stack('kept', { mount: false, user: false }),
    'test/alice (auth/kept/users/alice): lives in test/people (sys/auth/kept), which the plan would delete, taking it with it; it is retained (`retainOnDelete: true`',
    'or remove `retainOnDelete` from test/alice');
  expect((await h.call('GET', 'auth/kept/users/alice')).status).toBe(200);
  // Kept in code while its mount goes: the same.
  await expectRefused(stack('kept', { mount: false, retainOnDelete: true }), 'it is retained');
  // The mount kept, the user removed from the code: it is forgotten and stays (what retainOnDelete promises).
  const forgotten = unwrap(await apply(h.options(stack('kept', { user: false }))));
  expect(forgotten.succeeded).toBe(true);
  expect((await h.call('GET', 'auth/kept/users/alice')).status).toBe(200);
});

test("a protected user's replace (a new username) is refused", async () => {
  unwrap(await apply(h.options(stack('swap', { protect: true }))));
  await expectRefused(stack('swap', { protect: true, username: 'alicia' }), 'test/alice (auth/swap/users/alicia): would be replaced because its identity changed from auth/swap/users/alice to auth/swap/users/alicia');
  expect((await h.call('GET', 'auth/swap/users/alice')).status).toBe(200);
});

test('every construct of the stack removed (the stack emptied): a protected user is refused, not deleted', async () => {
  unwrap(await apply(h.options(stack('gone', { protect: true }))));
  await expectRefused(stack('gone', { mount: false, user: false }), 'test/alice (auth/gone/users/alice): its construct was removed from the code');
  expect((await h.call('GET', 'auth/gone/users/alice')).status).toBe(200);
  expect((await h.call('GET', 'sys/auth/gone')).status).toBe(200);
});
