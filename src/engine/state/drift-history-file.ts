/**
 * A local state's drift history: `<name>.drift.json` beside `<name>.state.json` (mode 0600). An update takes
 * the history's own lock (`<history>.lock`, the state file lock's mechanism: created exclusively, a dead holder's
 * taken over) for its read and its write, so checks that run at once record one after the other and none is
 * lost; the write is atomic (temp file + rename). The state's own lock is never taken.
 */
import { promises as fs } from 'node:fs';
import { writeFileAtomically } from '../../lazy-packages';
import { EngineError, fail, ok, type Result } from '../errors';
import type { DriftHistoryStore } from './drift-history-store';
import { lockStateFile } from './state-lock';

/** How long an update waits for another check's update of the same history (each takes milliseconds). */
const UPDATE_WAIT_MS = 30_000;

export function driftHistoryPathOf(statePath: string): string {
  return statePath.endsWith('.state.json') ? `${statePath.slice(0, -'.state.json'.length)}.drift.json` : `${statePath}.drift.json`;
}

export class FileDriftHistoryStore implements DriftHistoryStore {
  readonly path: string;
  readonly location: string;

  constructor(statePath: string) {
    this.path = driftHistoryPathOf(statePath);
    this.location = `file ${this.path}`;
  }

  async read(): Promise<Result<unknown>> {
    let text: string;
    try {
      text = await fs.readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return ok(undefined);
      return fail(new EngineError('state_io', `cannot read the drift history ${this.location}: ${(error as Error).message}`));
    }
    try {
      return ok(JSON.parse(text) as unknown);
    } catch (error) {
      return fail(new EngineError('drift_history_corrupt', `the drift history ${this.location} is damaged (not JSON: ${(error as Error).message}): nothing was recorded in it. Restore it from a backup, or remove it to start a new history; the state is not affected`));
    }
  }

  async update<T>(change: (stored: unknown) => Result<{ document: unknown; value: T }>): Promise<Result<T>> {
    const lock = await lockStateFile(this.path, { command: 'secretform drift', timeoutMs: UPDATE_WAIT_MS });
    if (!lock.ok) return lock;
    try {
      const stored = await this.read();
      if (!stored.ok) return stored;
      const changed = change(stored.value);
      if (!changed.ok) return changed;
      try {
        await writeFileAtomically(this.path, `${JSON.stringify(changed.value.document)}\n`, { mode: 0o600 });
      } catch (error) {
        return fail(new EngineError('state_io', `cannot write the drift history ${this.location}: ${(error as Error).message}`));
      }
      return ok(changed.value.value);
    } finally {
      await lock.value.release();
    }
  }

  async close(): Promise<void> {
    // Nothing stays open between calls.
  }
}
