// Statuses of a drift check against the stack's history, the history's bounds, and the history's parse (damaged
// and newer histories), on plain values: no service, no store.
import type { DriftEntry } from '../../src/engine/plan/plan';
import { FingerprintKey } from '../../src/engine/state/fingerprint';
import { bounded, emptyHistory, MAX_CHECKS, MAX_RESOLVED_EPISODES, parseHistory, type DriftHistory } from '../../src/engine/drift/history';
import { alerts, classify } from '../../src/engine/drift/statuses';
import { fieldDigests } from '../../src/engine/drift/field-digest';

const KEY = FingerprintKey.keyed(Buffer.from('drift-unit-key'), 'test');
const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute));

function drifted(address: string, fields: Record<string, unknown>): DriftEntry {
  return {
    address,
    type: 'userpass_user',
    id: address,
    kind: 'changed',
    before: {},
    after: fields,
    fields: Object.entries(fields).map(([field, live]) => ({ field, applied: 'x', live })),
  };
}

/** Runs checks one after the other, each recorded; the statuses of the last. */
function checks(...seen: DriftEntry[][]): { history: DriftHistory; last: ReturnType<typeof classify> } {
  let history = emptyHistory('s');
  let last!: ReturnType<typeof classify>;
  seen.forEach((drift, index) => {
    last = classify(history, drift, KEY, at(index));
    history = last.next;
  });
  return { history, last };
}

test('new, then known, then changed, then resolved, then new again in a second episode', () => {
  const a1 = drifted('s/a', { ttl: 60 });
  const a2 = drifted('s/a', { ttl: 30 });
  expect(checks([a1]).last.drifted[0]).toMatchObject({ status: 'new', checks: 1, episodes: 1, since: at(0).toISOString() });
  expect(checks([a1], [a1]).last.drifted[0]).toMatchObject({ status: 'known', checks: 2, episodes: 1, since: at(0).toISOString() });
  expect(checks([a1], [a1], [a2]).last.drifted[0]).toMatchObject({ status: 'changed', checks: 3, episodes: 1 });
  const resolved = checks([a1], [a2], []);
  expect(resolved.last.drifted).toEqual([]);
  expect(resolved.last.resolved).toEqual([{ address: 's/a', type: 'userpass_user', kind: 'changed', since: at(0).toISOString(), resolved_at: at(2).toISOString(), checks: 2, episodes: 1 }]);
  expect(checks([a1], [], [a1]).last.drifted[0]).toMatchObject({ status: 'new', checks: 1, episodes: 2, since: at(2).toISOString() });
});

test('an acknowledgement covers exactly the drift it saw, until it expires', () => {
  const a1 = drifted('s/a', { ttl: 60 });
  const { history } = checks([a1]);
  const acknowledged: DriftHistory = { ...history, acknowledgements: { 's/a': { by: 'ana', at: at(0).toISOString(), reason: 'r', until: at(5).toISOString(), kind: 'changed', fields: fieldDigests(a1, KEY) } } };
  const covered = classify(acknowledged, [a1], KEY, at(1));
  expect(covered.drifted[0]).toMatchObject({ status: 'acknowledged', acknowledgement: { by: 'ana', expired: false } });
  expect(alerts(covered.drifted, 'any')).toBe(false);
  const expired = classify(acknowledged, [a1], KEY, at(5));
  expect(expired.drifted[0]).toMatchObject({ status: 'known', acknowledgement: { expired: true } });
  expect(alerts(expired.drifted, 'new')).toBe(false);
  expect(alerts(expired.drifted, 'any')).toBe(true);
  const further = classify(acknowledged, [drifted('s/a', { ttl: 1 })], KEY, at(1));
  expect(further.drifted[0]).toMatchObject({ status: 'changed', acknowledgement: null });
  expect(further.next.acknowledgements).toEqual({});
});

test('the history holds digests of the live values, never the values', () => {
  const { history } = checks([drifted('s/a', { description: 'a-very-visible-live-value' })]);
  const text = JSON.stringify(history);
  expect(text).not.toContain('a-very-visible-live-value');
  expect(history.episodes[0].fields.description).toMatch(/^mac:/);
  // Another key: another digest (a history cannot be tested against guesses without the key).
  const other = fieldDigests(drifted('s/a', { description: 'a-very-visible-live-value' }), FingerprintKey.keyed(Buffer.from('other'), 'test'));
  expect(other.description).not.toBe(history.episodes[0].fields.description);
});

test('bounded: the last checks and resolved episodes are kept, open episodes always', () => {
  const history = emptyHistory('s');
  history.checks = Array.from({ length: MAX_CHECKS + 10 }, (_, n) => ({ at: at(n).toISOString(), drifted: 1, unacknowledged: 1 }));
  history.episodes = [
    ...Array.from({ length: MAX_RESOLVED_EPISODES + 5 }, (_, n) => ({ address: `s/r${n}`, type: 't', kind: 'changed', fields: {}, first_seen: at(n).toISOString(), last_seen: at(n).toISOString(), resolved_at: at(n + 1).toISOString(), checks: 1 })),
    { address: 's/open', type: 't', kind: 'changed', fields: {}, first_seen: at(0).toISOString(), last_seen: at(0).toISOString(), checks: 1 },
  ];
  const kept = bounded(history);
  expect(kept.checks).toHaveLength(MAX_CHECKS);
  expect(kept.checks[0].at).toBe(at(10).toISOString());
  expect(kept.episodes).toHaveLength(MAX_RESOLVED_EPISODES + 1);
  expect(kept.episodes.some((episode) => episode.address === 's/open')).toBe(true);
  expect(kept.episodes.some((episode) => episode.address === 's/r0')).toBe(false);
});

test('parse: none yet, damaged (named), newer (refused), another stack', () => {
  expect(parseHistory(undefined, 's', 'file h')).toEqual({ ok: true, value: emptyHistory('s') });
  const damaged = parseHistory({ format: 'secretform-drift-history', format_version: 1, stack: 's', checks: 'many' }, 's', 'file h.json');
  expect(damaged.ok ? undefined : damaged.error).toMatchObject({ code: 'drift_history_corrupt', message: expect.stringContaining('the drift history file h.json is damaged') });
  const newer = parseHistory({ format_version: 2 }, 's', 'file h.json');
  expect(newer.ok ? undefined : newer.error).toMatchObject({ code: 'drift_history_newer', message: expect.stringContaining('written by a newer secretform') });
  const other = parseHistory(emptyHistory('t'), 's', 'file h.json');
  expect(other.ok ? undefined : other.error.message).toContain('is of stack "t", not "s"');
});
