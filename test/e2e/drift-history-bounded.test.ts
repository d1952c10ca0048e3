/**
 * The drift history stays bounded however many checks are recorded, as docs/drift.md says: hundreds of checks of
 * a stack with drift that stays and drift that comes and goes, recorded through the real stores (a file beside a
 * local state; the `drift_history` table of a real PostgreSQL) by the drift stage's own functions, keep at most
 * MAX_CHECKS checks and MAX_RESOLVED_EPISODES resolved episodes, the stored size stays under the documented
 * bound, and once the bounds are reached more checks do not make it grow. (The refresh is left out: the history
 * does not depend on it, and the CLI's recording is tested in cli-drift.test.ts.)
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { FileDriftHistoryStore } from '../../src/engine/state/drift-history-file';
import { PostgresDriftHistoryStore } from '../../src/engine/state/drift-history-postgres';
import type { DriftHistoryStore } from '../../src/engine/state/drift-history-store';
import { FingerprintKey } from '../../src/engine/state/fingerprint';
import { parsePostgresUrl } from '../../src/engine/state/state-location';
import { bounded, emptyHistory, MAX_CHECKS, MAX_COUNTED_OBJECTS, MAX_RESOLVED_EPISODES, type DriftHistory } from '../../src/engine/drift/history';
import { describeWithPostgres, startPostgres, type PgCluster } from '../support/postgres';
import { ok } from '../../src/engine/errors';
import { historyAfter, recordChecks, workloadObjects, type WorkloadObject } from '../support/drift-history-workload';
import { tempDir } from '../support/temp-dir';

jest.setTimeout(180_000);

const STACK = 'bounded';
const KEY = FingerprintKey.keyed(Buffer.from('bounded-history-key'), 'test');
const START = new Date(Date.UTC(2026, 0, 1));
/** 200 objects, 10% drifting: 10 always, 10 more each check that are resolved at the next (1,000 resolved by check 100). */
const OBJECTS = workloadObjects(STACK, 200);
const PERCENT = 10;
/**
 * Past MAX_CHECKS (classified in memory, stored once: hundreds of store round trips would make the test slow),
 * then more recorded through the store one by one: the size must not grow once the bounds are reached.
 */
const FIRST = MAX_CHECKS + 20;
const MORE = 30;

/**
 * The bound docs/drift.md gives: about 70 bytes per kept check, 300 bytes plus the address per kept episode
 * (open or resolved, one drifted field), and the address plus 10 bytes per counted object.
 */
function documentedBound(history: DriftHistory): number {
  const longest = Math.max(...Object.keys(history.episode_counts).map((address) => address.length));
  const open = history.episodes.filter((episode) => episode.resolved_at === undefined).length;
  return MAX_CHECKS * 70 + (MAX_RESOLVED_EPISODES + open) * (300 + longest) + Object.keys(history.episode_counts).length * (longest + 10);
}

interface Stored {
  bytes: number;
  history: DriftHistory;
}

async function boundedUnderManyChecks(store: DriftHistoryStore, stored: () => Promise<Stored>, objects: readonly WorkloadObject[]): Promise<void> {
  const start = historyAfter(STACK, objects, { count: FIRST - 1, percent: PERCENT, key: KEY, start: START });
  const written = await store.update(() => ok({ document: start, value: undefined }));
  expect(written.ok).toBe(true);
  await recordChecks(store, STACK, objects, { from: FIRST - 1, count: 1, percent: PERCENT, key: KEY, start: START });
  const first = await stored();
  expect(first.history.checks).toHaveLength(MAX_CHECKS);
  expect(first.history.checks[0].at).toBe(new Date(START.getTime() + (FIRST - MAX_CHECKS) * 86_400_000).toISOString());
  expect(first.history.episodes.filter((episode) => episode.resolved_at !== undefined)).toHaveLength(MAX_RESOLVED_EPISODES);
  // The drift that stayed: its open episodes keep counting every check, older checks included.
  expect(first.history.episodes.filter((episode) => episode.resolved_at === undefined)).toEqual(
    expect.arrayContaining([expect.objectContaining({ address: `${STACK}/user-0`, checks: FIRST, first_seen: START.toISOString() })]),
  );
  expect(first.bytes).toBeLessThanOrEqual(documentedBound(first.history));

  await recordChecks(store, STACK, objects, { from: FIRST, count: MORE, percent: PERCENT, key: KEY, start: START });
  const later = await stored();
  expect(later.history.checks).toHaveLength(MAX_CHECKS);
  expect(later.history.episodes.filter((episode) => episode.resolved_at === undefined)[0]).toMatchObject({ checks: FIRST + MORE });
  expect(later.bytes).toBeLessThanOrEqual(documentedBound(later.history));
  // Not growing: the same counts of everything, the same size within a few bytes (timestamps and counters).
  expect(later.bytes).toBeLessThanOrEqual(first.bytes * 1.01);
}

test('episode counts: at most MAX_COUNTED_OBJECTS, those of the objects whose episodes are kept among them', () => {
  const at = (n: number) => new Date(START.getTime() + n * 1000).toISOString();
  const history = emptyHistory(STACK);
  const total = MAX_COUNTED_OBJECTS + 10;
  history.episode_counts = Object.fromEntries(Array.from({ length: total }, (_, n) => [`${STACK}/o${n}`, 1]));
  history.episodes = Array.from({ length: total }, (_, n) => ({ address: `${STACK}/o${n}`, type: 't', kind: 'changed', fields: {}, first_seen: at(n), last_seen: at(n), resolved_at: at(n + 1), checks: 1 }));
  const kept = bounded(history);
  expect(Object.keys(kept.episode_counts)).toHaveLength(MAX_COUNTED_OBJECTS);
  // The resolved episodes kept are the last MAX_RESOLVED_EPISODES: their objects keep their counts.
  for (let n = total - MAX_RESOLVED_EPISODES; n < total; n++) expect(kept.episode_counts[`${STACK}/o${n}`]).toBe(1);
});

test('a local history file: bounded in checks, episodes and bytes, not growing past the bounds', async () => {
  const dir = tempDir('secretform-drift-bounded-');
  const store = new FileDriftHistoryStore(join(dir, `${STACK}.state.json`));
  try {
    await boundedUnderManyChecks(store, () => {
      const text = readFileSync(store.path, 'utf8');
      return Promise.resolve({ bytes: statSync(store.path).size, history: JSON.parse(text) as DriftHistory });
    }, OBJECTS);
  } finally {
    await store.close();
  }
});

describeWithPostgres('PostgreSQL', () => {
  let pg: PgCluster;
  beforeAll(async () => {
    pg = await startPostgres();
  });
  afterAll(() => pg?.stop());

  test('the drift_history table: one row per stack, bounded in checks, episodes and bytes', async () => {
    const location = parsePostgresUrl(pg.url('drift_bounded'));
    if (!location.ok) throw new Error(location.error.message);
    const store = new PostgresDriftHistoryStore(location.value, STACK);
    const { Client } = await import('pg');
    const client = new Client({ connectionString: pg.url().replace(/\?.*$/, '') });
    await client.connect();
    try {
      await boundedUnderManyChecks(store, async () => {
        const { rows } = await client.query<{ rows: string; bytes: number; document: DriftHistory }>(
          'SELECT (SELECT count(*) FROM drift_bounded.drift_history) AS rows, octet_length(document::text) AS bytes, document FROM drift_bounded.drift_history WHERE stack = $1',
          [STACK],
        );
        expect(rows.map((row) => row.rows)).toEqual(['1']);
        return { bytes: rows[0].bytes, history: rows[0].document };
      }, OBJECTS);
    } finally {
      await client.end();
      await store.close();
    }
  });
});
