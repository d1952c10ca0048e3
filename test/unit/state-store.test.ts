import { existsSync, mkdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { emptyState, readState, writeState } from '../../src/engine/state/state-file';
import { forceUnlockStateFile, lockStateFile } from '../../src/engine/state/state-lock';
import { tempDir } from '../support/temp-dir';

const dir = () => tempDir('secretform-state-');

describe('state file', () => {
  it('reads a missing state file as an empty state of the stack', async () => {
    const result = await readState(join(dir(), 'none.json'), 'prod');
    expect(result.ok && result.value.resources).toEqual({});
    expect(result.ok && result.value.stack).toBe('prod');
  });

  it('writes atomically with mode 0600, bumps the serial, and reads back what it wrote', async () => {
    const path = join(dir(), 'state.json');
    const state = emptyState('prod');
    state.resources['prod/ldap/role'] = {
      type: 'ldap_static_role',
      id: 'ldap/static-role/role',
      attributes: { rotation_period: 3600 },
      secrets: {},
      dependencies: [],
      applied_at: '2026-01-01T00:00:00Z',
    };
    const written = await writeState(path, state);
    expect(written.ok && written.value.serial).toBe(1);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const read = await readState(path, 'prod');
    expect(read.ok && read.value.resources['prod/ldap/role'].attributes).toEqual({ rotation_period: 3600 });
  });

  it('reports a damaged state file with the path and the field, without throwing', async () => {
    const path = join(dir(), 'state.json');
    writeFileSync(path, JSON.stringify({ version: 1, lineage: 'x', serial: 'one', stack: 'prod', resources: {} }));
    const result = await readState(path, 'prod');
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error.code).toBe('state_corrupt');
    expect(!result.ok && result.error.message).toContain('serial');
    writeFileSync(path, '{ not json');
    const notJson = await readState(path, 'prod');
    expect(!notJson.ok && notJson.error.message).toMatch(/not valid JSON/);
  });

  it('refuses a state file of another stack', async () => {
    const path = join(dir(), 'state.json');
    await writeState(path, emptyState('staging'));
    const result = await readState(path, 'prod');
    expect(!result.ok && result.error.code).toBe('state_stack_mismatch');
  });
});

describe('state lock', () => {
  it('refuses a second lock on the same state until the first is released', async () => {
    const path = join(dir(), 'state.json');
    const request = { command: 'secretform test', timeoutMs: 0 };
    const first = await lockStateFile(path, request);
    expect(first.ok).toBe(true);
    const second = await lockStateFile(path, request);
    expect(!second.ok && second.error.code).toBe('state_locked');
    if (first.ok) await first.value.release();
    const third = await lockStateFile(path, request);
    expect(third.ok).toBe(true);
    if (third.ok) await third.value.release();
  });
});

describe('lock directories of earlier versions', () => {
  it('are taken over once older than 15 s (as those versions did), refused while fresh, and removed by force-unlock', async () => {
    const path = join(dir(), 'state.json');
    const request = { command: 'secretform test', timeoutMs: 0 };
    mkdirSync(`${path}.lock`);
    const fresh = await lockStateFile(path, request);
    expect(!fresh.ok && fresh.error.code).toBe('state_locked');
    const old = new Date(Date.now() - 20_000);
    utimesSync(`${path}.lock`, old, old);
    const taken = await lockStateFile(path, request);
    expect(taken.ok).toBe(true);
    if (taken.ok) await taken.value.release();
    mkdirSync(`${path}.lock`);
    forceUnlockStateFile(path);
    expect(existsSync(`${path}.lock`)).toBe(false);
  });
});
