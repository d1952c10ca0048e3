/**
 * What bounds a run's requests as a whole, across its stacks: one request budget per service address
 * (`--parallelism`, shared by every stack of the run on that server) and the run's deadline (`--timeout`); and
 * the connection pools that carry those requests, one per server, so the stacks reuse the same connections. A
 * run over a stack set makes them once (src/engine/stacks/) and every stack's client takes its server's budget,
 * its pool and the one deadline; a run started on its own (import, an operation) makes its own.
 */
import { RequestBudgets, RunDeadline, SharedPools, DEFAULT_RUN_TIMEOUT_MS } from '../../client';
import { DEFAULT_PARALLELISM } from './default-parallelism';

export { DEFAULT_PARALLELISM };

/** The settings of a run that bound its requests (the EngineOptions fields of the same names). */
export interface RunLimitSettings {
  runLimits?: RunLimits;
  parallelism?: number;
  timeoutMs?: number;
}

export interface RunLimits {
  budgets: RequestBudgets;
  deadline: RunDeadline;
  /** The run's connection pools, one per server (and settings), shared by its stacks' clients like the budget. */
  pools: SharedPools;
}

/**
 * The run's limits: those `options` carry (made by the stack set for all its stacks), else new ones starting
 * now. Assumes `parallelism` and `timeoutMs` were checked (prepareRun) or are the defaults.
 */
export function runLimitsOf(options: RunLimitSettings): RunLimits {
  return options.runLimits ?? newRunLimits(options);
}

/** Options with the run's limits made now, unless they carry some: what a command over a stack set hands every stack. */
export function withRunLimits<T extends RunLimitSettings>(options: T): T {
  if (options.runLimits !== undefined || !validLimits(options)) return options;
  return { ...options, runLimits: newRunLimits(options) };
}

function newRunLimits(options: RunLimitSettings): RunLimits {
  const timeoutMs = options.timeoutMs ?? DEFAULT_RUN_TIMEOUT_MS;
  return { budgets: new RequestBudgets(options.parallelism ?? DEFAULT_PARALLELISM), deadline: new RunDeadline(timeoutMs, `--timeout ${durationText(timeoutMs)}`), pools: new SharedPools() };
}

/** Invalid values are left for prepareRun to report as the run's error, with the rest of the options' checks. */
function validLimits(options: RunLimitSettings): boolean {
  const { parallelism, timeoutMs } = options;
  return (parallelism === undefined || (Number.isInteger(parallelism) && parallelism >= 1)) && (timeoutMs === undefined || (Number.isFinite(timeoutMs) && timeoutMs > 0));
}

/** 1800000 -> `30m`, 90000 -> `1m30s`, 1500 -> `1500ms`: as --timeout takes it. */
export function durationText(ms: number): string {
  if (ms % 1000 !== 0) return `${ms}ms`;
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor((ms % 3_600_000) / 60_000);
  const seconds = (ms % 60_000) / 1000;
  const text = `${hours > 0 ? `${hours}h` : ''}${minutes > 0 ? `${minutes}m` : ''}${seconds > 0 ? `${seconds}s` : ''}`;
  return text === '' ? '0s' : text;
}
