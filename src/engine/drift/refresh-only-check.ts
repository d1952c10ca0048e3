/**
 * The drift check's one door into the engine's planning: a refresh-only plan of one stack, read-only by
 * construction (the run's client sends GET and LIST only, `EngineOptions.readOnly`), with no secret resolved,
 * no lock taken and nothing written. Everything else in src/engine/drift works on what this returns, so a
 * change of the engine's plan API touches this file only.
 */
import type { EngineOptions } from '../setup/engine-options';
import { ok, type Result } from '../errors';
import type { Plan } from '../plan/plan';
import { prepareRun, readRunState } from '../setup/run-context';
import { planRun } from '../run/planned-run';
import type { FingerprintKey } from '../state/fingerprint';
import type { StateLocation } from '../state/state-location';
import { pendingOf, type PendingChange } from './pending';

export interface RefreshOnlyCheck {
  stack: string;
  /** The refresh-only plan: its `drift` is what differs on the service from the last apply. */
  plan: Plan;
  /** What the code changes that was never applied (merged, not applied): never drift. */
  pending: PendingChange[];
  /** The run's fingerprint key (read only): the history's field digests are keyed with it. */
  fingerprintKey: FingerprintKey;
  /** Where the stack's state is: its drift history lives beside it. */
  stateLocation: StateLocation;
}

export async function refreshOnlyCheck(options: EngineOptions): Promise<Result<RefreshOnlyCheck>> {
  const context = prepareRun({ ...options, refreshOnly: true, readOnly: true, targets: [] });
  if (!context.ok) return context;
  // Read without the lock, as a plan reads it: a check never waits for an apply, nor makes one wait.
  const state = await readRunState(context.value);
  if (!state.ok) return state;
  const planned = await planRun(context.value, state.value, 'apply');
  if (!planned.ok) return planned;
  await planned.value.client.close();
  const { computation, fingerprintKey } = planned.value;
  return ok({
    stack: context.value.stack,
    plan: computation.plan,
    pending: pendingOf(computation.resources.values()),
    fingerprintKey,
    stateLocation: context.value.stateLocation,
  });
}
