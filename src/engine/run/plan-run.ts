import type { EngineOptions } from '../setup/engine-options';
import { EngineError, fail, ok, type Result } from '../errors';
import { objectOfConnection, specOfDesiredResource } from '../setup/desired';
import type { PlanComputation } from '../plan/compute-plan';
import type { Plan } from '../plan/plan';
import { prepareRun, readRunState, savedPlanKey, type RunContext } from '../setup/run-context';
import { planRun } from './planned-run';
import { SAVED_PLAN_FORMAT, SAVED_PLAN_VERSION, type SavedPlan } from '../saved-plan/saved-plan';
import { liveDigests } from '../saved-plan/staleness';
import { startReadAhead } from '../plan/read-ahead';
import type { FingerprintKey } from '../state/fingerprint';
import type { StateFile } from '../state/state-file';

/**
 * One stack's plan (its part of `plan` over a stack set, stacks/stacks-plan.ts): refreshes every resource of the
 * desired state and of the state file (or the targets and what they need) and diffs them into a plan. Reads
 * only: nothing is written, on the service or in state.
 */
export async function planStack(options: EngineOptions): Promise<Result<Plan>> {
  const planned = await computeReadOnly(options);
  return planned.ok ? ok(planned.value.computation.plan) : planned;
}

/**
 * `planStack`, plus the saved plan `apply` can carry out later (`secretform plan --out`): the plan with the desired
 * state it was made from, the state's lineage and serial, a digest of each live object read, and the stacks of the
 * app it depends on (`dependsOn`, under the MAC like the rest), unsigned, with the key to sign it with. Fails when
 * the desired state holds a plain-text secret (only references may be written to a file).
 */
export async function createStackSavedPlan(options: EngineOptions, dependsOn?: readonly string[]): Promise<Result<{ plan: Plan; saved: SavedPlan; key: FingerprintKey }>> {
  const planned = await computeReadOnly(options);
  if (!planned.ok) return planned;
  const { context, state, computation, fingerprintKey } = planned.value;
  // The plan is signed with the stack's key (saved-plan/sign-saved-plan-set.ts, once every stack has planned):
  // a stack that has none yet (no secret was ever fingerprinted in it) gets one now, the only write of a plan.
  const key = fingerprintKey.hasKey ? ok(fingerprintKey) : await savedPlanKey(context, 'write');
  if (!key.ok) return key;
  let desired;
  try {
    desired = context.desired.resources.map(specOfDesiredResource);
  } catch (error) {
    return fail(new EngineError('plan_file', `cannot save the plan: ${(error as Error).message}`));
  }
  const saved: SavedPlan = {
    format: SAVED_PLAN_FORMAT,
    format_version: SAVED_PLAN_VERSION,
    created_at: new Date().toISOString(),
    stack: context.stack,
    refresh_only: options.refreshOnly === true,
    targets: [...(options.targets ?? [])],
    state: { location: context.statePath, lineage: state.lineage, serial: state.serial },
    desired,
    ...(context.desired.connection ? { connection: objectOfConnection(context.desired.connection) } : {}),
    live_objects: liveDigests(computation),
    ...(options.policies !== undefined && options.policies.packs.length > 0 ? { policy_packs: [...options.policies.packs] } : {}),
    ...(dependsOn !== undefined ? { depends_on: [...dependsOn] } : {}),
    plan: computation.plan,
  };
  return ok({ plan: computation.plan, saved, key: key.value });
}

async function computeReadOnly(
  options: EngineOptions,
): Promise<Result<{ context: RunContext; state: StateFile; computation: PlanComputation; fingerprintKey: FingerprintKey }>> {
  const context = prepareRun(options);
  if (!context.ok) return context;
  const ahead = await startReadAhead(context.value);
  const state = ahead ? await ahead.readState() : await readRunState(context.value);
  if (!state.ok) {
    await ahead?.client.close();
    await ahead?.release();
    return state;
  }
  const planned = await planRun(context.value, state.value, 'apply', ahead);
  // The state backend and the service's connections close at the same time: neither waits for the other.
  await Promise.all([ahead?.release(), planned.ok ? planned.value.client.close() : undefined]);
  if (!planned.ok) return planned;
  const { computation, fingerprintKey } = planned.value;
  return ok({ context: context.value, state: state.value, computation, fingerprintKey });
}
