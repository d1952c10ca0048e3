/**
 * What apply, destroy and `apply PLANFILE` take beyond the engine options (the approval and lock hooks) and what
 * they return: part of the engine's public contract (setup/engine-options.ts), apart from it because both name
 * the plan, and setup, which prepares a run's inputs, comes before the plan in the stage order.
 */
import type { Plan } from '../plan/plan';
import type { EngineOptions } from '../setup/engine-options';

export interface ApplyOptions extends EngineOptions {
  /**
   * Called with the plan computed under the state lock, before anything is changed: resolve false to stop
   * (nothing is changed; the result has no outcomes and `confirmed: false`). This is how the CLI shows the plan
   * and asks for approval without refreshing twice, and without the plan going stale before it is carried out.
   */
  confirm?: (plan: Plan) => Promise<boolean> | boolean;
  /**
   * Called once the stack's state lock is held, before any request: a run over several stacks takes its locks
   * one after the other in a fixed order (sorted stack names), so two runs never wait on each other's locks.
   */
  onStateLocked?: () => void;
}

export interface OperationOutcome {
  address: string;
  /** `create`, `update`, `delete`, or for a replacement its two steps `replace:delete` and `replace:create`. */
  action: string;
  status: 'succeeded' | 'failed' | 'skipped';
  /** Why it failed or was skipped (never holds a secret value). */
  message?: string;
  /** What the service warned about (envelope `warnings`), once each, secrets removed. */
  warnings?: string[];
  /** It failed with the run-level failure that stopped the run (reported once, in `ApplyResult.runFailure`). */
  stoppedByRunFailure?: boolean;
}

export interface ApplyResult {
  /** The plan that was carried out. */
  plan: Plan;
  outcomes: OperationOutcome[];
  /** True when the run was stopped by the signal before everything ran. */
  interrupted: boolean;
  /** True when every operation succeeded and the run was not interrupted. */
  succeeded: boolean;
  /** False when `confirm` declined the plan (then nothing ran). */
  confirmed: boolean;
  /**
   * A failure that concerned the whole run (wrong token, service unreachable, TLS) and stopped it: no operation
   * started after it. The message names the likely cause; it is the one report of that failure.
   */
  runFailure?: string;
  /** The service's warnings during the run, `<address>: the service warned: <text>`, once per resource. */
  warnings?: string[];
  /** State entries changed without a request: moves recorded, objects forgotten, refreshed state recorded. */
  stateOnly: StateOnlyChange[];
}

export interface StateOnlyChange {
  address: string;
  /**
   * `moved` (from `from`), `forgotten` (deleted outside and not in code), `retained` (the plan's `forget`: left
   * on the service by `retainOnDelete`, removed from state), `refreshed` (the live state recorded).
   */
  change: 'moved' | 'forgotten' | 'retained' | 'refreshed';
  from?: string;
  /**
   * `refreshed` because the construct's `protect` or `retainOnDelete` was added or removed: the new value of
   * each that changed (a report says the guardrail is what was recorded, not only "refreshed state").
   */
  guardrails?: { protect?: boolean; retainOnDelete?: boolean };
}
