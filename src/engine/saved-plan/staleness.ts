/**
 * Whether a saved plan is still true when it is applied: the state is the one it was based on, every live object
 * it read is as it was, and the plan computed now from the same inputs is the plan that was saved (a secret value
 * that changed since, say, would change what apply writes). Anything else makes the plan stale: it is refused
 * before any write.
 */
import type { PlanComputation } from '../plan/compute-plan';
import { hasActions, type Plan } from '../plan/plan';
import type { StateFile } from '../state/state-file';
import { STATE_KEY_ENV } from '../state/fingerprint';
import { canonicalJson } from './canonical-json';
import { liveDigest } from './live-digest';
import type { SavedPlan } from './saved-plan';

/** The live digests of every object the computation read, by address. */
export function liveDigests(computation: PlanComputation): Record<string, string | null> {
  const digests: Record<string, string | null> = {};
  for (const resource of [...computation.resources.values()].sort((a, b) => (a.address < b.address ? -1 : 1))) {
    digests[resource.address] = liveDigest(resource.resourceType, resource.live.attributes);
  }
  return digests;
}

/** Why the saved plan is stale (empty when it is not), each reason naming what changed. */
export function staleReasons(saved: SavedPlan, state: StateFile, computation: PlanComputation): string[] {
  const reasons: string[] = [];
  const stateReason = stateChange(saved.state, state);
  if (stateReason) reasons.push(stateReason);

  const now = liveDigests(computation);
  const changedObjects = [...new Set([...Object.keys(saved.live_objects), ...Object.keys(now)])]
    .sort()
    .filter((address) => saved.live_objects[address] !== now[address])
    .map((address) => `${address} (${describeLiveChange(saved.live_objects[address], now[address])})`);
  if (changedObjects.length > 0) reasons.push(`live objects changed on the service since the plan was made: ${changedObjects.join(', ')}`);

  // Same state and same live objects give the same plan, unless an input outside both changed (a secret value).
  if (reasons.length === 0) {
    const differing = differingAddresses(saved.plan, computation.plan);
    if (differing.length > 0) {
      reasons.push(`the plan computed now differs for ${differing.join(', ')} (a secret's value or ${STATE_KEY_ENV} changed since the plan was made)`);
    }
  }
  return reasons;
}

/**
 * Whether the saved plan was applied already: the state is the plan's own lineage at a later serial, and
 * planning the plan's desired state now finds nothing left of what the plan would do (its changes are in
 * place). Re-applying it is refused as "already applied", not as stale with every object listed as changed.
 */
export function wasApplied(saved: SavedPlan, state: StateFile, computation: PlanComputation): boolean {
  const samePlanLineage = saved.state.serial === 0 || saved.state.lineage === state.lineage;
  if (!samePlanLineage || state.serial <= saved.state.serial) return false;
  if (saved.refresh_only) return saved.plan.drift.length > 0 && computation.plan.drift.length === 0;
  return hasActions(saved.plan) && !hasActions(computation.plan);
}

function stateChange(planned: SavedPlan['state'], state: StateFile): string | undefined {
  // A state never written gets a fresh lineage on every read: the plan holds while nothing was written.
  if (planned.serial === 0 && state.serial === 0) return undefined;
  if (planned.serial !== 0 && planned.lineage !== state.lineage) return `the state is another one (lineage ${state.lineage}, the plan was made from ${planned.lineage})`;
  if (planned.serial !== state.serial) return `the state changed since the plan was made (serial ${planned.serial} then, ${state.serial} now)`;
  return undefined;
}

function describeLiveChange(before: string | null | undefined, after: string | null | undefined): string {
  if (before === undefined) return 'not read by the plan';
  if (after === undefined) return 'no longer part of the plan';
  if (before === null) return 'created';
  if (after === null) return 'deleted';
  return 'changed';
}

function differingAddresses(saved: Plan, now: Plan): string[] {
  const byAddress = (plan: Plan) => {
    const entries = new Map<string, string>();
    for (const change of plan.changes) entries.set(change.address, canonicalJson(change));
    for (const drift of plan.drift) entries.set(`${drift.address}#drift`, canonicalJson(drift));
    return entries;
  };
  const before = byAddress(saved);
  const after = byAddress(now);
  const addresses = new Set([...before.keys(), ...after.keys()]);
  return [...addresses]
    .filter((key) => before.get(key) !== after.get(key))
    .map((key) => key.replace(/#drift$/, ''))
    .filter((address, index, all) => all.indexOf(address) === index)
    .sort();
}
