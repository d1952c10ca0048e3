/**
 * Progress of a run. Finished operations are results, not progress, so they are printed on stdout everywhere,
 * numbered and timed (`[3/25] prod/ldap/svc-role: created (0.4 s)`). Everything else is progress and appears only
 * when stderr is a terminal, on one line redrawn in place there: the refresh counter (`Refreshing 120/1000`;
 * summed over the stacks of a run over several, see refresh-tally.ts), then during apply and destroy a spinner
 * with the count done, the operations in flight, the time elapsed and, once a few have finished, an estimate of
 * what remains. stderr carries it so that stdout, piped or not, holds only the report; in a CI log (not a
 * terminal) there is nothing beyond the per-object lines.
 */
import type { Plan } from '../../engine/plan/plan';
import type { ProgressEvent } from '../../engine/setup/engine-options';
import type { CliIo } from './io';
import { createLiveLine } from './live-line';
import { RefreshTally } from './refresh-tally';

/** Redraw at most this often, so a fast refresh does not flood the terminal; also the spinner's pace. */
const REDRAW_INTERVAL_MS = 100;

/** An estimate of the time left is shown once this many operations have finished (fewer say little). */
const ESTIMATE_AFTER = 3;

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export interface ProgressReporter {
  onProgress: (event: ProgressEvent) => void;
  /** Clears a progress line still on screen and stops redrawing; call before writing anything else. */
  finish(): void;
  /**
   * The operations the whole run will carry out, once its plans are known: the `N` of `[n/N]` from the first
   * line, over every stack of the run (each stack announces only its own operations when it starts).
   */
  expectOperations(total: number): void;
  /** Stops the clock while the run waits for the user (the approval prompt): that wait is not run time. */
  pause(): void;
  resume(): void;
  /** `Total time: 4.2 s`, since the reporter was made, pauses left out. */
  totalLine(): string;
}

export interface ProgressOptions {
  showOperations: boolean;
  /** The live line's word for the operations: `Applying` (default) or `Destroying`. */
  verb?: string;
}

/** What drives the live line's redraws; tests give their own. */
export interface Clock {
  now: () => number;
  /** Calls `tick` every `ms` until stopped; must not keep the process alive. */
  every: (ms: number, tick: () => void) => { stop(): void };
}

export const systemClock: Clock = {
  now: Date.now,
  every(ms, tick) {
    const timer = setInterval(tick, ms);
    timer.unref();
    return { stop: () => clearInterval(timer) };
  },
};

/** By operation label (see the engine's task graph): a replacement is a delete, then a create. */
const DONE_WORDS: Record<string, string> = {
  create: 'created',
  update: 'updated',
  delete: 'destroyed',
  'replace:delete': 'destroyed (to be re-created)',
  'replace:create': 'replaced',
};

export function createProgressReporter(io: CliIo, options: ProgressOptions, clock: Clock | (() => number) = systemClock): ProgressReporter {
  const { now, every } = typeof clock === 'function' ? { ...systemClock, now: clock } : clock;
  const live = io.stderr.isTTY === true ? createLiveLine(io.stderr) : undefined;
  const verb = options.verb ?? 'Applying';
  const createdAt = now();
  let pausedFor = 0;
  let pausedAt: number | undefined;
  let lastRefreshDraw = 0;
  const refreshes = new RefreshTally();

  // The operations phase of apply and destroy.
  let total: number | undefined;
  let expected = 0;
  let announced = 0;
  let operationsStartedAt = 0;
  let done = 0;
  const started = new Map<string, number>();
  let ticker: { stop(): void } | undefined;
  let frame = 0;

  const operationsLine = (): string => {
    const elapsed = now() - operationsStartedAt;
    const parts = [`${SPINNER[frame % SPINNER.length]} ${verb} ${done}/${total ?? '?'}`, `${started.size} in flight`, `${seconds(elapsed)} elapsed`];
    if (total !== undefined && done >= ESTIMATE_AFTER && done < total) parts.push(`about ${seconds((elapsed / done) * (total - done))} left`);
    return parts.join(', ');
  };
  const stopTicker = () => {
    ticker?.stop();
    ticker = undefined;
  };

  return {
    onProgress(event) {
      switch (event.kind) {
        case 'refresh': {
          if (live === undefined) return;
          refreshes.record(event);
          const complete = refreshes.complete;
          if (!complete && now() - lastRefreshDraw < REDRAW_INTERVAL_MS) return;
          lastRefreshDraw = now();
          if (complete) live.clear();
          else live.draw(refreshes.line());
          return;
        }
        case 'operations':
          // A run over several stacks announces each stack's operations as that stack starts: N is the run's
          // total when its plans said it (expectOperations), and grows only past that.
          if (total === undefined) operationsStartedAt = now();
          announced += event.total;
          total = Math.max(expected, announced);
          if (live !== undefined && event.total > 0 && ticker === undefined) {
            live.draw(operationsLine());
            ticker = every(REDRAW_INTERVAL_MS, () => {
              frame += 1;
              live.draw(operationsLine());
            });
          }
          return;
        case 'operation-start':
          started.set(operationKey(event.address, event.action), now());
          return;
        case 'operation-done': {
          // Skipped operations are reported once, after the run, with the summary; so are failures.
          if (event.status === 'skipped') return;
          const key = operationKey(event.address, event.action);
          const startedAt = started.get(key);
          started.delete(key);
          done += 1;
          if (event.status !== 'succeeded' || !options.showOperations) return;
          const counter = total === undefined ? '' : `[${done}/${total}] `;
          const took = startedAt === undefined ? '' : ` (${seconds(now() - startedAt)})`;
          const line = `${counter}${operationLine(event.address, event.action, event.status, event.message)}${took}`;
          if (live === undefined) io.stdout.write(`${line}\n`);
          else live.print(io.stdout, line, ticker === undefined ? undefined : operationsLine());
          return;
        }
      }
    },
    expectOperations(count) {
      expected = count;
    },
    finish() {
      stopTicker();
      live?.clear();
    },
    pause() {
      pausedAt ??= now();
    },
    resume() {
      if (pausedAt === undefined) return;
      pausedFor += now() - pausedAt;
      pausedAt = undefined;
    },
    totalLine() {
      return `Total time: ${seconds(now() - createdAt - pausedFor)}`;
    },
  };
}

/** The operations the plans' changes take: one each, two for a replacement (a delete, then a create). */
export function plannedOperations(plans: readonly Plan[]): number {
  const OPERATIONS: Record<string, number> = { create: 1, update: 1, delete: 1, replace: 2 };
  return plans.filter((plan) => !plan.refreshOnly).flatMap((plan) => plan.changes).reduce((sum, change) => sum + (OPERATIONS[change.action] ?? 0), 0);
}

function operationKey(address: string, action: string): string {
  return `${action} ${address}`;
}

/** `0.4 s`, `12.3 s`, `2 min 05 s`. */
export function seconds(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const whole = Math.round(s);
  return `${Math.floor(whole / 60)} min ${String(whole % 60).padStart(2, '0')} s`;
}

export function operationLine(address: string, action: string, status: 'succeeded' | 'failed' | 'skipped', message?: string): string {
  const reason = message ? `: ${message}` : '';
  if (status === 'succeeded') return `${address}: ${DONE_WORDS[action] ?? `${action} done`}${reason}`;
  if (status === 'failed') return `${address}: ${action} failed${reason}`;
  return `${address}: ${action} skipped${reason}`;
}
