/** The words of a policy deadline: what happened, and how to give the packs more time. */
import { DEFAULT_POLICY_TIMEOUT_MS } from './loaded-policies';

/** How the deadline is set (policy-flags.ts reads both). */
export const POLICY_TIMEOUT_FLAG = '--policy-timeout';
export const POLICY_TIMEOUT_VARIABLE = 'SECRETFORM_POLICY_TIMEOUT';

/** How to give the packs more time, naming the deadline a run has by default. */
export function timeoutAdvice(defaultTimeoutMs: number): string {
  return `a slow pack can be given more time with ${POLICY_TIMEOUT_FLAG} or ${POLICY_TIMEOUT_VARIABLE} (default ${formatDuration(defaultTimeoutMs)})`;
}

// The default is read, not written out: the advice names the deadline the run really had by default.
export const TIMEOUT_ADVICE = timeoutAdvice(DEFAULT_POLICY_TIMEOUT_MS);

export function describeTimeout(timeoutMs: number): string {
  return `no answer within ${formatDuration(timeoutMs)} (a check that never returns, or returns a promise that never settles)`;
}

export function formatDuration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}
