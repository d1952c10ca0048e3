/**
 * A throwaway PostgreSQL cluster of the test's own: initdb into a temporary directory, the server on a free
 * port of 127.0.0.1 with its socket in that directory, a role with a password (so URLs carry one, and tests can
 * check it is never printed) and a database it owns; stopped and removed at the end. The server refuses to run
 * as root, so under root initdb and pg_ctl run as the `postgres` user (`runuser -u postgres --`).
 *
 * Without PostgreSQL the tests that need it are skipped with the reason printed; under CI (`CI=true`) a missing
 * PostgreSQL is a failure instead.
 */
import { execFileSync, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';

export const PG_USER = 'sf_team';
export const PG_PASSWORD = 'pg-url-password-7c41d';
export const PG_DATABASE = 'sf_state';

/** Where a jest run records the clusters it started, so the global teardown can stop any a crashed file left. */
export const CLUSTER_REGISTRY = join(tmpdir(), 'secretform-test-pg-clusters');

/** The bin directory of the newest PostgreSQL under /usr/lib/postgresql, or why there is none. */
export function findPostgresBin(): { bin: string } | { missing: string } {
  const base = '/usr/lib/postgresql';
  let versions: string[];
  try {
    versions = readdirSync(base).filter((name) => existsSync(join(base, name, 'bin', 'initdb')) && existsSync(join(base, name, 'bin', 'pg_ctl')));
  } catch {
    return { missing: `PostgreSQL is not installed (no ${base}; install the Debian package "postgresql")` };
  }
  if (versions.length === 0) return { missing: `PostgreSQL is not installed (no initdb/pg_ctl under ${base}/*/bin; install "postgresql")` };
  versions.sort((a, b) => Number(b) - Number(a));
  const asRoot = process.getuid?.() === 0;
  if (asRoot && spawnSync('id', ['-u', 'postgres']).status !== 0) return { missing: 'running as root, but there is no "postgres" user to run the server as' };
  return { bin: join(base, versions[0], 'bin') };
}

/**
 * `describe` for tests that need PostgreSQL: runs them when it is installed; otherwise skips them naming why, or,
 * under CI=true, fails.
 */
export function describeWithPostgres(name: string, body: () => void): void {
  const found = findPostgresBin();
  if ('bin' in found) {
    describe(name, body);
    return;
  }
  if (process.env.CI === 'true') {
    describe(name, () => {
      test('PostgreSQL is installed (required under CI)', () => {
        throw new Error(`${found.missing}; under CI these tests must run (.ci/run installs it)`);
      });
    });
    return;
  }
  process.stderr.write(`\n[skipped] ${name}: ${found.missing}\n`);
  describe.skip(name, body);
}

export interface PgCluster {
  /** postgres://sf_team:PASSWORD@127.0.0.1:PORT/sf_state, with `schema` if given. */
  url(schema?: string): string;
  port: number;
  /** A superuser client over the socket (trust), for inspecting tables. */
  admin(): Promise<Client>;
  /** Every row of every table of the database, as text (pg_dump --data-only). */
  dump(): string;
  stop(): void;
}

export async function startPostgres(): Promise<PgCluster> {
  const found = findPostgresBin();
  if (!('bin' in found)) throw new Error(found.missing);
  const { bin } = found;
  const asRoot = process.getuid?.() === 0;
  const template = await clusterTemplate(bin, asRoot);
  const cluster = await newCluster(bin, asRoot, 'secretform-pg-', template);
  const { dir, port } = cluster;
  return {
    port,
    url: (schema) => `postgres://${PG_USER}:${PG_PASSWORD}@127.0.0.1:${port}/${PG_DATABASE}${schema ? `?schema=${schema}` : ''}`,
    admin: async () => {
      const client = new Client({ host: dir, port, user: 'postgres', database: PG_DATABASE });
      await client.connect();
      return client;
    },
    dump: () => execFileSync(join(bin, 'pg_dump'), ['-h', dir, '-p', String(port), '-U', 'postgres', '--data-only', PG_DATABASE], { encoding: 'utf8' }),
    stop: () => stopCluster(dir, bin, asRoot, cluster.registration),
  };
}

/** Where a jest run keeps the cluster its files copy (see clusterTemplate); its global teardown removes it. */
export const TEMPLATE_PREFIX = 'secretform-test-pg-template-';

/**
 * The stopped cluster every file of this jest run copies instead of running initdb and making the role and the
 * database again (~2 s of CPU per file), or undefined outside a jest run (SECRETFORM_TEST_RUN_PID, set by the
 * global setup, whose teardown removes it): a bench then makes its cluster from scratch and leaves nothing behind.
 * Two workers may both find none and build one at once: each builds in its own directory and renames it into
 * place; the one that comes second removes its own and uses the other.
 */
async function clusterTemplate(bin: string, asRoot: boolean): Promise<string | undefined> {
  const runPid = process.env.SECRETFORM_TEST_RUN_PID;
  if (runPid === undefined) return undefined;
  const template = join(tmpdir(), `${TEMPLATE_PREFIX}${runPid}`);
  if (existsSync(join(template, 'ready'))) return template;
  const built = await newCluster(bin, asRoot, 'secretform-pg-template-build-', undefined);
  // A clean shutdown (not -m immediate): the copies then start without crash recovery.
  const stopped = pgTool(bin, asRoot, built.dir, 'pg_ctl', ['-D', join(built.dir, 'data'), '-m', 'fast', '-w', 'stop']);
  rmSync(built.registration, { force: true });
  if (stopped.status !== 0) {
    rmSync(built.dir, { recursive: true, force: true });
    throw new Error(`pg_ctl stop of the template cluster failed: ${stopped.stdout}${stopped.stderr}`);
  }
  writeFileSync(join(built.dir, 'ready'), '');
  try {
    renameSync(built.dir, template);
  } catch {
    rmSync(built.dir, { recursive: true, force: true });
  }
  return template;
}

/**
 * A running cluster in a new temporary directory (registered for the global teardown): a copy of `template`'s
 * data, or initdb and then the role and its database.
 */
async function newCluster(bin: string, asRoot: boolean, prefix: string, template: string | undefined): Promise<{ dir: string; port: number; registration: string }> {
  // Not a tempDir (test/support/temp-dir.ts): stopCluster and the global teardown stop the server before they
  // remove its directory, which a removal at the end of the file would not.
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  const run = (tool: string, args: string[]): void => {
    const result = pgTool(bin, asRoot, dir, tool, args);
    if (result.status !== 0) throw new Error(`${tool} ${args.join(' ')} failed: ${result.stdout}${result.stderr}`);
  };
  const data = join(dir, 'data');
  mkdirSync(CLUSTER_REGISTRY, { recursive: true });
  const registration = join(CLUSTER_REGISTRY, dir.split('/').pop()!);
  // The jest run that owns it (set by the global setup; this process when run without it).
  writeFileSync(registration, JSON.stringify({ dir, bin, asRoot, run: Number(process.env.SECRETFORM_TEST_RUN_PID ?? process.pid) }));
  if (template) {
    // cp -a keeps the owner (postgres, under root) and the modes the server insists on.
    const copied = spawnSync('cp', ['-a', join(template, 'data'), data], { encoding: 'utf8' });
    if (copied.status !== 0) throw new Error(`copying the template cluster ${template} failed: ${copied.stderr}`);
  } else {
    run('initdb', ['-D', data, '-U', 'postgres', '--auth-local=trust', '--auth-host=scram-sha-256', '-E', 'UTF8', '--no-sync', '--no-instructions']);
  }
  const port = await freePort();
  run('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '60', '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50`, 'start']);
  if (template) return { dir, port, registration };
  try {
    const client = new Client({ host: dir, port, user: 'postgres', database: 'postgres' });
    await client.connect();
    await client.query(`CREATE ROLE ${PG_USER} LOGIN PASSWORD '${PG_PASSWORD}'`);
    await client.query(`CREATE DATABASE ${PG_DATABASE} OWNER ${PG_USER}`);
    await client.end();
  } catch (error) {
    stopCluster(dir, bin, asRoot, registration);
    throw error;
  }
  return { dir, port, registration };
}

/** Runs a PostgreSQL tool of `bin` in `dir`, as the `postgres` user when this process is root. */
function pgTool(bin: string, asRoot: boolean, dir: string, tool: string, args: string[]): SpawnSyncReturns<string> {
  const command = asRoot ? 'runuser' : join(bin, tool);
  const argv = asRoot ? ['-u', 'postgres', '--', join(bin, tool), ...args] : args;
  return spawnSync(command, argv, { cwd: dir, encoding: 'utf8', timeout: 60_000 });
}

function stopCluster(dir: string, bin: string, asRoot: boolean, registration: string): void {
  const args = ['-D', join(dir, 'data'), '-m', 'immediate', '-w', 'stop'];
  spawnSync(asRoot ? 'runuser' : join(bin, 'pg_ctl'), asRoot ? ['-u', 'postgres', '--', join(bin, 'pg_ctl'), ...args] : args, { timeout: 30_000 });
  rmSync(dir, { recursive: true, force: true });
  rmSync(registration, { force: true });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
