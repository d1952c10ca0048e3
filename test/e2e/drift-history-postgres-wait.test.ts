/**
 * A drift history update on PostgreSQL that waits for its stack's history lock does not hold up the other stacks
 * that share its connection (postgres-connections.ts): the lock is tried, and tried again after a pause outside
 * the transaction. Before, the update waited inside `pg_advisory_xact_lock`, and every statement of the stacks on
 * its connection waited behind it until the lock's holder ended.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { PostgresDriftHistoryStore } from '../../src/engine/state/drift-history-postgres';
import { MAX_STATE_CONNECTIONS } from '../../src/engine/state/postgres-connections';
import { parsePostgresUrl } from '../../src/engine/state/state-location';
import { ok } from '../../src/engine/errors';
import { describeWithPostgres, startPostgres, type PgCluster } from '../support/postgres';

jest.setTimeout(120_000);

const SCHEMA = 'history_wait';

describeWithPostgres('PostgreSQL drift history', () => {
  let pg: PgCluster;
  beforeAll(async () => {
    pg = await startPostgres();
  });
  afterAll(() => pg?.stop());

  test('an update waiting for its stack\'s lock lets the stacks sharing its connection go on, and then records', async () => {
    const location = parsePostgresUrl(pg.url(SCHEMA));
    if (!location.ok) throw new Error(location.error.message);
    // The first store pins the first connection; as many more as the bound fill the others, so the last store
    // made shares the first one's connection (the least used, the first found).
    const waiting = new PostgresDriftHistoryStore(location.value, 'waiting');
    const fillers = Array.from({ length: MAX_STATE_CONNECTIONS - 1 }, (_, i) => new PostgresDriftHistoryStore(location.value, `filler-${i}`));
    const sharing = new PostgresDriftHistoryStore(location.value, 'sharing');
    const stores = [waiting, ...fillers, sharing];
    for (const store of stores) expect((await store.read()).ok).toBe(true);

    // Another session (another run's check of the same stack) holds the stack's history lock in its transaction.
    const { Client } = await import('pg');
    const other = new Client({ connectionString: pg.url().replace(/\?.*$/, '') });
    await other.connect();
    try {
      await other.query('BEGIN');
      await other.query('SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))', [`secretform:drift:${SCHEMA}`, 'waiting']);
      const update = waiting.update(() => ok({ document: { by: 'waiting' }, value: 'recorded' }));
      await sleep(300);

      const timer = new AbortController();
      const shared = await Promise.race([
        sharing.update(() => ok({ document: { by: 'sharing' }, value: 'shared' })),
        sleep(5_000, 'still waiting after 5 s', { signal: timer.signal }),
      ]);
      timer.abort();
      expect(shared).toEqual(ok('shared'));

      await other.query('COMMIT');
      expect(await update).toEqual(ok('recorded'));
      expect(await waiting.read()).toEqual(ok({ by: 'waiting' }));
      expect(await sharing.read()).toEqual(ok({ by: 'sharing' }));
    } finally {
      await other.end();
      for (const store of stores) await store.close();
    }
  });
});
