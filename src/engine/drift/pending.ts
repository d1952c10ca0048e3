/**
 * Pending changes: what the code says differs from the state as last applied (merged, not applied yet). They are
 * listed apart from drift, which is the service differing from the last apply: a pending change is the team's own
 * next apply, not something done outside the code.
 */
import { threeWayDiff } from '../plan/diff/three-way';
import { diffTraits } from '../plan/resource-diff';
import type { ResourcePlan } from '../plan/resource-plan';

export interface PendingChange {
  address: string;
  type: string;
  /** `create`: in code, never applied; `delete`: applied, gone from code; `replace`: another object in code now. */
  action: 'create' | 'update' | 'replace' | 'delete';
  /** For `update`: the non-secret fields the code changed since the last apply. */
  fields: string[];
}

/**
 * The pending change of each resource, from the code (canonical desired attributes) and the last applied state
 * alone: the live object plays no part. Secret fields are not compared (a drift check resolves no secret).
 */
export function pendingOf(resources: Iterable<ResourcePlan>): PendingChange[] {
  const pending: PendingChange[] = [];
  for (const resource of resources) {
    const { address, desired, stateEntry, canonical } = resource;
    const type = resource.resourceType.type;
    if (desired && !stateEntry) pending.push({ address, type, action: 'create', fields: [] });
    else if (!desired && stateEntry) pending.push({ address, type, action: 'delete', fields: [] });
    else if (desired && stateEntry && canonical) {
      if (desired.id !== stateEntry.id) {
        pending.push({ address, type, action: 'replace', fields: [] });
        continue;
      }
      // Live taken as the last applied value: what remains is exactly where the code moved away from it.
      const { changes } = threeWayDiff(canonical, stateEntry.attributes, stateEntry.attributes, diffTraits(resource.resourceType));
      if (changes.length > 0) pending.push({ address, type, action: 'update', fields: changes.map((change) => change.field).sort() });
    }
  }
  return pending.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
}
