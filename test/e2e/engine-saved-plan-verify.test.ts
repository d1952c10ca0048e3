/**
 * The package's `applySavedPlan` verifies a saved plan before it trusts anything in it (issue 34 items 1 and 6,
 * at the library level): no request goes to an address the file alone names (a spy server counting requests
 * receives none, not even the read of the fingerprint key), and the plan of a stack without any secret field
 * carries a MAC too (`createSavedPlan` creates the stack's key when it has none), so an edited description is
 * refused before any write. Against the dev server over a real socket, the key kept on the service.
 */
import { createSavedPlan, applySavedPlan, SecretsMount, type SavedPlan } from '../../src';
import { objectOfConnection } from '../../src/engine/setup/desired';
import { startRawServer, type RawServer } from './client-raw-server';
import { newStack, startHarness, unwrap, type Harness } from './engine-harness';

jest.setTimeout(60_000);

const CI_PASSWORD = 'ci-password-the-library-spy-must-never-see-51c0';

let h: Harness;
let spy: RawServer;

beforeEach(async () => {
  // No SECRETFORM_STATE_KEY: the stack's key is kept on the service, and read from it before the MAC is checked.
  h = await startHarness({ SECRETFORM_STATE_KEY: undefined, CI_PW: CI_PASSWORD });
  spy = await startRawServer(() => ({ status: 200, body: { data: { data: { fingerprint_key: 'YXR0YWNrZXIta2V5LW9mLTMyLWJ5dGVzLWxvbmctZW5vdWdo' } } } }));
});

afterEach(async () => {
  await spy.close();
  await h.close();
});

/** A stack without any secret field: a KV mount with a description. */
function mountStack() {
  const stack = newStack();
  new SecretsMount(stack, 'kv', { path: 'lib-apps', type: 'kv', options: { version: '2' }, description: 'application secrets' });
  return stack;
}

const writes = () => h.logSince().filter((entry) => entry.method !== 'GET' && entry.method !== 'LIST');
const copy = (saved: SavedPlan): any => JSON.parse(JSON.stringify(saved));

test('a saved plan whose connection names another service: refused, the spy receives no request', async () => {
  const { saved } = unwrap(await createSavedPlan(h.options(mountStack())));
  const edited = copy(saved);
  edited.connection = objectOfConnection({ construct: 'test/evil', address: spy.url, tokenEnv: 'CI_PW', skipVerify: false });
  h.markLog();
  const refused = await applySavedPlan(edited, { cwd: h.dir, env: h.env });
  expect(refused.ok).toBe(false);
  expect(!refused.ok && refused.error.code).toBe('service_mismatch');
  expect(!refused.ok && refused.error.message).toContain(`the saved plan names the service ${spy.url} with the token from CI_PW for stack test`);
  expect(!refused.ok && refused.error.message).not.toContain(CI_PASSWORD);
  expect(spy.requests).toEqual([]);
  expect(spy.connections()).toBe(0);
  expect(writes()).toEqual([]);

  // The plan as made applies (against the environment's service, which it names).
  const applied = unwrap(await applySavedPlan(saved, { cwd: h.dir, env: h.env }));
  expect(applied.succeeded).toBe(true);
  expect((await h.call('GET', 'sys/mounts/lib-apps')).status).toBe(200);
});

test('the plan of a stack without secrets carries a MAC; an edited description is refused before any write', async () => {
  const { saved } = unwrap(await createSavedPlan(h.options(mountStack())));
  expect(saved.mac).toMatchObject({ algorithm: 'hmac-sha256', key_origin: 'KV v2 secret secret/secretform/fingerprint-keys/test on the service' });
  expect(saved.unverified).toBeUndefined();
  const edited = copy(saved);
  const mount = edited.desired.find((entry: any) => entry.address === 'test/kv');
  mount.spec.description = 'TAMPERED';
  edited.plan.changes.find((change: any) => change.address === 'test/kv').after.description = 'TAMPERED';
  h.markLog();
  const refused = await applySavedPlan(edited, { cwd: h.dir, env: h.env });
  expect(!refused.ok && refused.error.code).toBe('plan_tampered');
  expect(!refused.ok && refused.error.message).toContain('its content does not match its MAC');
  expect(writes()).toEqual([]);
  expect((await h.call('GET', 'sys/mounts/lib-apps')).status).toBe(404);
});
