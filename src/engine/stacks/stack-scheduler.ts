/**
 * Running one task per stack in dependency order: a stack starts once every stack it waits for has succeeded,
 * stacks that wait for nothing unfinished run at the same time, and a stack whose dependency failed (or was
 * itself skipped) is skipped, naming that dependency, while the others go on.
 */
import type { EngineError, Result } from '../errors';
import type { StackDependencies } from './stack-order';
import type { StackWork } from './stack-preparation';
import type { ServerShares } from './server-shares';

/** How one stack's part of a run ended. */
export type StackOutcome<T> =
  | { stack: string; status: 'done'; value: T }
  | { stack: string; status: 'failed'; error: EngineError }
  /** Not run because `dependency` (a stack it waits for) failed or was skipped. */
  | { stack: string; status: 'skipped'; dependency: string };

/** A run's stacks taken by their servers a few at a time (server-shares.ts), with what each stack asks. */
export interface SharedServers {
  shares: ServerShares;
  work: ReadonlyMap<string, StackWork>;
}

/**
 * Runs `task` for each of `ordered` (every stack after the stacks it waits for) and resolves to the outcomes
 * in that order. `succeeded` says whether a finished task lets the stacks waiting for it start. With `servers`,
 * a stack ready to start waits, in addition, for its server's share.
 */
export async function runStacksInOrder<T>(
  ordered: readonly string[],
  waitsFor: StackDependencies,
  task: (stack: string) => Promise<Result<T>>,
  succeeded: (value: T) => boolean = () => true,
  servers?: SharedServers,
): Promise<StackOutcome<T>[]> {
  const running = new Map<string, Promise<StackOutcome<T>>>();
  for (const stack of ordered) {
    const dependencies = (waitsFor.get(stack) ?? []).map((dependency) => running.get(dependency)).filter((run) => run !== undefined);
    running.set(stack, (async (): Promise<StackOutcome<T>> => {
      for (const finished of await Promise.all(dependencies)) {
        if (!stackSucceeded(finished, succeeded)) return { stack, status: 'skipped', dependency: finished.stack };
      }
      const result = await withShare(servers, stack, () => task(stack));
      return result.ok ? { stack, status: 'done', value: result.value } : { stack, status: 'failed', error: result.error };
    })());
  }
  return Promise.all(ordered.map((stack) => running.get(stack)!));
}

/** Whether the stacks waiting for this one may run. */
export function stackSucceeded<T>(outcome: StackOutcome<T>, succeeded: (value: T) => boolean): boolean {
  return outcome.status === 'done' && succeeded(outcome.value);
}

/** `run`, once the stack's server takes it (at once without `servers`); its share is given back when it ends. */
async function withShare<R>(servers: SharedServers | undefined, stack: string, run: () => Promise<R>): Promise<R> {
  const work = servers?.work.get(stack);
  if (servers === undefined || work === undefined) return run();
  await servers.shares.enter(work.server, work.objects);
  try {
    return await run();
  } finally {
    servers.shares.leave(work.server, work.objects);
  }
}
