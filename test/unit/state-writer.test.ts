import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { StateWriter } from '../../src/engine/state/state-writer';
import { journalPathOf } from '../../src/engine/state/journal';
import { LocalStateBackend } from '../../src/engine/state/local-backend';
import { readState, type ResourceState } from '../../src/engine/state/state-file';
import { tempDir } from '../support/temp-dir';

const entry = (n: number): ResourceState => ({ type: 'userpass_user', id: `auth/userpass/users/u${n}`, attributes: { username: `u${n}` }, secrets: {}, dependencies: [], applied_at: '2026-01-01T00:00:00.000Z' });

async function lockedBackend(): Promise<{ backend: LocalStateBackend; path: string }> {
  const path = join(tempDir('secretform-writer-'), 'st.state.json');
  const backend = new LocalStateBackend(path, 'st');
  const lock = await backend.lock({ command: 'test', timeoutMs: 0 });
  if (!lock.ok) throw lock.error;
  return { backend, path };
}

describe('StateWriter', () => {
  test('groups the changes of operations finishing together into few writes; each resolves once stored', async () => {
    const { backend, path } = await lockedBackend();
    const state = await backend.read();
    if (!state.ok) throw state.error;
    const writer = new StateWriter(backend, state.value, 'secretform apply');
    const stored: number[] = [];
    await Promise.all(Array.from({ length: 50 }, (_, n) => writer.set(`st/u${n}`, entry(n)).then(() => stored.push(n))));
    expect(stored).toHaveLength(50);
    const records = readFileSync(journalPathOf(path), 'utf8').trim().split('\n').length - 1;
    expect(records).toBeGreaterThanOrEqual(1);
    expect(records).toBeLessThan(50);
    expect(writer.state.serial).toBe(records);
    expect(await writer.finish()).toBeUndefined();
    const file = JSON.parse(readFileSync(path, 'utf8'));
    expect(Object.keys(file.resources)).toHaveLength(50);
    expect(file.serial).toBe(records);
    await backend.close();
  });

  test('replaceResources writes only the differences, and a forget is stored as one', async () => {
    const { backend, path } = await lockedBackend();
    const state = await backend.read();
    if (!state.ok) throw state.error;
    const writer = new StateWriter(backend, state.value, 'secretform apply');
    await writer.set('st/a', entry(1));
    await writer.set('st/b', entry(2));
    const { ['st/a']: _a, ...rest } = writer.state.resources;
    writer.replaceResources({ ...rest, 'st/c': entry(3) });
    await writer.save();
    const lines = readFileSync(journalPathOf(path), 'utf8').trim().split('\n');
    expect(JSON.parse(lines[lines.length - 1])).toEqual({ serial: 3, set: { 'st/c': entry(3) }, del: ['st/a'] });
    await backend.close();
  });

  test('a refused write rejects its operations and every later one, and is reported as the failure', async () => {
    const { backend } = await lockedBackend();
    const state = await backend.read();
    if (!state.ok) throw state.error;
    // Based on a serial the stored state never had: the backend refuses it.
    const writer = new StateWriter(backend, { ...state.value, serial: 7 }, 'secretform apply');
    await expect(writer.set('st/a', entry(1))).rejects.toMatchObject({ code: 'state_conflict' });
    await expect(writer.set('st/b', entry(2))).rejects.toMatchObject({ code: 'state_conflict' });
    expect(writer.failure?.code).toBe('state_conflict');
    expect((await writer.finish())?.code).toBe('state_conflict');
    await backend.close();
  });

  describe('the service the stack is applied to', () => {
    const SERVICE = 'https://vault-a.example:8200';

    test('goes with the first write, into the journal and the folded file; a crash after it keeps it', async () => {
      const { backend, path } = await lockedBackend();
      const state = await backend.read();
      if (!state.ok) throw state.error;
      const writer = new StateWriter(backend, state.value, 'secretform apply', SERVICE);
      await writer.set('st/a', entry(1));
      await writer.set('st/b', entry(2));
      const lines = readFileSync(journalPathOf(path), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
      expect(lines[1]).toEqual({ serial: 1, set: { 'st/a': entry(1) }, del: [], service: SERVICE });
      expect(lines[2]).toEqual({ serial: 2, set: { 'st/b': entry(2) }, del: [] });
      // Not folded yet (as after a crash): a reader applies the journal, service included.
      const reader = await new LocalStateBackend(path, 'st').read();
      expect(reader.ok && reader.value.service).toBe(SERVICE);
      expect(await writer.finish()).toBeUndefined();
      const folded = await readState(path, 'st');
      expect(folded.ok && folded.value.service).toBe(SERVICE);
      expect(JSON.parse(readFileSync(path, 'utf8')).service).toBe(SERVICE);
      await backend.close();
    });

    test('an older state with objects and nothing to change gets it at finish; an empty state with nothing to write stays unwritten', async () => {
      const { backend, path } = await lockedBackend();
      const state = await backend.read();
      if (!state.ok) throw state.error;
      const first = new StateWriter(backend, state.value, 'secretform apply');
      await first.set('st/a', entry(1));
      expect(await first.finish()).toBeUndefined();
      expect(JSON.parse(readFileSync(path, 'utf8')).service).toBeUndefined();
      const older = await backend.read();
      if (!older.ok) throw older.error;
      const next = new StateWriter(backend, older.value, 'secretform apply', SERVICE);
      expect(await next.finish()).toBeUndefined();
      const file = JSON.parse(readFileSync(path, 'utf8'));
      expect(file).toMatchObject({ serial: 2, service: SERVICE });
      expect(Object.keys(file.resources)).toEqual(['st/a']);
      await backend.close();

      const empty = await lockedBackend();
      const nothing = await empty.backend.read();
      if (!nothing.ok) throw nothing.error;
      expect(await new StateWriter(empty.backend, nothing.value, 'secretform apply', SERVICE).finish()).toBeUndefined();
      expect(() => readFileSync(empty.path, 'utf8')).toThrow();
      await empty.backend.close();
    });
  });
});
