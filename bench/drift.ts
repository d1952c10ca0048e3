/**
 * The drift rows of the bench (`npm run bench -- --drift`, also part of a full run at 10,000): what issue 32 asks
 * of `secretform drift`.
 *
 * - A drift check costs what a refresh-only plan costs: `drift` (recording included) against `plan --refresh-only`
 *   of the same stack with 1% of its objects drifted, alternating, the median of each; target within 5%.
 * - The history after 1,000 recorded checks of the stack with 1% drifting (half the same objects every check,
 *   half coming and going: test/support/drift-history-workload.ts) is bounded: its bytes in a local file, and its
 *   rows and bytes in PostgreSQL's `drift_history`. The first 900 checks are classified in memory and stored once;
 *   the last 100 are recorded through the store one by one, as a check records (their time per check printed).
 * - A check's time does not grow with the history: `drift` (recorded) with a history of 1 check against the same
 *   stack with that 1,000-check history (each history put back before each run; alternating, medians); target
 *   within 5%.
 */
import { copyFileSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ok } from '../src/engine/errors';
import { MAX_CHECKS } from '../src/engine/drift/history';
import { FileDriftHistoryStore } from '../src/engine/state/drift-history-file';
import { PostgresDriftHistoryStore } from '../src/engine/state/drift-history-postgres';
import type { DriftHistoryStore } from '../src/engine/state/drift-history-store';
import { FingerprintKey } from '../src/engine/state/fingerprint';
import { parsePostgresUrl } from '../src/engine/state/state-location';
import { findPostgresBin, startPostgres } from '../test/support/postgres';
import { historyAfter, recordChecks, workloadObjects, type WorkloadObject } from '../test/support/drift-history-workload';
import { mixFor } from './mix';

/** What bench/run.ts lends this file: its server, its runs and its rows. */
export interface DriftBenchKit {
  startServer(size: number): Promise<{ url: string; close(): Promise<void>; requestCount(): Promise<{ count: number; busyMs: number }> }>;
  benchProject(size: number): string;
  env(server: { url: string }, size: number): NodeJS.ProcessEnv;
  run(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; seconds: number; stderr: string; stdout: string; peakRssMb?: number; cpuSeconds?: number; timedOut: boolean }>;
  rootToken: string;
  latencyMs: number;
  parallelism: number;
}

export interface DriftRow {
  figure: string;
  size: number;
  seconds?: number;
  requests?: number;
  floorSeconds?: number;
  target?: number;
  targetKind?: 'reference';
  referenceSeconds?: number;
  referenceName?: string;
  peakRssMb?: number;
  cpuSeconds?: number;
  note?: string;
  failed?: string;
}

const RUNS = 3;
const HISTORY_CHECKS = 1000;
const STORED_ONE_BY_ONE = 100;
const DRIFT_PERCENT = 1;
const WITHIN = 1.05;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function say(text: string): void {
  process.stdout.write(`  ${text}\n`);
}

export async function measureDrift(size: number, kit: DriftBenchKit, rows: { push(...added: DriftRow[]): unknown }): Promise<void> {
  const project = kit.benchProject(size);
  const server = await kit.startServer(size);
  try {
    const env = kit.env(server, size);
    const synth = await kit.run(['synth', '--synth-env', 'BENCH_ROOT', '--synth-env', 'BENCH_SIZE', '--synth-env', 'BENCH_STACK'], project, env);
    if (synth.code !== 0) throw new Error(`synth exited ${synth.code}: ${synth.stderr.slice(-300)}`);
    const applied = await kit.run(['apply', '--no-synth', '--auto-approve'], project, env);
    say(`apply: ${applied.seconds.toFixed(2)} s`);
    if (applied.code !== 0) throw new Error(`apply exited ${applied.code}: ${applied.stderr.slice(-300)}`);

    // 1% of the objects drifted outside the code: users given another token TTL.
    const drifted = Math.max(1, Math.round((size * DRIFT_PERCENT) / 100));
    const users = mixFor(size).users;
    if (drifted > users) throw new Error(`the bench stack of ${size} has ${users} users, fewer than the ${drifted} to drift`);
    await driftUsers(server.url, kit.rootToken, drifted);

    // Drift against a refresh-only plan, alternating so both see the machine as it is.
    const timed = async (args: string[]) => {
      const before = await server.requestCount();
      const result = await kit.run(args, project, env);
      const after = await server.requestCount();
      return { ...result, requests: after.count - before.count };
    };
    const plans: Awaited<ReturnType<typeof timed>>[] = [];
    const checks: Awaited<ReturnType<typeof timed>>[] = [];
    for (let i = 0; i < RUNS; i++) {
      plans.push(await timed(['plan', '--refresh-only', '--no-synth', '--format', 'json']));
      say(`plan --refresh-only: ${plans[i].seconds.toFixed(2)} s, ${plans[i].requests} requests`);
      checks.push(await timed(['drift', '--no-synth', '--format', 'json']));
      say(`drift (recorded): ${checks[i].seconds.toFixed(2)} s, ${checks[i].requests} requests`);
    }
    const failedPlan = plans.find((run) => run.code !== 0);
    const failedCheck = checks.find((run) => run.code !== 0);
    const report = failedCheck ? undefined : (JSON.parse(checks[checks.length - 1].stdout) as { summary: { drifted: number } });
    const planSeconds = median(plans.map((run) => run.seconds));
    const checkSeconds = median(checks.map((run) => run.seconds));
    const floor = (requests: number) => (requests * kit.latencyMs) / kit.parallelism / 1000;
    rows.push(
      {
        figure: 'drift: plan --refresh-only (reference)',
        size,
        seconds: planSeconds,
        requests: plans[0].requests,
        floorSeconds: floor(plans[0].requests),
        peakRssMb: Math.max(...plans.map((run) => run.peakRssMb ?? 0)),
        cpuSeconds: median(plans.map((run) => run.cpuSeconds ?? 0)),
        note: `median of ${RUNS}, alternating with drift`,
        failed: failedPlan ? `plan --refresh-only exited ${failedPlan.code}: ${failedPlan.stderr.slice(-300)}` : undefined,
      },
      {
        figure: 'drift: check, recorded',
        size,
        seconds: checkSeconds,
        requests: checks[0].requests,
        floorSeconds: floor(checks[0].requests),
        target: WITHIN,
        targetKind: 'reference',
        referenceSeconds: planSeconds,
        referenceName: 'plan --refresh-only',
        peakRssMb: Math.max(...checks.map((run) => run.peakRssMb ?? 0)),
        cpuSeconds: median(checks.map((run) => run.cpuSeconds ?? 0)),
        note: `${(checkSeconds / planSeconds).toFixed(3)}x plan --refresh-only; median of ${RUNS}`,
        failed: failedCheck
          ? `drift exited ${failedCheck.code}: ${failedCheck.stderr.slice(-300)}`
          : report!.summary.drifted !== drifted ? `${report!.summary.drifted} drifted objects reported, ${drifted} drifted` : undefined,
      },
    );

    // The history after 1,000 checks: a local file, then PostgreSQL.
    const objects = workloadObjects('bench', size);
    const key = FingerprintKey.keyed(Buffer.from('bench-drift-history-key'), 'bench');
    const many = join(project, 'many');
    mkdirSync(many);
    const fileStore = new FileDriftHistoryStore(join(many, 'bench.state.json'));
    const fileFill = await fillHistory(fileStore, objects, key);
    const fileBytes = statSync(fileStore.path).size;
    const kept = JSON.parse(readFileSync(fileStore.path, 'utf8')) as { checks: unknown[]; episodes: unknown[]; episode_counts: Record<string, number> };
    say(`history file after ${HISTORY_CHECKS} checks: ${fileBytes} bytes`);
    rows.push({
      figure: `drift: history after ${HISTORY_CHECKS.toLocaleString('en-US')} checks, local file`,
      size,
      note: `${fileBytes.toLocaleString('en-US')} bytes (${kept.checks.length} checks, ${kept.episodes.length} episodes, ${Object.keys(kept.episode_counts).length} counted objects kept); ${fileFill.toFixed(1)} ms per recorded check (the last ${STORED_ONE_BY_ONE})`,
      failed: kept.checks.length === MAX_CHECKS ? undefined : `${kept.checks.length} checks kept, expected ${MAX_CHECKS}`,
    });
    await measurePostgresHistory(size, objects, key, rows);

    // A check's time at a history of 1 check and at the history of 1,000: the same state, alternating.
    const one = join(project, 'one');
    mkdirSync(one);
    const state = join(project, '.secretform', 'bench.state.json');
    copyFileSync(state, join(one, 'bench.state.json'));
    copyFileSync(state, join(many, 'bench.state.json'));
    const first = await kit.run(['drift', '--no-synth', '--format', 'json', '--state', join(one, 'bench.state.json')], project, env);
    if (first.code !== 0) throw new Error(`drift with a new history exited ${first.code}: ${first.stderr.slice(-300)}`);
    // Each measured check is recorded, and sees the same history length: the history is put back before every run.
    const histories = { one: readFileSync(join(one, 'bench.drift.json')), many: readFileSync(join(many, 'bench.drift.json')) };
    const checkWith = async (which: 'one' | 'many') => {
      const dir = which === 'one' ? one : many;
      writeFileSync(join(dir, 'bench.drift.json'), histories[which], { mode: 0o600 });
      return kit.run(['drift', '--no-synth', '--format', 'json', '--state', join(dir, 'bench.state.json')], project, env);
    };
    const short: Awaited<ReturnType<typeof kit.run>>[] = [];
    const long: Awaited<ReturnType<typeof kit.run>>[] = [];
    for (let i = 0; i < RUNS; i++) {
      short.push(await checkWith('one'));
      say(`drift, history of 1 check: ${short[i].seconds.toFixed(2)} s`);
      long.push(await checkWith('many'));
      say(`drift, history of ${HISTORY_CHECKS} checks: ${long[i].seconds.toFixed(2)} s`);
    }
    const shortSeconds = median(short.map((run) => run.seconds));
    const longSeconds = median(long.map((run) => run.seconds));
    const failedRun = [...short, ...long].find((run) => run.code !== 0);
    rows.push(
      { figure: 'drift: check, history of 1 check', size, seconds: shortSeconds, cpuSeconds: median(short.map((run) => run.cpuSeconds ?? 0)), note: `reference; recorded; median of ${RUNS}, alternating` },
      {
        figure: `drift: check, history of ${HISTORY_CHECKS.toLocaleString('en-US')} checks`,
        size,
        seconds: longSeconds,
        cpuSeconds: median(long.map((run) => run.cpuSeconds ?? 0)),
        target: WITHIN,
        targetKind: 'reference',
        referenceSeconds: shortSeconds,
        referenceName: 'history of 1',
        note: `${(longSeconds / shortSeconds).toFixed(3)}x the check at a history of 1; recorded; median of ${RUNS}`,
        failed: failedRun ? `drift exited ${failedRun.code}: ${failedRun.stderr.slice(-300)}` : undefined,
      },
    );
  } finally {
    await server.close();
    rmSync(project, { recursive: true, force: true });
  }
}

/** `count` users of the bench stack changed on the service (token TTL), 10 requests at a time. */
async function driftUsers(url: string, token: string, count: number): Promise<void> {
  for (let from = 0; from < count; from += 10) {
    await Promise.all(Array.from({ length: Math.min(10, count - from) }, async (_, i) => {
      const response = await fetch(`${url}/v1/auth/userpass/users/user-${from + i}`, { method: 'POST', headers: { 'X-Service-Token': token, 'content-type': 'application/json' }, body: JSON.stringify({ token_ttl: 7200 }) });
      if (!response.ok) throw new Error(`drifting user-${from + i}: HTTP ${response.status} ${await response.text()}`);
    }));
  }
}

/** 1,000 checks in `store`: the first classified in memory and stored once, the rest recorded one by one. */
async function fillHistory(store: DriftHistoryStore, objects: readonly WorkloadObject[], key: FingerprintKey): Promise<number> {
  const start = new Date(Date.UTC(2026, 0, 1));
  const options = { percent: DRIFT_PERCENT, key, start };
  const bulk = HISTORY_CHECKS - STORED_ONE_BY_ONE;
  const written = await store.update(() => ok({ document: historyAfter('bench', objects, { ...options, count: bulk }), value: undefined }));
  if (!written.ok) throw new Error(written.error.message);
  const started = performance.now();
  await recordChecks(store, 'bench', objects, { ...options, from: bulk, count: STORED_ONE_BY_ONE });
  return (performance.now() - started) / STORED_ONE_BY_ONE;
}

async function measurePostgresHistory(size: number, objects: readonly WorkloadObject[], key: FingerprintKey, rows: { push(...added: DriftRow[]): unknown }): Promise<void> {
  const figure = `drift: history after ${HISTORY_CHECKS.toLocaleString('en-US')} checks, PostgreSQL`;
  const found = findPostgresBin();
  if (!('bin' in found)) {
    rows.push({ figure, size, note: `not measured: ${found.missing}` });
    return;
  }
  const pg = await startPostgres();
  try {
    const location = parsePostgresUrl(pg.url('bench_drift'));
    if (!location.ok) throw new Error(location.error.message);
    const store = new PostgresDriftHistoryStore(location.value, 'bench');
    let perCheck: number;
    try {
      perCheck = await fillHistory(store, objects, key);
    } finally {
      await store.close();
    }
    const { Client } = await import('pg');
    const client = new Client({ connectionString: pg.url().replace(/\?.*$/, '') });
    await client.connect();
    try {
      const { rows: found } = await client.query<{ rows: string; text_bytes: number; stored_bytes: number; table_bytes: string }>(
        `SELECT count(*) AS rows, max(octet_length(document::text)) AS text_bytes, max(pg_column_size(document)) AS stored_bytes,
                pg_total_relation_size('bench_drift.drift_history') AS table_bytes FROM bench_drift.drift_history`,
      );
      const [measured] = found;
      say(`history in PostgreSQL after ${HISTORY_CHECKS} checks: ${measured.rows} row(s), ${measured.text_bytes} bytes as JSON`);
      rows.push({
        figure,
        size,
        note: `${measured.rows} row; document ${Number(measured.text_bytes).toLocaleString('en-US')} bytes as JSON, ${Number(measured.stored_bytes).toLocaleString('en-US')} stored (jsonb, compressed); table with TOAST and index ${Number(measured.table_bytes).toLocaleString('en-US')} bytes; ${perCheck.toFixed(1)} ms per recorded check (the last ${STORED_ONE_BY_ONE})`,
        failed: measured.rows === '1' ? undefined : `${measured.rows} rows for one stack`,
      });
    } finally {
      await client.end();
    }
  } finally {
    pg.stop();
  }
}
