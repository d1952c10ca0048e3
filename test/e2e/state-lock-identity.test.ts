/**
 * The local state lock belongs to the file, not to the path string: a symlink to the state (or to its
 * directory) shares the lock, whether the file exists yet or not. And a holder that was killed but not yet
 * reaped (a zombie: Linux process state `Z`) counts as dead, so its lock is taken at once.
 */
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StateBackend } from '../../src/engine/state/backend';
import { openStateBackend } from '../../src/engine/state/open-backend';
import { resolveStateLocation } from '../../src/engine/state/state-location';
import { startOrphanedLockHolder } from '../support/lock-holder';
import { tempDir } from '../support/temp-dir';

jest.setTimeout(30_000);

const REQUEST = { command: 'secretform test', timeoutMs: 0 };

function open(where: string): StateBackend {
  const location = resolveStateLocation(where, {}, process.cwd(), 'st');
  if (!location.ok) throw location.error;
  return openStateBackend(location.value, 'st');
}

async function lockedByFirst(first: string, second: string): Promise<void> {
  const holder = open(first);
  const held = await holder.lock(REQUEST);
  expect(held.ok).toBe(true);
  const other = open(second);
  const refused = await other.lock(REQUEST);
  expect(refused.ok).toBe(false);
  expect(!refused.ok && refused.error.code).toBe('state_locked');
  if (held.ok) await held.value.release();
  const after = await other.lock(REQUEST);
  expect(after.ok).toBe(true);
  if (after.ok) await after.value.release();
  await holder.close();
  await other.close();
}

describe('the local state lock is keyed on the real path', () => {
  test('a symlink to a state file that does not exist yet shares its lock', async () => {
    const dir = tempDir('secretform-lock-alias-');
    symlinkSync('s.json', join(dir, 'alias.json'));
    await lockedByFirst(join(dir, 's.json'), join(dir, 'alias.json'));
    await lockedByFirst(join(dir, 'alias.json'), join(dir, 's.json'));
  });

  test('a symlink to an existing state file, and a path through a symlinked directory, share its lock', async () => {
    const dir = tempDir('secretform-lock-alias-');
    mkdirSync(join(dir, 'real'));
    writeFileSync(join(dir, 'real', 's.json'), '');
    symlinkSync(join(dir, 'real', 's.json'), join(dir, 'alias.json'));
    symlinkSync('real', join(dir, 'linked-dir'));
    await lockedByFirst(join(dir, 'real', 's.json'), join(dir, 'alias.json'));
    await lockedByFirst(join(dir, 'linked-dir', 's.json'), join(dir, 'real', 's.json'));
  });
});

describe('a zombie lock holder', () => {
  test('counts as dead: its lock is taken at once', async () => {
    const where = join(tempDir('secretform-lock-zombie-'), 'st.state.json');
    const holder = await startOrphanedLockHolder(where, 'st');
    try {
      const backend = open(where);
      const refused = await backend.lock(REQUEST);
      expect(!refused.ok && refused.error.message).toContain(`(pid ${holder.pid} on host`);
      process.kill(holder.pid, 'SIGKILL');
      const state = (): string => {
        const stat = readFileSync(`/proc/${holder.pid}/stat`, 'utf8');
        return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
      };
      const deadline = Date.now() + 5000;
      while (state() !== 'Z' && Date.now() < deadline) await new Promise((done) => setTimeout(done, 20));
      expect(state()).toBe('Z');
      const taken = await backend.lock(REQUEST);
      expect(taken.ok).toBe(true);
      if (taken.ok) await taken.value.release();
      await backend.close();
    } finally {
      holder.parent.kill('SIGKILL');
    }
  });
});
