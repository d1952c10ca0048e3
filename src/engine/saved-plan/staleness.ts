/**
 * Whether a saved plan is still true when it is applied: the state is the one it was based on, every live object
 * it read is as it was, and the plan computed now from the same inputs is the plan that was saved (a secret value
 * that changed since, say, would change what apply writes). Anything else makes the plan stale: it is refused
 * before any write.
 */
import { createHash } from 'node:crypto';
import type { PlanComputation } from '../plan/compute-plan';
import type { Plan } from '../plan/plan';
import type { StateVersionInfo } from '../state/backend';
import type { StateFile } from '../state/state-file';
import { STATE_KEY_ENV } from '../state/fingerprint';
import { canonicalJson } from './canonical-json';
import { liveDigest } from './live-digest';
import type { SavedPlan } from './saved-plan';
import { ownValue, setOwn } from '../../own-keys';

/** The live digests of every object the computation read, by address. */
export function liveDigests(computation: PlanComputation): Record<string, string | null> {
  const digests: Record<string, string | null> = {};
  for (const resource of [...computation.resources.values()].sort((a, b) => (a.address < b.address ? -1 : 1))) {
    setOwn(digests, resource.address, liveDigest(resource.resourceType, resource.live.attributes));
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
    .filter((address) => ownValue(saved.live_objects, address) !== ownValue(now, address))
    .map((address) => `${address} (${describeLiveChange(ownValue(saved.live_objects, address), ownValue(now, address))})`);
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

/** A short id of a saved plan's content, recorded with the state version its apply writes. */
export function savedPlanId(saved: SavedPlan): string {
  return createHash('sha256').update(canonicalJson({ ...saved, mac: undefined }), 'utf8').digest('hex').slice(0, 16);
}

/** The history label of the state version written by applying `saved`. */
export function savedPlanApplyCommand(saved: SavedPlan): string {
  return `secretform apply PLANFILE (saved plan ${savedPlanId(saved)})`;
}

/**
 * Whether this very plan was applied already: a later version of the plan's state lineage was written by
 * applying it (its id is in the version's label). Re-applying it is refused as "already applied", not as
 * stale with every object listed as changed. A twin plan made from the same inputs but not applied is stale.
 */
export function appliedVersion(saved: SavedPlan, history: readonly StateVersionInfo[]): StateVersionInfo | undefined {
  const label = savedPlanApplyCommand(saved);
  return history.find((version) =>
    version.serial > saved.state.serial && (saved.state.serial === 0 || version.lineage === saved.state.lineage) && version.command === label);
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
    // Consequences are counts of what else lives on the service: they inform the review, they do not change
    // what apply does (the live object itself is compared by its digest above).
    for (const { consequences: _counted, ...change } of plan.changes) entries.set(change.address, canonicalJson(change));
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
