/**
 * The check that spares zod a well-formed drift history (history.ts `isWellFormedHistory`) never takes what the
 * schema refuses nor keeps what the schema would strip: whatever it accepts, the schema accepts and returns equal
 * (keys in any order: the document means the same). Histories near well-formed ones (a part replaced by any
 * JSON, dropped, an unknown key added, keys reordered, `__proto__` and `constructor` keys) are drawn with
 * fast-check (fixed seed); a real history (made by classify) takes the fast path; a damaged one still gets the
 * schema's message.
 */
import fc from 'fast-check';
import type { DriftEntry } from '../../src/engine/plan/plan';
import { FingerprintKey } from '../../src/engine/state/fingerprint';
import { emptyHistory, historySchema, isWellFormedHistory, parseHistory, type DriftHistory } from '../../src/engine/drift/history';
import { classify } from '../../src/engine/drift/statuses';

const SEED = 20261129;
const RUNS = 1000;

function object(entries: readonly (readonly [string, unknown])[]): Record<string, unknown> {
  return Object.fromEntries(entries.filter(([, value]) => value !== undefined));
}

const key = fc.oneof({ weight: 40, arbitrary: fc.constantFrom('s/a', 's/b', 'ttl', '', '0') }, { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'toString') });
const anyJson = fc.jsonValue({ maxDepth: 2 });
const mostly = <T>(good: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 40, arbitrary: good }, { weight: 1, arbitrary: anyJson }, { weight: 1, arbitrary: fc.constant(undefined) });
const text = fc.string({ maxLength: 8 });
const count = fc.oneof({ weight: 40, arbitrary: fc.nat(5) }, { weight: 1, arbitrary: fc.constantFrom(-1, 0.5, 2 ** 53, 0) });
const digests = fc.array(fc.tuple(key, mostly(text)), { maxLength: 3 }).map(object);

function shaped(parts: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<unknown> {
  const entries = fc.tuple(...Object.entries(parts).map(([name, value]) => value.map((drawn) => [name, drawn] as const)));
  const extra = fc.oneof({ weight: 10, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.tuple(key, anyJson) });
  const shuffle = fc.oneof({ weight: 10, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) });
  return fc.tuple(entries, extra, shuffle).map(([drawn, added, reversed]) => {
    const all: (readonly [string, unknown])[] = [...drawn, ...(added ? [added] : [])];
    return object(reversed ? [...all].reverse() : all);
  });
}

const check = shaped({ at: mostly(text), drifted: mostly(count), unacknowledged: mostly(count) });
const episode = shaped({
  address: mostly(text), type: mostly(text), kind: mostly(text), fields: mostly(digests), first_seen: mostly(text), last_seen: mostly(text),
  resolved_at: fc.oneof({ weight: 10, arbitrary: fc.constant(undefined) }, { weight: 10, arbitrary: text }, { weight: 1, arbitrary: anyJson }), checks: mostly(count),
});
const acknowledgement = shaped({
  by: mostly(text), at: mostly(text), reason: mostly(text), until: fc.oneof({ weight: 10, arbitrary: fc.constant(undefined) }, { weight: 10, arbitrary: text }, { weight: 1, arbitrary: anyJson }),
  kind: mostly(text), fields: mostly(digests),
});
const history = shaped({
  format: mostly(fc.constant('secretform-drift-history')),
  format_version: mostly(fc.constant(1)),
  stack: mostly(text),
  checks: mostly(fc.array(check, { maxLength: 3 })),
  episodes: mostly(fc.array(episode, { maxLength: 3 })),
  episode_counts: mostly(fc.array(fc.tuple(key, mostly(count)), { maxLength: 3 }).map(object)),
  acknowledgements: mostly(fc.array(fc.tuple(key, acknowledgement), { maxLength: 2 }).map(object)),
});

test('the fast check takes only what the schema takes, as the schema returns it', () => {
  let taken = 0;
  let refused = 0;
  fc.assert(fc.property(history, (value) => {
    const parsed = historySchema().safeParse(value);
    if (!isWellFormedHistory(value)) {
      if (!parsed.success) refused++;
      return;
    }
    taken++;
    expect(parsed.success).toBe(true);
    expect(value).toStrictEqual(parsed.data);
  }), { seed: SEED, numRuns: RUNS });
  // Both paths were exercised: the draws are near enough to well-formed, and far enough.
  expect(taken).toBeGreaterThan(RUNS / 20);
  expect(refused).toBeGreaterThan(RUNS / 20);
});

test('a history made by checks takes the fast path, also as PostgreSQL returns it (keys in its own order)', () => {
  const key = FingerprintKey.keyed(Buffer.from('fast-path-key'), 'test');
  const entry = (address: string, ttl: number): DriftEntry => ({ address, type: 'userpass_user', id: address, kind: 'changed', before: {}, after: {}, fields: [{ field: 'token_ttl', applied: 3600, live: ttl }] });
  let made: DriftHistory = emptyHistory('s');
  for (const [minute, drift] of [[0, [entry('s/a', 1)]], [1, [entry('s/a', 2), entry('s/b', 1)]], [2, []]] as const) {
    made = classify(made, drift, key, new Date(Date.UTC(2026, 0, 1, 0, minute))).next;
  }
  made = { ...made, acknowledgements: { 's/a': { by: 'ana', at: '2026-01-01T00:00:00.000Z', reason: 'r', until: '2026-02-01T00:00:00.000Z', kind: 'changed', fields: { token_ttl: 'mac:x' } } } };
  const stored = JSON.parse(JSON.stringify(made)) as unknown;
  expect(isWellFormedHistory(stored)).toBe(true);
  const reordered = JSON.parse(JSON.stringify(Object.fromEntries(Object.entries(made).reverse()))) as unknown;
  expect(isWellFormedHistory(reordered)).toBe(true);
  expect(parseHistory(reordered, 's', 'table t')).toEqual({ ok: true, value: made });
});

test('a damaged history still gets the schema\'s message, naming where', () => {
  const damaged = { ...emptyHistory('s'), episode_counts: { 's/a': 0 } };
  expect(isWellFormedHistory(damaged)).toBe(false);
  const parsed = parseHistory(damaged, 's', 'file h.json');
  expect(parsed.ok ? undefined : parsed.error).toMatchObject({ code: 'drift_history_corrupt', message: expect.stringContaining('at episode_counts.s/a') });
});
