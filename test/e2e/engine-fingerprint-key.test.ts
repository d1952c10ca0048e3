/**
 * The default configuration (no SECRETFORM_STATE_KEY): the stack's fingerprint key is created on the service on
 * the first apply and read by every later run, so plans are fast and the state alone is not enough to test
 * password guesses. Without a KV v2 mount the engine falls back to slow salted hashes off the event loop.
 */
import { scryptSync } from 'node:crypto';
import { AuthMount, SecretValue, UserpassUser } from '../../src';
import { apply, plan } from '../../src';
import { newStack, startHarness, unwrap, type Harness } from './engine-harness';

const KEY_PATH = 'secret/data/secretform/fingerprint-keys/test';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The environment of a user who configured nothing but the service. */
const defaultEnv = (harness: Harness): NodeJS.ProcessEnv => ({ SERVICE_ADDR: harness.server.url, SERVICE_TOKEN: harness.env.SERVICE_TOKEN });

function usersStack(passwords: string[]) {
  const stack = newStack();
  const mount = new AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass' });
  passwords.forEach((password, i) => new UserpassUser(stack, `user-${i}`, { mount, username: `user-${i}`, password: SecretValue.unsafePlainText(password) }));
  return stack;
}

const secretStatuses = (planned: Awaited<ReturnType<typeof plan>>) =>
  Object.fromEntries(unwrap(planned).changes.filter((c) => c.type === 'userpass_user').map((c) => [c.address, `${c.action}/${c.secrets.map((s) => s.status).join(',')}`]));

test('with no configuration, the first apply keeps a random key on the service and later runs detect changed and unchanged secrets', async () => {
  const harness = (h = await startHarness());
  const options = (passwords: string[]) => harness.options(usersStack(passwords), { env: defaultEnv(harness) });

  // A plan only reads: no key is created before an apply is approved.
  unwrap(await plan(options(['pw-a', 'pw-b'])));
  expect((await harness.call('GET', KEY_PATH)).status).toBe(404);

  expect(unwrap(await apply(options(['pw-a', 'pw-b']))).succeeded).toBe(true);
  const stored = await harness.call('GET', KEY_PATH);
  expect(stored.status).toBe(200);
  expect(Buffer.from(stored.body.data.data.fingerprint_key, 'base64url')).toHaveLength(32);
  const state = await harness.state();
  const fingerprints = Object.values(state.resources).flatMap((entry: any) => Object.values(entry.secrets)) as string[];
  expect(fingerprints).toHaveLength(2);
  for (const fingerprint of fingerprints) expect(fingerprint).toMatch(/^hmac-sha256:/);
  expect(await harness.stateText()).not.toContain(stored.body.data.data.fingerprint_key);

  // Unchanged: nothing to do (each run reads the key again, as a new process would).
  expect(secretStatuses(await plan(options(['pw-a', 'pw-b'])))).toEqual({ 'test/user-0': 'no-op/unverifiable', 'test/user-1': 'no-op/unverifiable' });
  // One password changed in code: only that user is updated.
  expect(secretStatuses(await plan(options(['pw-a', 'pw-b2'])))).toEqual({ 'test/user-0': 'no-op/unverifiable', 'test/user-1': 'update/changed' });
  unwrap(await apply(options(['pw-a', 'pw-b2'])));
  expect(secretStatuses(await plan(options(['pw-a', 'pw-b2'])))).toEqual({ 'test/user-0': 'no-op/unverifiable', 'test/user-1': 'no-op/unverifiable' });
  // The key was created once, and every run read the same one.
  expect(harness.server.requestLog.filter((e) => e.method === 'POST' && e.path.replace(/^\/+/, '') === KEY_PATH)).toHaveLength(1);
  expect((await harness.call('GET', KEY_PATH)).body.data.data).toEqual(stored.body.data.data);
});

test('without a KV v2 mount: slow salted fingerprints, checked off the event loop, still detect changes; old ones keep working once a key exists', async () => {
  const harness = (h = await startHarness({}, { kvMount: false }));
  const passwords = Array.from({ length: 8 }, (_, i) => `distinct-password-${i}`);
  const options = (list: string[]) => harness.options(usersStack(list), { env: defaultEnv(harness) });
  expect(unwrap(await apply(options(passwords))).succeeded).toBe(true);
  const state = await harness.state();
  expect(state.resources['test/user-0'].secrets.password).toMatch(/^scrypt:/);

  // How long one synchronous check takes here: the old engine blocked the loop for 8 of these in a row.
  const started = performance.now();
  scryptSync('x', 'salt-salt-salt-1', 32, { N: 1 << 14, r: 8, p: 1 });
  const oneHashMs = performance.now() - started;

  let last = performance.now();
  let longestGap = 0;
  let ticks = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longestGap = Math.max(longestGap, now - last);
    last = now;
    ticks++;
  }, 2);
  let planned;
  try {
    planned = await plan(options([...passwords.slice(0, 7), 'changed-password']));
  } finally {
    clearInterval(timer);
  }
  expect(secretStatuses(planned)).toEqual({
    ...Object.fromEntries(passwords.slice(0, 7).map((_, i) => [`test/user-${i}`, 'no-op/unverifiable'])),
    'test/user-7': 'update/changed',
  });
  expect(ticks).toBeGreaterThan(0);
  expect(longestGap).toBeLessThan(Math.max(4 * oneHashMs, 100));

  // Once a KV v2 mount exists, new fingerprints are keyed and the old scrypt ones are still compared.
  expect((await harness.call('POST', 'sys/mounts/secret', { type: 'kv', options: { version: '2' } })).status).toBeLessThan(300);
  unwrap(await apply(options([...passwords.slice(0, 7), 'changed-password'])));
  const after = await harness.state();
  expect(after.resources['test/user-7'].secrets.password).toMatch(/^hmac-sha256:/);
  expect(after.resources['test/user-0'].secrets.password).toMatch(/^scrypt:/);
  expect(secretStatuses(await plan(options([...passwords.slice(0, 7), 'changed-password'])))).toEqual(
    Object.fromEntries([...passwords.slice(0, 7), 'x'].map((_, i) => [`test/user-${i}`, 'no-op/unverifiable'])),
  );
});
