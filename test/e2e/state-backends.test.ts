/**
 * The state backends, in process: the local file (with its journal) and a real PostgreSQL (a throwaway cluster).
 * The same behaviour is checked on both: incremental writes based on lineage+serial, refusal of a write based on
 * an older state, locks that name their holder, wait with a timeout, never outlive their process, and history.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stateRestore } from '../../src/engine/run/state-commands';
import type { StateBackend } from '../../src/engine/state/backend';
import { journalPathOf } from '../../src/engine/state/journal';
import { LocalStateBackend } from '../../src/engine/state/local-backend';
import { openStateBackend } from '../../src/engine/state/open-backend';
import type { ResourceState } from '../../src/engine/state/state-file';
import { parsePostgresUrl, resolveStateLocation } from '../../src/engine/state/state-location';
import { lockPathOf } from '../../src/engine/state/state-lock';
import { startLockHolder } from '../support/lock-holder';
import { describeWithPostgres, PG_PASSWORD, startPostgres, type PgCluster } from '../support/postgres';
import { tempDir } from '../support/temp-dir';

jest.setTimeout(60_000);

const entry = (n: number, extra = ''): ResourceState => ({
  type: 'userpass_user',
  id: `auth/userpass/users/u${n}`,
  attributes: { username: `u${n}`, token_ttl: 3600, note: extra },
  secrets: { password: `hmac-sha256:key:fingerprint-${n}` },
  dependencies: [],
  applied_at: '2026-01-01T00:00:00.000Z',
});

const REQUEST = { command: 'secretform test', timeoutMs: 0 };

interface Kind {
  name: string;
  /** A state location (path or URL) of a fresh stack. */
  fresh(): string;
}

let pg: PgCluster | undefined;
let stackCounter = 0;

function open(where: string, stack = 'st'): StateBackend {
  const location = resolveStateLocation(where, {}, tmpdir(), stack);
  if (!location.ok) throw location.error;
  return openStateBackend(location.value, stack);
}

const local: Kind = { name: 'local file', fresh: () => join(tempDir('secretform-backend-'), 'st.state.json') };
const postgres: Kind = { name: 'PostgreSQL', fresh: () => pg!.url(`s${process.pid}_${(stackCounter += 1)}`) };

function behaviours(kind: Kind): void {
  test('an unwritten state reads empty; writes of changed entries and a checkpoint are read back, as a version of the history', async () => {
    const where = kind.fresh();
    const backend = open(where);
    const empty = await backend.read();
    expect(empty.ok && empty.value).toMatchObject({ serial: 0, resources: {} });
    expect((await backend.lock(REQUEST)).ok).toBe(true);
    const base = await backend.read();
    if (!base.ok) throw base.error;
    const first = await backend.write(base.value, [{ address: 'st/u1', entry: entry(1) }, { address: 'st/u2', entry: entry(2) }]);
    expect(first).toEqual({ ok: true, value: 1 });
    const second = await backend.write({ lineage: base.value.lineage, serial: 1 }, [{ address: 'st/u1', entry: undefined }, { address: 'st/u3', entry: entry(3) }]);
    expect(second).toEqual({ ok: true, value: 2 });
    expect((await backend.checkpoint('secretform apply')).ok).toBe(true);
    await backend.close();

    const reader = open(where);
    const read = await reader.read();
    expect(read.ok && read.value.serial).toBe(2);
    expect(read.ok && read.value.lineage).toBe(base.value.lineage);
    expect(read.ok && Object.keys(read.value.resources).sort()).toEqual(['st/u2', 'st/u3']);
    const history = await reader.history();
    expect(history.ok && history.value.map((v) => [v.serial, v.command, v.resources])).toEqual([[2, 'secretform apply', 2]]);
    await reader.close();
  });

  test('a write based on an older serial or another lineage is refused and changes nothing', async () => {
    const where = kind.fresh();
    const first = open(where);
    await first.lock(REQUEST);
    const base = await first.read();
    if (!base.ok) throw base.error;
    await first.write(base.value, [{ address: 'st/u1', entry: entry(1) }]);
    const stale = await first.write(base.value, [{ address: 'st/u9', entry: entry(9) }]);
    expect(!stale.ok && stale.error.code).toBe('state_conflict');
    expect(!stale.ok && stale.error.message).toMatch(/changed since this command read it: it is now at serial 1, not 0/);
    const otherLineage = await first.write({ lineage: 'another-lineage', serial: 1 }, [{ address: 'st/u9', entry: entry(9) }]);
    expect(!otherLineage.ok && otherLineage.error.code).toBe('state_conflict');
    await first.checkpoint('secretform apply');
    await first.close();
    const read = await open(where).read();
    expect(read.ok && Object.keys(read.value.resources)).toEqual(['st/u1']);
  });

  test('the lock names its holder; a second command fails at once, or waits with a timeout until it is released', async () => {
    const where = kind.fresh();
    const holder = open(where);
    const held = await holder.lock({ command: 'secretform apply', timeoutMs: 0 });
    if (!held.ok) throw held.error;
    const other = open(where);
    const refused = await other.lock(REQUEST);
    expect(!refused.ok && refused.error.code).toBe('state_locked');
    expect(!refused.ok && refused.error.message).toContain(`is locked by secretform apply (pid ${process.pid} on host`);
    expect(!refused.ok && refused.error.message).toContain('secretform force-unlock');
    const started = Date.now();
    const timedOut = await other.lock({ command: 'secretform test', timeoutMs: 300 });
    expect(!timedOut.ok && timedOut.error.message).toContain('waited 300ms');
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    setTimeout(() => void held.value.release(), 300);
    const waited = await other.lock({ command: 'secretform test', timeoutMs: 10_000 });
    expect(waited.ok).toBe(true);
    await other.close();
    await holder.close();
  });

  test('a lock whose holder was killed (SIGKILL) is taken at once by the next command', async () => {
    const where = kind.fresh();
    const holder = await startLockHolder(where, 'st', 'hold');
    const backend = open(where);
    const refused = await backend.lock(REQUEST);
    expect(!refused.ok && refused.error.message).toContain(`secretform apply (pid ${holder.child.pid} on host`);
    holder.child.kill('SIGKILL');
    await holder.exited;
    // PostgreSQL notices the dead connection when the socket closes; poll briefly for that, never 15 s.
    const started = Date.now();
    const taken = await backend.lock({ command: 'secretform test', timeoutMs: kind === postgres ? 5000 : 0 });
    expect(taken.ok).toBe(true);
    expect(Date.now() - started).toBeLessThan(5000);
    await backend.close();
  });

  test.each(['throw', 'exit', 'epipe'] as const)('a command ending by %s leaves no lock behind', async (mode) => {
    const where = kind.fresh();
    const holder = await startLockHolder(where, 'st', mode);
    if (mode === 'epipe') {
      holder.child.stdout!.destroy();
      holder.child.stdin!.write('go\n');
    }
    const code = await holder.exited;
    expect(code).not.toBe(0);
    const backend = open(where);
    const holderNow = await backend.lockHolder();
    expect(holderNow).toEqual({ ok: true, value: undefined });
    if (kind === local) expect(existsSync(lockPathOf(where))).toBe(false);
    expect((await backend.lock(REQUEST)).ok).toBe(true);
    await backend.close();
  });

  test('force-unlock removes a live holder\'s lock and says whose it was', async () => {
    const where = kind.fresh();
    const holder = await startLockHolder(where, 'st', 'hold');
    try {
      const backend = open(where);
      const removed = await backend.forceUnlock();
      expect(removed.ok && removed.value?.pid).toBe(holder.child.pid);
      expect(removed.ok && removed.value?.command).toBe('secretform apply');
      expect((await backend.lock({ command: 'secretform test', timeoutMs: 2000 })).ok).toBe(true);
      await backend.close();
    } finally {
      holder.child.kill('SIGKILL');
    }
  });

  test('history keeps the last versions; a kept version can be read back and replaced in as a new serial', async () => {
    const where = kind.fresh();
    const backend = open(where);
    await backend.lock(REQUEST);
    let state = await backend.read();
    if (!state.ok) throw state.error;
    for (let n = 1; n <= 3; n += 1) {
      const serial = await backend.write(state.value, [{ address: `st/u${n}`, entry: entry(n) }]);
      if (!serial.ok) throw serial.error;
      state = { ok: true, value: { ...state.value, serial: serial.value } };
      await backend.checkpoint(`secretform apply #${n}`);
    }
    const history = await backend.history();
    expect(history.ok && history.value.map((v) => [v.serial, v.command])).toEqual([[3, 'secretform apply #3'], [2, 'secretform apply #2'], [1, 'secretform apply #1']]);
    const v1 = await backend.version(1);
    expect(v1.ok && Object.keys(v1.value.resources)).toEqual(['st/u1']);
    const restored = await backend.replace(state.value, { lineage: state.value.lineage, resources: v1.ok ? v1.value.resources : {} }, 'secretform state restore 1');
    expect(restored.ok && restored.value.serial).toBe(4);
    const missing = await backend.version(99);
    expect(!missing.ok && missing.error.message).toContain('keeps no version with serial 99');
    await backend.close();
    const read = await open(where).read();
    expect(read.ok && [read.value.serial, Object.keys(read.value.resources)]).toEqual([4, ['st/u1']]);
  });
}

describe('local file backend', () => {
  behaviours(local);

  test('bytes written per operation do not grow with the size of the state, and the state file is written once, at the end', async () => {
    const journalBytesPerWrite = async (size: number): Promise<number[]> => {
      const path = local.fresh();
      const seed = new LocalStateBackend(path, 'st');
      await seed.lock(REQUEST);
      const base = await seed.read();
      if (!base.ok) throw base.error;
      const resources: Record<string, ResourceState> = {};
      for (let n = 0; n < size; n += 1) resources[`st/seed${n}`] = entry(n);
      await seed.replace(base.value, { lineage: base.value.lineage, resources }, 'seed');
      await seed.close();

      const backend = new LocalStateBackend(path, 'st');
      await backend.lock(REQUEST);
      const state = await backend.read();
      if (!state.ok) throw state.error;
      const stateFile = statSync(path);
      const sizes: number[] = [];
      let serial = state.value.serial;
      let before = 0;
      for (let n = 0; n < 5; n += 1) {
        const written = await backend.write({ lineage: state.value.lineage, serial }, [{ address: `st/new${n}`, entry: entry(1000 + n) }]);
        if (!written.ok) throw written.error;
        serial = written.value;
        const after = statSync(journalPathOf(path)).size;
        sizes.push(after - before);
        before = after;
      }
      // Not one byte of the state file was rewritten while the operations ran.
      expect(statSync(path).mtimeMs).toBe(stateFile.mtimeMs);
      expect(statSync(path).ino).toBe(stateFile.ino);
      await backend.checkpoint('secretform apply');
      expect(existsSync(journalPathOf(path))).toBe(false);
      await backend.close();
      return sizes.slice(1); // the first write also carries the journal header
    };
    const small = await journalBytesPerWrite(10);
    const large = await journalBytesPerWrite(3000);
    expect(large).toEqual(small);
    expect(Math.max(...large)).toBeLessThan(400);
  });

  test('a journal left by a killed command is applied by readers and folded by the next command that locks; a torn last line is ignored', async () => {
    const path = local.fresh();
    const writer = new LocalStateBackend(path, 'st');
    const lock = await writer.lock(REQUEST);
    const base = await writer.read();
    if (!base.ok || !lock.ok) throw new Error('setup');
    await writer.write(base.value, [{ address: 'st/u1', entry: entry(1) }]);
    await writer.write({ lineage: base.value.lineage, serial: 1 }, [{ address: 'st/u2', entry: entry(2) }]);
    // As if killed: no checkpoint (the lock goes as a dead holder's would); and a write cut short.
    await lock.value.release();
    writeFileSync(journalPathOf(path), `${readFileSync(journalPathOf(path), 'utf8')}{"serial":3,"set":{"st/u3"`);
    expect(existsSync(path)).toBe(false);

    const reader = await new LocalStateBackend(path, 'st').read();
    expect(reader.ok && [reader.value.serial, reader.value.lineage, Object.keys(reader.value.resources)]).toEqual([2, base.value.lineage, ['st/u1', 'st/u2']]);
    expect(existsSync(journalPathOf(path))).toBe(true); // a reader without the lock changes nothing

    const next = new LocalStateBackend(path, 'st');
    expect((await next.lock({ command: 'secretform apply', timeoutMs: 0 })).ok).toBe(true);
    const folded = await next.read();
    expect(folded.ok && folded.value.serial).toBe(2);
    expect(existsSync(journalPathOf(path))).toBe(false);
    expect(JSON.parse(readFileSync(path, 'utf8')).resources).toHaveProperty('st/u2');
    const history = await next.history();
    expect(history.ok && history.value[0].command).toMatch(/^recovery: folded the journal/);
    await next.close();
  });

  test('a damaged state file points at the history, and state restore brings a kept version back', async () => {
    const path = local.fresh();
    const backend = new LocalStateBackend(path, 'st');
    await backend.lock(REQUEST);
    const base = await backend.read();
    if (!base.ok) throw base.error;
    await backend.write(base.value, [{ address: 'st/u1', entry: entry(1) }]);
    await backend.checkpoint('secretform apply');
    await backend.close();
    writeFileSync(path, '{ "version": 1, "lineage": "x", "ser');
    const damaged = await new LocalStateBackend(path, 'st').read();
    expect(!damaged.ok && damaged.error.message).toContain('`secretform state restore SERIAL` brings one back');
    const options = { stack: 'st', desired: { kind: 'synth-output' as const, outdir: '/nonexistent' }, statePath: path, cwd: tmpdir(), env: {} };
    const restored = await stateRestore(options, 1);
    expect(restored.ok && [restored.value.serial, Object.keys(restored.value.resources)]).toEqual([2, ['st/u1']]);
    const read = await new LocalStateBackend(path, 'st').read();
    expect(read.ok && read.value.lineage).toBe(base.value.lineage);
  });

  test('a damaged journal line before the last is reported with its line, not silently dropped', async () => {
    const path = local.fresh();
    const writer = new LocalStateBackend(path, 'st');
    await writer.lock(REQUEST);
    const base = await writer.read();
    if (!base.ok) throw base.error;
    await writer.write(base.value, [{ address: 'st/u1', entry: entry(1) }]);
    await writer.close();
    const text = readFileSync(journalPathOf(path), 'utf8');
    writeFileSync(journalPathOf(path), `${text}garbage\n{"serial":3,"set":{},"del":[]}\n`);
    const read = await new LocalStateBackend(path, 'st').read();
    expect(!read.ok && read.error.code).toBe('state_corrupt');
    expect(!read.ok && read.error.message).toContain('is damaged at line 3');
  });
});

describeWithPostgres('PostgreSQL backend', () => {
  beforeAll(async () => {
    pg = await startPostgres();
  }, 60_000);
  afterAll(() => pg?.stop());

  behaviours(postgres);

  test('the tables are created on first use in the URL\'s schema, one row per resource; a write changes only its rows', async () => {
    const url = pg!.url('team_a');
    const backend = open(url, 'prod');
    await backend.lock(REQUEST);
    const base = await backend.read();
    if (!base.ok) throw base.error;
    const many = Array.from({ length: 50 }, (_, n) => ({ address: `prod/u${n}`, entry: entry(n) }));
    await backend.write(base.value, many);
    const admin = await pg!.admin();
    try {
      const tables = await admin.query("SELECT table_name FROM information_schema.tables WHERE table_schema = 'team_a' ORDER BY 1");
      expect(tables.rows.map((r) => r.table_name)).toEqual(['applied_digests', 'fingerprint_keys', 'locks', 'resources', 'services', 'states', 'versions']);
      const before = await admin.query("SELECT address, xmin::text AS xmin FROM team_a.resources WHERE stack = 'prod'");
      expect(before.rows).toHaveLength(50);
      await backend.write({ lineage: base.value.lineage, serial: 1 }, [{ address: 'prod/u7', entry: entry(7, 'changed') }]);
      const after = await admin.query("SELECT address, xmin::text AS xmin FROM team_a.resources WHERE stack = 'prod'");
      const changed = after.rows.filter((row) => before.rows.find((old) => old.address === row.address)?.xmin !== row.xmin).map((row) => row.address);
      expect(changed).toEqual(['prod/u7']);
      // A write by someone else in between (serial moved on): this command's next write is refused by the server.
      await admin.query("UPDATE team_a.states SET serial = serial + 1 WHERE stack = 'prod'");
      const refused = await backend.write({ lineage: base.value.lineage, serial: 2 }, [{ address: 'prod/u8', entry: entry(8, 'lost?') }]);
      expect(!refused.ok && refused.error.code).toBe('state_conflict');
      const u8 = await admin.query("SELECT entry->'attributes'->>'note' AS note FROM team_a.resources WHERE stack = 'prod' AND address = 'prod/u8'");
      expect(u8.rows[0].note).toBe('');
    } finally {
      await admin.end();
      await backend.close();
    }
  });

  test('the password may come from PGPASSWORD instead of the URL', async () => {
    const saved = process.env.PGPASSWORD;
    process.env.PGPASSWORD = PG_PASSWORD;
    try {
      const read = await open(pg!.url('pgpassword').replace(`:${PG_PASSWORD}@`, '@')).read();
      expect(read.ok && read.value.serial).toBe(0);
    } finally {
      if (saved === undefined) delete process.env.PGPASSWORD;
      else process.env.PGPASSWORD = saved;
    }
  });

  test('a wrong password or an unreachable server is reported without the password', async () => {
    const wrong = pg!.url().replace(PG_PASSWORD, 'Wrong-Secret-Pw-123');
    const failed = await open(wrong).read();
    expect(!failed.ok && failed.error.code).toBe('state_config');
    expect(!failed.ok && failed.error.message).not.toContain('Wrong-Secret-Pw-123');
    expect(!failed.ok && failed.error.message).toContain('postgres://sf_team:***@127.0.0.1');
    const unreachable = await open(`postgres://sf_team:${PG_PASSWORD}@127.0.0.1:1/sf_state`).read();
    expect(!unreachable.ok && unreachable.error.message).not.toContain(PG_PASSWORD);
    expect(!unreachable.ok && unreachable.error.message).toContain('cannot connect to the state database postgres://sf_team:***@127.0.0.1:1/sf_state');
  });
});

describe('state URLs', () => {
  test('postgres:// and postgresql:// URLs are parsed; the password is masked in what is shown; bad ones say why', () => {
    const parsed = parsePostgresUrl('postgresql://team:s3cr%40t@db.example:6543/infra?schema=prod_state&sslmode=require');
    expect(parsed.ok && parsed.value).toMatchObject({ host: 'db.example', port: 6543, user: 'team', password: 's3cr@t', database: 'infra', schema: 'prod_state', ssl: true, display: 'postgresql://team:***@db.example:6543/infra?schema=prod_state&sslmode=require' });
    const defaults = parsePostgresUrl('postgres://team@db/infra');
    expect(defaults.ok && [defaults.value.port, defaults.value.schema, defaults.value.password]).toEqual([5432, 'secretform', undefined]);
    const badSchema = parsePostgresUrl('postgres://team:pw-9@db/infra?schema=Robert%27;drop');
    expect(!badSchema.ok && badSchema.error.message).toMatch(/schema "Robert';drop" must be a lower-case identifier/);
    expect(!badSchema.ok && badSchema.error.message).not.toContain('pw-9');
    const unknown = resolveStateLocation('s3://bucket/state', {}, '/p', 'prod');
    expect(!unknown.ok && unknown.error.message).toContain('unsupported scheme "s3"');
    expect(resolveStateLocation(undefined, { SECRETFORM_STATE: 'postgres://u@h/d' }, '/p', 'prod')).toMatchObject({ ok: true, value: { kind: 'postgres' } });
    expect(resolveStateLocation('x/state.json', { SECRETFORM_STATE: 'postgres://u@h/d' }, '/p', 'prod')).toMatchObject({ ok: true, value: { kind: 'file', path: '/p/x/state.json' } });
    expect(resolveStateLocation(undefined, {}, '/p', 'prod')).toMatchObject({ ok: true, value: { kind: 'file', path: '/p/.secretform/prod.state.json' } });
  });
});
