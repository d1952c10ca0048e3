export interface ScheduledTask {
  key: string;
  /** Keys of tasks that must succeed before this one starts (keys not in the run are ignored). */
  after: string[];
}

/** Why a task did not start. */
export type SkipReason =
  /** `shouldStop` said so before it started. */
  | { kind: 'stopped' }
  /** A task it waits for failed or was skipped. */
  | { kind: 'prerequisite_failed'; key: string };

export type TaskOutcome =
  | { key: string; status: 'succeeded' }
  | { key: string; status: 'failed'; error: Error }
  | { key: string; status: 'skipped'; reason: SkipReason };

export interface ScheduleOptions {
  parallelism: number;
  /** Checked before each task starts: once true, no new task starts; running ones finish. */
  shouldStop?: () => boolean;
}

/** Runs `work` in one of the `parallelism` slots (waiting for one to be free). */
export type Slot = <T>(work: () => Promise<T>) => Promise<T>;

/**
 * A task's work. What it does in its slot is the part that talks to the service; what it returns, if anything,
 * finishes the task outside the slot (recording the result in state), so that slow state storage never leaves a
 * connection idle. The finishing part may take a slot again with `slot` for more requests (served before tasks
 * still waiting to start).
 */
export type TaskRun = (key: string) => Promise<void | ((slot: Slot) => Promise<void>)>;

/**
 * Runs tasks as soon as everything they wait for has succeeded, at most `parallelism` in their slot part at a
 * time. A task counts as succeeded once its finishing part has too: only then do the tasks that wait for it
 * start. A failure never stops independent work, but everything that depends on a failed task is skipped. A
 * dependency cycle is reported (before anything runs) rather than deadlocking.
 */
export async function runInDependencyOrder(tasks: ScheduledTask[], run: TaskRun, options: ScheduleOptions): Promise<TaskOutcome[]> {
  const keys = new Set(tasks.map((t) => t.key));
  const waitsFor = new Map(tasks.map((t) => [t.key, t.after.filter((k) => keys.has(k) && k !== t.key)]));
  const cycle = findCycle(waitsFor);
  if (cycle) throw new Error(`dependency cycle: ${cycle.join(' -> ')}`);

  const slots = new Slots(Math.max(1, options.parallelism));
  const limit = <T>(work: () => Promise<T>): Promise<T> => slots.take('task', work);
  const slot: Slot = (work) => slots.take('finishing', work);
  const outcomes = new Map<string, TaskOutcome>();
  const started = new Map<string, Promise<TaskOutcome>>();
  const failed = (key: string, err: unknown): TaskOutcome => ({ key, status: 'failed', error: err instanceof Error ? err : new Error(String(err)) });

  const start = (key: string): Promise<TaskOutcome> => {
    const existing = started.get(key);
    if (existing) return existing;
    const promise = (async (): Promise<TaskOutcome> => {
      const prerequisites = await Promise.all((waitsFor.get(key) ?? []).map(start));
      const blocked = prerequisites.find((p) => p.status !== 'succeeded');
      if (blocked) return { key, status: 'skipped', reason: { kind: 'prerequisite_failed', key: blocked.key } };
      const begun = await limit(async (): Promise<TaskOutcome | { finish: void | ((slot: Slot) => Promise<void>) }> => {
        if (options.shouldStop?.()) return { key, status: 'skipped', reason: { kind: 'stopped' } };
        try {
          return { finish: await run(key) };
        } catch (err) {
          return failed(key, err);
        }
      });
      if ('status' in begun) return begun;
      try {
        if (begun.finish) await begun.finish(slot);
        return { key, status: 'succeeded' };
      } catch (err) {
        return failed(key, err);
      }
    })();
    started.set(key, promise);
    return promise;
  };

  for (const outcome of await Promise.all(tasks.map((t) => start(t.key)))) outcomes.set(outcome.key, outcome);
  return tasks.map((t) => outcomes.get(t.key)!);
}

/**
 * `parallelism` slots, taken in turn; a finishing part's request goes before the tasks still waiting to start: a
 * started task (rotate-root right after a creation) completes first, as it did in its own slot.
 */
class Slots {
  #running = 0;
  readonly #finishing: (() => void)[] = [];
  readonly #tasks: (() => void)[] = [];

  constructor(private readonly parallelism: number) {}

  take<T>(kind: 'task' | 'finishing', work: () => Promise<T>): Promise<T> {
    const turn = new Promise<void>((begin) => {
      (kind === 'finishing' ? this.#finishing : this.#tasks).push(begin);
      this.#next();
    });
    return turn.then(work).finally(() => {
      this.#running -= 1;
      this.#next();
    });
  }

  #next(): void {
    if (this.#running >= this.parallelism) return;
    const begin = this.#finishing.shift() ?? this.#tasks.shift();
    if (!begin) return;
    this.#running += 1;
    begin();
  }
}

function findCycle(graph: Map<string, string[]>): string[] | undefined {
  const state = new Map<string, 'visiting' | 'done'>();
  const path: string[] = [];
  const visit = (key: string): string[] | undefined => {
    if (state.get(key) === 'done') return undefined;
    if (state.get(key) === 'visiting') return [...path.slice(path.indexOf(key)), key];
    state.set(key, 'visiting');
    path.push(key);
    for (const next of graph.get(key) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(key, 'done');
    return undefined;
  };
  for (const key of graph.keys()) {
    const cycle = visit(key);
    if (cycle) return cycle;
  }
  return undefined;
}
