/**
 * The applied digest in a local state (StateFile.applied_digest, state/state-writer.ts `finish(digest)`): recorded
 * with the serial of the apply's last write, kept without a new write when already current, left behind (stale:
 * its serial is not the state's) by a command that writes without one, and read back from a journal a crashed
 * command left. The PostgreSQL table is covered end to end (test/e2e/cli-changed-stacks.test.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { StateWriter } from '../../src/engine/state/state-writer';
import { LocalStateBackend } from '../../src/engine/state/local-backend';
import { readAppliedRecords } from '../../src/engine/state/applied-records';
import type { ResourceState } from '../../src/engine/state/state-file';
import { tempDir } from '../support/temp-dir';

const DIGEST = `sha256:${'a'.repeat(64)}`;
const OTHER = `sha256:${'b'.repeat(64)}`;
const entry = (n: number): ResourceState => ({ type: 'userpass_user', id: `auth/userpass/users/u${n}`, attributes: { username: `u${n}` }, secrets: {}, dependencies: [], applied_at: '2026-01-01T00:00:00.000Z' });

async function command(path: string, work: (writer: StateWriter) => Promise<void>, digest?: string): Promise<void> {
  const backend = new LocalStateBackend(path, 'st');
  const lock = await backend.lock({ command: 'test', timeoutMs: 0 });
  if (!lock.ok) throw lock.error;
  const state = await backend.read();
  if (!state.ok) throw state.error;
  const writer = new StateWriter(backend, state.value, 'secretform apply');
  await work(writer);
  expect(await writer.finish(digest)).toBeUndefined();
  await backend.close();
}

const fileOf = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as { serial: number; applied_digest?: { digest: string; serial: number } };
const recordOf = async (path: string) => {
  const records = await readAppliedRecords(['st'], () => ({ kind: 'file', path, display: path }));
  if (!records.ok) throw records.error;
  return records.value.get('st');
};

test('recorded with the serial of the last write; current: no new write; another write leaves it stale', async () => {
  const path = join(tempDir('secretform-digest-state-'), 'st.state.json');
  expect(await recordOf(path)).toBeUndefined();
  await command(path, async (writer) => {
    await writer.set('st/a', entry(1));
    await writer.set('st/b', entry(2));
  }, DIGEST);
  const applied = fileOf(path);
  expect(applied.applied_digest).toEqual({ digest: DIGEST, serial: applied.serial });
  expect(await recordOf(path)).toEqual({ serial: applied.serial, appliedDigest: { digest: DIGEST, serial: applied.serial } });

  // Nothing to write and the same digest: no write at all.
  await command(path, () => Promise.resolve(), DIGEST);
  expect(fileOf(path).serial).toBe(applied.serial);

  // A command that records no digest (a targeted or failed apply, destroy, import) moves the serial on.
  await command(path, async (writer) => writer.set('st/c', entry(3)));
  const after = fileOf(path);
  expect(after.serial).toBe(applied.serial + 1);
  expect(after.applied_digest).toEqual({ digest: DIGEST, serial: applied.serial });

  // The next complete apply records it again, with a write of its own when nothing else is left to write.
  await command(path, () => Promise.resolve(), OTHER);
  expect(fileOf(path).applied_digest).toEqual({ digest: OTHER, serial: applied.serial + 2 });
});

test('a journal left by a crashed command gives back the digest its last write recorded', async () => {
  const path = join(tempDir('secretform-digest-journal-'), 'st.state.json');
  const backend = new LocalStateBackend(path, 'st');
  const lock = await backend.lock({ command: 'test', timeoutMs: 0 });
  if (!lock.ok) throw lock.error;
  const state = await backend.read();
  if (!state.ok) throw state.error;
  const written = await backend.write({ lineage: state.value.lineage, serial: 0 }, [{ address: 'st/a', entry: entry(1) }], 'http://127.0.0.1:8200', DIGEST);
  if (!written.ok) throw written.error;
  // The lock is let go without the checkpoint that folds the journal: as after a crash.
  await lock.value.release();
  expect(await recordOf(path)).toEqual({ serial: 1, service: 'http://127.0.0.1:8200', appliedDigest: { digest: DIGEST, serial: 1 } });
});
