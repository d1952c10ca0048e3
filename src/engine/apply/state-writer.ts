/**
 * The state of a running apply: changed in memory after every operation and saved at once, one write at a
 * time (each save writes the latest state, so a save never overtakes a later one).
 */
import { EngineError } from '../errors';
import { writeState, type ResourceState, type StateFile } from '../state/state-file';

export class StateWriter {
  #state: StateFile;
  #queue: Promise<void> = Promise.resolve();
  #failure: EngineError | undefined;

  constructor(
    private readonly path: string,
    state: StateFile,
  ) {
    this.#state = state;
  }

  get state(): StateFile {
    return this.#state;
  }

  /** The first save that failed, if any. */
  get failure(): EngineError | undefined {
    return this.#failure;
  }

  /** Records (or, with undefined, forgets) one resource and saves; rejects when the save fails. */
  set(address: string, entry: ResourceState | undefined): Promise<void> {
    const resources = { ...this.#state.resources };
    if (entry) resources[address] = entry;
    else delete resources[address];
    this.#state = { ...this.#state, resources };
    return this.save();
  }

  /** Replaces every resource entry at once (without saving). */
  replaceResources(resources: Record<string, ResourceState>): void {
    this.#state = { ...this.#state, resources };
  }

  save(): Promise<void> {
    const saved = this.#queue.then(async () => {
      const written = await writeState(this.path, this.#state);
      if (!written.ok) {
        this.#failure ??= written.error;
        throw written.error;
      }
      // Keep the serial the file now has, so the next save bumps it again.
      this.#state = { ...this.#state, serial: written.value.serial };
    });
    this.#queue = saved.catch(() => undefined);
    return saved;
  }
}
