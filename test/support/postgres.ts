/**
 * A throwaway PostgreSQL cluster of the test's own: initdb into a temporary directory, the server on a free
 * port of 127.0.0.1 with its socket in that directory, a role with a password (so URLs carry one, and tests can
 * check it is never printed) and a database it owns; stopped and removed at the end. The server refuses to run
 * as root, so under root initdb and pg_ctl run as the `postgres` user (`runuser -u postgres --`).
 *
 * Without PostgreSQL the tests that need it are skipped with the reason printed; under CI (`CI=true`) a missing
 * PostgreSQL is a failure instead.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { tempDir } from './temp-dir';

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
  const dir = tempDir('secretform-pg-');
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  const run = (tool: string, args: string[]): void => {
    const command = asRoot ? 'runuser' : join(bin, tool);
    const argv = asRoot ? ['-u', 'postgres', '--', join(bin, tool), ...args] : args;
    const result = spawnSync(command, argv, { cwd: dir, encoding: 'utf8', timeout: 60_000 });
    if (result.status !== 0) throw new Error(`${tool} ${args.join(' ')} failed: ${result.stdout}${result.stderr}`);
  };
  const data = join(dir, 'data');
  mkdirSync(CLUSTER_REGISTRY, { recursive: true });
  const registration = join(CLUSTER_REGISTRY, dir.split('/').pop()!);
  // The jest run that owns it (set by the global setup; this process when run without it).
  writeFileSync(registration, JSON.stringify({ dir, bin, asRoot, run: Number(process.env.SECRETFORM_TEST_RUN_PID ?? process.pid) }));
  run('initdb', ['-D', data, '-U', 'postgres', '--auth-local=trust', '--auth-host=scram-sha-256', '-E', 'UTF8', '--no-sync', '--no-instructions']);
  const port = await freePort();
  run('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '60', '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50`, 'start']);
  const stop = (): void => stopCluster(dir, bin, asRoot, registration);
  const admin = async (): Promise<Client> => {
    const client = new Client({ host: dir, port, user: 'postgres', database: 'postgres' });
    await client.connect();
    return client;
  };
  try {
    const client = await admin();
    await client.query(`CREATE ROLE ${PG_USER} LOGIN PASSWORD '${PG_PASSWORD}'`);
    await client.query(`CREATE DATABASE ${PG_DATABASE} OWNER ${PG_USER}`);
    await client.end();
  } catch (error) {
    stop();
    throw error;
  }
  return {
    port,
    url: (schema) => `postgres://${PG_USER}:${PG_PASSWORD}@127.0.0.1:${port}/${PG_DATABASE}${schema ? `?schema=${schema}` : ''}`,
    admin: async () => {
      const client = new Client({ host: dir, port, user: 'postgres', database: PG_DATABASE });
      await client.connect();
      return client;
    },
    dump: () => execFileSync(join(bin, 'pg_dump'), ['-h', dir, '-p', String(port), '-U', 'postgres', '--data-only', PG_DATABASE], { encoding: 'utf8' }),
    stop,
  };
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
