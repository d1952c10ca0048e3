/**
 * The guardrails through the engine API against the dev server (what the CLI test does not cover): the
 * consequences of a replacement that moves a mount (counted in the old mount), of an auth mount's delete (its
 * users), and that only the objects planned for deletion are asked.
 */
import { apply, AuthMount, plan, SecretsMount, SecretValue, UserpassUser } from '../../src';
import { newStack, startHarness, unwrap, type Harness } from './engine-harness';

jest.setTimeout(60_000);

let h: Harness;
beforeAll(async () => {
  h = await startHarness({}, { kvMount: false });
});
afterAll(async () => h?.close());

function stack(options: { kvPath: string; withAuth: boolean }) {
  const s = newStack();
  new SecretsMount(s, 'kv', { path: options.kvPath, type: 'kv', options: { version: '2' } });
  if (options.withAuth) {
    const auth = new AuthMount(s, 'people', { path: 'people', type: 'userpass' });
    new UserpassUser(s, 'ann', { mount: auth, username: 'ann', password: SecretValue.unsafePlainText('ann-password-4c1') });
  }
  return s;
}

test('a mount moved to another path is replaced, counting the secrets of the old one; an auth mount its users', async () => {
  unwrap(await apply(h.options(stack({ kvPath: 'old', withAuth: true }))));
  for (const name of ['a', 'b/c', 'b/d']) expect((await h.call('POST', `old/data/${name}`, { data: { v: 'x' } })).status).toBe(200);
  expect((await h.call('POST', 'auth/people/users/bob', { password: 'bob-password-1d2' })).status).toBe(204);

  h.markLog();
  const planned = unwrap(await plan(h.options(stack({ kvPath: 'new', withAuth: false }))));
  const byAddress = new Map(planned.changes.map((change) => [change.address, change]));
  expect(byAddress.get('test/kv')?.action).toBe('replace');
  expect(byAddress.get('test/kv')?.consequences).toEqual([expect.objectContaining({ what: 'secrets', count: 3 })]);
  expect(byAddress.get('test/people')?.consequences).toEqual([expect.objectContaining({ what: 'users', count: 2 })]);
  // The user is deleted itself: a userpass user takes nothing with it.
  expect(byAddress.get('test/ann')?.consequences).toBeUndefined();
  const lists = h.logSince().filter((entry) => entry.method === 'LIST').map((entry) => entry.path).sort();
  expect(lists).toEqual(['auth/people/users', 'old/metadata', 'old/metadata/b']);
});
