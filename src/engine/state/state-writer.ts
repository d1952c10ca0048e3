/**
 * The state of a running apply, kept in memory and written through the state backend after every operation.
 * Writes are grouped: while one write is on its way, the changes of operations that finish meanwhile wait and
 * go together in the next one (one journal line and one fsync, or one statement). An operation counts as done
 * only once its change is stored, so a crash at any moment leaves a state that holds exactly what was recorded.
 * Each write sends only what changed, so its cost does not grow with the size of the state.
 */
import type { EngineError } from '../errors';
import type { StateBackend } from './backend';
import type { ResourceState, StateFile } from './state-file';
import { ownValue, setOwn } from '../../own-keys';

interface Waiter {
  resolve: () => void;
  reject: (error: EngineError) => void;
}

export class StateWriter {
  #state: StateFile;
  /** Changes not yet stored, by address (the last change of an address wins). */
  #pending = new Map<string, ResourceState | undefined>();
  #waiters: Waiter[] = [];
  #writing = false;
  #failure: EngineError | undefined;
  #wrote = false;
  /** The service to record with the next write: the run's, when the state does not record it yet. */
  #service: string | undefined;
  /** The applied digest to record with the next write (`finish`). */
  #digest: string | undefined;

  /**
   * `service`: the service the run applies to (setup/service-identity.ts), recorded with the first write when the
   * state records another or none; an apply with nothing else to write still records it into a state that holds
   * objects (an older state gets its service at the next apply). Undefined: recorded as it is (import, actions).
   */
  constructor(
    private readonly backend: StateBackend,
    state: StateFile,
    private readonly command: string,
    service?: string,
  ) {
    this.#state = { ...state, resources: { ...state.resources } };
    this.#service = service !== undefined && service !== state.service ? service : undefined;
  }

  /** The state as this command sees it (including changes still on their way). */
  get state(): StateFile {
    return this.#state;
  }

  /** The first write that failed, if any (every later write is refused too: the stored state is unknown). */
  get failure(): EngineError | undefined {
    return this.#failure;
  }

  /** Records (or, with undefined, forgets) one resource; resolves once stored, rejects when the write fails. */
  set(address: string, entry: ResourceState | undefined): Promise<void> {
    this.#change(address, entry);
    return this.save();
  }

  /** Replaces every resource entry at once (without storing: `save` does); only the differences are written. */
  replaceResources(resources: Record<string, ResourceState>): void {
    for (const address of Object.keys(this.#state.resources)) {
      if (!Object.hasOwn(resources, address)) this.#change(address, undefined);
    }
    for (const [address, entry] of Object.entries(resources)) {
      if (ownValue(this.#state.resources, address) !== entry) this.#change(address, entry);
    }
  }

  /** Stores every change made so far. */
  save(): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure);
    if (this.#pending.size === 0 && this.#service === undefined && this.#digest === undefined && !this.#writing) return Promise.resolve();
    const done = new Promise<void>((resolve, reject) => this.#waiters.push({ resolve, reject }));
    if (!this.#writing) void this.#drain();
    return done;
  }

  /**
   * Ends the command's writes: the stored state becomes a version of the history (the local journal is folded).
   * `appliedDigest`: the command carried out the whole desired state (an apply that succeeded, every object, no
   * --target): its digest is recorded with the last write, or with a write of its own when the state's recorded
   * digest is another one or no longer describes the state (setup/desired-digest.ts). Without it, whatever this
   * command wrote moves the serial past the recorded digest, which then no longer counts.
   */
  async finish(appliedDigest?: string): Promise<EngineError | undefined> {
    if (this.#service !== undefined && this.#pending.size === 0 && !this.#wrote && Object.keys(this.#state.resources).length === 0) this.#service = undefined;
    const recorded = this.#state.applied_digest;
    const current = recorded !== undefined && recorded.digest === appliedDigest && recorded.serial === this.#state.serial && this.#pending.size === 0 && this.#service === undefined;
    if (appliedDigest !== undefined && !current && !this.#failure) this.#digest = appliedDigest;
    await this.save().catch(() => undefined);
    if (this.#failure || !this.#wrote) return this.#failure;
    const checkpoint = await this.backend.checkpoint(this.command);
    return checkpoint.ok ? undefined : checkpoint.error;
  }

  #change(address: string, entry: ResourceState | undefined): void {
    if (entry) setOwn(this.#state.resources, address, entry);
    else delete this.#state.resources[address];
    this.#pending.set(address, entry);
  }

  async #drain(): Promise<void> {
    this.#writing = true;
    while ((this.#pending.size > 0 || this.#service !== undefined || this.#digest !== undefined) && !this.#failure) {
      const changes = [...this.#pending].map(([address, entry]) => ({ address, entry }));
      const waiters = this.#waiters;
      const service = this.#service;
      const digest = this.#digest;
      this.#pending = new Map();
      this.#waiters = [];
      this.#service = undefined;
      this.#digest = undefined;
      const written = await this.backend.write({ lineage: this.#state.lineage, serial: this.#state.serial }, changes, service, digest);
      if (written.ok) {
        this.#state.serial = written.value;
        if (service !== undefined) this.#state.service = service;
        if (digest !== undefined) this.#state.applied_digest = { digest, serial: written.value };
        this.#wrote = true;
        for (const waiter of waiters) waiter.resolve();
      } else {
        this.#failure = written.error;
        for (const waiter of waiters) waiter.reject(written.error);
      }
    }
    this.#writing = false;
    // Changes that came in after a failure are refused too.
    const left = this.#waiters;
    this.#waiters = [];
    for (const waiter of left) {
      if (this.#failure) waiter.reject(this.#failure);
      else waiter.resolve();
    }
  }
}
