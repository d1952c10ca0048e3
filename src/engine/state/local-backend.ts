/**
 * State in a local JSON file (the default): read whole, changed through an append-only journal while a command
 * runs (one fsynced line per write, whatever the size of the state), folded into the file atomically when the
 * command ends or, after a crash, when the next command takes the lock. The last versions are kept in
 * `<state>.history/`.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomically } from '../../lazy-packages';
import { EngineError, fail, ok, type Result } from '../errors';
import { HISTORY_VERSIONS, type HeldLock, type LockHolder, type LockRequest, type StateBackend, type StateChange, type StateRef, type StateVersionInfo } from './backend';
import { headerLine, journalPathOf, recordLine, replayJournal } from './journal';
import { conflictError } from './state-conflict';
import { readState, stateFileSchema, type ResourceState, type StateFile } from './state-file';
import { forceUnlockStateFile, lockStateFile, readLockHolder } from './state-lock';
import { setOwn } from '../../own-keys';

export function historyDirOf(statePath: string): string {
  return `${statePath.replace(/\.json$/, '')}.history`;
}

export class LocalStateBackend implements StateBackend {
  readonly location: string;
  #lock: HeldLock | undefined;
  /** The state as this command knows it while it holds the lock. */
  #state: StateFile | undefined;
  #journal: fs.FileHandle | undefined;
  #dirty = false;
  /** The state read under the lock was damaged: only a whole replacement (base undefined) may follow. */
  #damaged = false;

  constructor(
    readonly path: string,
    private readonly stack: string,
  ) {
    this.location = path;
  }

  async read(): Promise<Result<StateFile>> {
    const folded = await this.#readFolded();
    if (!folded.ok) {
      // Under the lock a damaged state can still be replaced as a whole (state restore, state push --force).
      this.#damaged = this.#lock !== undefined && folded.error.code === 'state_corrupt';
      return folded;
    }
    if (!this.#lock) return ok(folded.value.state);
    // Under the lock a journal left by a crashed command is folded into the file now, before anything else.
    if (folded.value.journal) {
      const written = await this.#writeStateFile(folded.value.state, 'recovery: folded the journal of a command that did not finish');
      if (!written.ok) return written;
    }
    this.#state = { ...folded.value.state, resources: { ...folded.value.state.resources } };
    return ok(cloneState(this.#state));
  }

  async lock(request: LockRequest): Promise<Result<HeldLock>> {
    if (this.#lock) return fail(new EngineError('state_locked', `state ${this.path} is already locked by this command`));
    const held = await lockStateFile(this.path, request);
    if (!held.ok) return held;
    const release = async (): Promise<void> => {
      await this.#closeJournal();
      this.#lock = undefined;
      this.#state = undefined;
      await held.value.release();
    };
    this.#lock = { holder: held.value.holder, release };
    return ok(this.#lock);
  }

  lockHolder(): Promise<Result<LockHolder | undefined>> {
    return Promise.resolve(ok(readLockHolder(this.path)));
  }

  forceUnlock(): Promise<Result<LockHolder | undefined>> {
    try {
      return Promise.resolve(ok(forceUnlockStateFile(this.path)));
    } catch (err) {
      return Promise.resolve(fail(new EngineError('state_io', `cannot remove the lock of state ${this.path}: ${(err as Error).message}`)));
    }
  }

  async write(base: StateRef, changes: StateChange[], service?: string, appliedDigest?: string): Promise<Result<number>> {
    const state = this.#lockedState('write');
    if (!state.ok) return state;
    if (!sameRef(state.value, base)) return fail(conflictError(this.location, base, state.value));
    const serial = base.serial + 1;
    try {
      if (!this.#journal) {
        this.#journal = await fs.open(journalPathOf(this.path), 'a', 0o600);
        await this.#journal.write(headerLine({ stack: this.stack, lineage: state.value.lineage, base_serial: state.value.serial }));
      }
      await this.#journal.write(recordLine(serial, changes, service, appliedDigest));
      await this.#journal.datasync();
    } catch (err) {
      return fail(new EngineError('state_io', `cannot write state journal ${journalPathOf(this.path)}: ${(err as Error).message}`));
    }
    for (const change of changes) {
      if (change.entry) setOwn(state.value.resources, change.address, change.entry);
      else delete state.value.resources[change.address];
    }
    state.value.serial = serial;
    if (service !== undefined) state.value.service = service;
    if (appliedDigest !== undefined) state.value.applied_digest = { digest: appliedDigest, serial };
    this.#dirty = true;
    return ok(serial);
  }

  async replace(base: StateRef | undefined, next: { lineage: string; resources: Record<string, ResourceState>; service?: string }, command: string): Promise<Result<StateFile>> {
    let serial: number;
    if (this.#lock && this.#damaged && base === undefined) {
      // Past every serial the history knows, so a saved plan made from a kept version is never taken as current.
      const kept = await this.history();
      serial = (kept.ok ? Math.max(0, ...kept.value.map((version) => version.serial)) : 0) + 1;
    } else {
      const state = this.#lockedState('replace');
      if (!state.ok) return state;
      if (base && !sameRef(state.value, base)) return fail(conflictError(this.location, base, state.value));
      serial = state.value.serial + 1;
    }
    // The service the stack is applied to stays recorded: a restore or push changes what is remembered, not where.
    const service = next.service ?? this.#state?.service;
    const replaced: StateFile = { version: 1, stack: this.stack, lineage: next.lineage, serial, resources: { ...next.resources }, ...(service === undefined ? {} : { service }) };
    const written = await this.#writeStateFile(replaced, command);
    if (!written.ok) return written;
    this.#state = replaced;
    this.#damaged = false;
    return ok(cloneState(replaced));
  }

  async checkpoint(command: string): Promise<Result<void>> {
    const state = this.#lockedState('checkpoint');
    if (!state.ok) return state;
    if (!this.#dirty) return ok(undefined);
    return this.#writeStateFile(state.value, command);
  }

  async history(): Promise<Result<StateVersionInfo[]>> {
    const versions = await this.#versionFiles();
    if (!versions.ok) return versions;
    const infos: StateVersionInfo[] = [];
    for (const file of versions.value) {
      const version = await readVersionFile(join(historyDirOf(this.path), file));
      if (version) infos.push({ serial: version.state.serial, lineage: version.state.lineage, created_at: version.created_at, command: version.command, resources: Object.keys(version.state.resources).length });
    }
    return ok(infos.sort((a, b) => b.serial - a.serial));
  }

  async version(serial: number): Promise<Result<StateFile>> {
    const version = await readVersionFile(join(historyDirOf(this.path), versionFileName(serial)));
    if (!version || version.state.stack !== this.stack) {
      return fail(new EngineError('address_unknown', `state ${this.path} keeps no version with serial ${serial}; \`secretform state history\` lists those it keeps`));
    }
    return ok(version.state);
  }

  async close(): Promise<void> {
    await this.#lock?.release();
  }

  /** The state file with the journal (if any) applied, in memory. */
  async #readFolded(): Promise<Result<{ state: StateFile; journal: boolean }>> {
    const stateRead = await readState(this.path, this.stack);
    if (!stateRead.ok) return stateRead;
    let text: string;
    try {
      text = await fs.readFile(journalPathOf(this.path), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return ok({ state: stateRead.value, journal: false });
      return fail(new EngineError('state_io', `cannot read state journal ${journalPathOf(this.path)}: ${(err as Error).message}`));
    }
    const stateExists = await fileExists(this.path);
    const replay = replayJournal(text, stateRead.value, stateExists, journalPathOf(this.path));
    if (!replay.ok) return replay;
    // A journal with nothing to apply is still removed when the state is next written under the lock.
    return ok({ state: replay.value.kind === 'applied' ? replay.value.state : stateRead.value, journal: true });
  }

  #lockedState(what: string): Result<StateFile> {
    if (!this.#lock || !this.#state) {
      return fail(new EngineError('state_io', `internal: ${what} of state ${this.path} without holding its lock and reading it first`));
    }
    return ok(this.#state);
  }

  /** The atomic rewrite of the file (temp file + rename), a version in the history, then the journal removed. */
  async #writeStateFile(state: StateFile, command: string): Promise<Result<void>> {
    await this.#closeJournal();
    try {
      await writeFileAtomically(this.path, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
    } catch (err) {
      return fail(new EngineError('state_io', `cannot write state file ${this.path}: ${(err as Error).message}`));
    }
    try {
      await fs.rm(journalPathOf(this.path), { force: true });
    } catch (err) {
      return fail(new EngineError('state_io', `cannot remove state journal ${journalPathOf(this.path)} after folding it: ${(err as Error).message}`));
    }
    this.#dirty = false;
    return this.#recordVersion(state, command);
  }

  async #recordVersion(state: StateFile, command: string): Promise<Result<void>> {
    const dir = historyDirOf(this.path);
    try {
      await fs.mkdir(dir, { recursive: true, mode: 0o700 });
      const version = { created_at: new Date().toISOString(), command, state };
      await writeFileAtomically(join(dir, versionFileName(state.serial)), `${JSON.stringify(version)}\n`, { mode: 0o600 });
      const files = await this.#versionFiles();
      if (files.ok) {
        for (const old of files.value.slice(0, Math.max(0, files.value.length - HISTORY_VERSIONS))) await fs.rm(join(dir, old), { force: true });
      }
      return ok(undefined);
    } catch (err) {
      return fail(new EngineError('state_io', `state ${this.path} was saved, but its history version was not (${dir}): ${(err as Error).message}`));
    }
  }

  /** Version file names, oldest first. */
  async #versionFiles(): Promise<Result<string[]>> {
    try {
      const names = await fs.readdir(historyDirOf(this.path));
      return ok(names.filter((name) => /^\d{12}\.json$/.test(name)).sort());
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return ok([]);
      return fail(new EngineError('state_io', `cannot read the state history ${historyDirOf(this.path)}: ${(err as Error).message}`));
    }
  }

  async #closeJournal(): Promise<void> {
    const journal = this.#journal;
    this.#journal = undefined;
    await journal?.close().catch(() => undefined);
  }
}

function versionFileName(serial: number): string {
  return `${String(serial).padStart(12, '0')}.json`;
}

async function readVersionFile(path: string): Promise<{ created_at: string; command: string; state: StateFile } | undefined> {
  try {
    const json = JSON.parse(await fs.readFile(path, 'utf8')) as { created_at?: unknown; command?: unknown; state?: unknown };
    const state = stateFileSchema().safeParse(json.state);
    if (!state.success) return undefined;
    return { created_at: typeof json.created_at === 'string' ? json.created_at : '', command: typeof json.command === 'string' ? json.command : '', state: state.data };
  } catch {
    return undefined;
  }
}

async function fileExists(path: string): Promise<boolean> {
  try {
    await fs.stat(path);
    return true;
  } catch {
    return false;
  }
}

function sameRef(state: StateRef, base: StateRef): boolean {
  return state.lineage === base.lineage && state.serial === base.serial;
}

function cloneState(state: StateFile): StateFile {
  return { ...state, resources: { ...state.resources } };
}

