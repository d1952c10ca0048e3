/**
 * The saved plan's MAC (plan-mac.ts): any change to the file after it was written is refused, naming what
 * failed; removing the MAC is refused when a key is available; another key is told apart from changed content.
 */
import { FingerprintKey } from '../../src/engine/state/fingerprint';
import { checkSavedPlanMac, withSavedPlanMac } from '../../src/engine/saved-plan/plan-mac';
import { SAVED_PLAN_FORMAT, type SavedPlan } from '../../src/engine/saved-plan/saved-plan';
import { change, emptyPlan } from './report-plan-fixture';

const key = FingerprintKey.keyed(Buffer.from('unit-state-key'), 'SECRETFORM_STATE_KEY');

function unsigned(): SavedPlan {
  return {
    format: SAVED_PLAN_FORMAT,
    format_version: 1,
    created_at: '2026-11-25T00:00:00.000Z',
    stack: 'prod',
    refresh_only: false,
    targets: [],
    state: { location: '/tmp/s.json', lineage: 'l-1', serial: 2 },
    desired: [{ address: 'prod/alice', secrets: { password: { $secret: { env: 'ALICE_PASSWORD' } } } }],
    live_objects: { 'prod/alice': null },
    plan: emptyPlan({ changes: [change({ address: 'prod/alice', action: 'create' })] }),
  };
}

/** What a reader gets: the file after a JSON round trip. */
const roundTrip = (saved: SavedPlan): SavedPlan => JSON.parse(JSON.stringify(saved));

test('a plan written with a key carries a MAC that checks after a JSON round trip, whatever the key order', () => {
  const signed = withSavedPlanMac(unsigned(), key);
  expect(signed.mac).toMatchObject({ algorithm: 'hmac-sha256', key_id: key.keyId, key_origin: 'SECRETFORM_STATE_KEY' });
  expect(checkSavedPlanMac(roundTrip(signed), key, 'p.json', true).ok).toBe(true);
  const reordered = Object.fromEntries(Object.entries(roundTrip(signed)).reverse()) as unknown as SavedPlan;
  expect(checkSavedPlanMac(reordered, key, 'p.json', true).ok).toBe(true);
});

test.each<[string, (saved: any) => void]>([
  ['a secret reference to another variable', (saved) => (saved.desired[0].secrets.password = { $secret: { env: 'SERVICE_TOKEN' } })],
  ['a secret reference to a file', (saved) => (saved.desired[0].secrets.password = { $secret: { file: '/etc/hostname' } })],
  ['a target added', (saved) => saved.targets.push('prod/alice')],
  ['an action changed', (saved) => (saved.plan.changes[0].action = 'delete')],
  ['the state serial changed', (saved) => (saved.state.serial = 3)],
  ['the MAC origin changed', (saved) => (saved.mac.key_origin = 'elsewhere')],
])('%s is refused as changed content', (_what, tamper) => {
  const saved = roundTrip(withSavedPlanMac(unsigned(), key));
  tamper(saved);
  const checked = checkSavedPlanMac(saved, key, 'p.json', true);
  expect(!checked.ok && checked.error.code).toBe('plan_tampered');
  expect(!checked.ok && checked.error.message).toContain('the saved plan p.json is refused, so nothing was read or changed: its content does not match its MAC');
});

test('a removed MAC is refused when a key is available, even when unverified plans are allowed', () => {
  const stripped = roundTrip(withSavedPlanMac(unsigned(), key));
  delete stripped.mac;
  for (const allowUnverified of [false, true]) {
    const checked = checkSavedPlanMac(stripped, key, 'p.json', true, undefined, allowUnverified);
    expect(!checked.ok && checked.error.message).toContain('it carries no MAC, but a fingerprint key is available (SECRETFORM_STATE_KEY)');
  }
});

test('without a key a plan says why it carries no MAC, and apply refuses it unless unverified plans are allowed', () => {
  const none = FingerprintKey.none('no key exists yet in the KV v2 secret secret/secretform/fingerprint-keys/prod on the service');
  const keyless = roundTrip(withSavedPlanMac(unsigned(), none));
  expect(keyless.mac).toBeUndefined();
  expect(keyless.unverified).toBe('no fingerprint key: no key exists yet in the KV v2 secret secret/secretform/fingerprint-keys/prod on the service');
  const refused = checkSavedPlanMac(keyless, none, 'p.json', true);
  expect(!refused.ok && refused.error.code).toBe('plan_tampered');
  expect(!refused.ok && refused.error.message).toContain('it carries no MAC (the file says: no fingerprint key: no key exists yet');
  expect(!refused.ok && refused.error.message).toContain('apply it with --allow-unverified-plan');
  expect(checkSavedPlanMac(keyless, none, 'p.json', true, undefined, true).ok).toBe(true);
  // show (not required) reads it.
  expect(checkSavedPlanMac(keyless, none, 'p.json', false).ok).toBe(true);
  // A signed plan given an `unverified` reason is changed content.
  const signed = roundTrip(withSavedPlanMac(unsigned(), key));
  const marked = checkSavedPlanMac({ ...signed, unverified: 'edited' }, key, 'p.json', true);
  expect(!marked.ok && marked.error.message).toContain('its content does not match its MAC');
});

describe('from format version 2 on, the MAC covers the set the stack belongs to', () => {
  const set = { stacks: ['base', 'prod'], dependencies: { base: [], prod: ['base'] } };
  const v2 = (): SavedPlan => ({ ...unsigned(), format_version: 2 });

  test('the same set checks; another order, another dependency, a stack dropped or added is refused', () => {
    const signed = roundTrip(withSavedPlanMac(v2(), key, set));
    expect(checkSavedPlanMac(signed, key, 'p.json', true, set).ok).toBe(true);
    for (const other of [
      { stacks: ['prod', 'base'], dependencies: set.dependencies },
      { stacks: set.stacks, dependencies: { base: [], prod: [] } },
      { stacks: ['prod'], dependencies: { prod: ['base'] } },
      { stacks: ['base', 'prod', 'extra'], dependencies: { ...set.dependencies, extra: [] } },
    ]) {
      const checked = checkSavedPlanMac(signed, key, 'p.json', true, other);
      expect(!checked.ok && checked.error.message).toContain('its content does not match its MAC');
    }
  });

  test('a version 1 plan (made before) is checked as it was made; relabelling a version 2 plan as 1 is refused', () => {
    const old = roundTrip(withSavedPlanMac(unsigned(), key));
    expect(checkSavedPlanMac(old, key, 'p.json', true, set).ok).toBe(true);
    const relabelled = { ...roundTrip(withSavedPlanMac(v2(), key, set)), format_version: 1 as const };
    const checked = checkSavedPlanMac(relabelled, key, 'p.json', true, set);
    expect(!checked.ok && checked.error.message).toContain('its content does not match its MAC');
  });
});

test('another key is named as such; a plan with a MAC and no key to check it is refused by apply, shown by show', () => {
  const signed = roundTrip(withSavedPlanMac(unsigned(), key));
  const other = FingerprintKey.keyed(Buffer.from('another-key'), 'KV v2 secret secret/x on the service');
  const checked = checkSavedPlanMac(signed, other, 'p.json', true);
  expect(!checked.ok && checked.error.message).toContain(`its MAC was made with another key (key id ${key.keyId}, from SECRETFORM_STATE_KEY)`);
  const none = FingerprintKey.none('cannot read the key');
  expect(checkSavedPlanMac(signed, none, 'p.json', true).ok).toBe(false);
  expect(checkSavedPlanMac(signed, none, 'p.json', false).ok).toBe(true);
});

test('the MAC is not a fingerprint of the same text', async () => {
  const text = 'some text';
  expect(await key.fingerprint(text)).not.toContain(key.mac('saved plan', text)!);
});
