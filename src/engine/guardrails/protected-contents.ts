/**
 * Protected objects a plan would delete without planning their delete: those living in an object the plan
 * deletes or replaces (a user in its auth mount, a role in its secrets mount, an association in its destination;
 * the types' `livesIn` hooks say which). The service deletes them with their container, so `protect` must refuse
 * the container's delete. Every object of the stack counts, in code or in state, whether the run selected it
 * (--target) or not, and whether the code references the container or names it by its path. A retained object
 * (`retainOnDelete`) counts too, the one the plan forgets included: it is promised to stay on the service, and
 * its container's delete would take it.
 */
import { findResourceType } from '../../resources/registry';
import type { Attributes, ResourceType } from '../../resources/types';
import type { PlanComputation } from '../plan/compute-plan';
import type { ResourcePlan } from '../plan/resource-plan';
import type { DesiredStack } from '../setup/desired';
import type { RunMode } from '../setup/targets';
import type { ResourceState, StateFile } from '../state/state-file';
import { guardrailsOf } from '../plan/lifecycle';

export interface ProtectedContent {
  readonly address: string;
  readonly id: string;
  /** The deleted or replaced object it lives in. */
  readonly container: ResourcePlan;
  /** What keeps it: `protect`, or `retainOnDelete` (protect wins when it has both). */
  readonly keptBy: 'protect' | 'retainOnDelete';
  /** The other stack whose state records it, when it is not the plan's own. */
  readonly stack?: string;
}

/** Protected objects that go with a container the plan deletes or replaces, each once (its first container). */
export function protectedContents(computation: PlanComputation, mode: RunMode, desired: DesiredStack, state: StateFile): ProtectedContent[] {
  const containers = removedContainers(computation);
  if (containers.size === 0) return [];
  const inCode = new Map(desired.resources.map((resource) => [resource.address, resource] as const));
  const addresses = new Set([...computation.resources.keys(), ...inCode.keys(), ...Object.keys(state.resources)]);
  const found: ProtectedContent[] = [];
  for (const address of [...addresses].sort()) {
    const planned = computation.resources.get(address);
    // Its own delete or replace is refused as such (protection.ts); a create is of an object not there yet. A
    // forgotten (retained) object stays on the service: its container's delete must not take it.
    if (planned && !['no-op', 'update', 'forget'].includes(planned.change.action)) continue;
    const stateEntry = Object.hasOwn(state.resources, address) ? state.resources[address] : undefined;
    const object = existingObject(stateEntry, planned);
    if (!object) continue;
    const guardrails = planned?.guardrails ?? guardrailsOf(inCode.get(address), stateEntry, mode === 'destroy');
    if (!guardrails.protect && !guardrails.retainOnDelete) continue;
    const container = object.resourceType.livesIn(object.spec).map((id) => containers.get(id)).find((resource) => resource !== undefined);
    if (container && container.address !== address) {
      found.push({ address, id: object.resourceType.id(object.spec), container, keptBy: guardrails.protect ? 'protect' : 'retainOnDelete' });
    }
  }
  return found;
}

/**
 * Protected and retained objects of other stacks on the same service (run/other-stacks.ts) that live in a
 * container this plan deletes or replaces: as their last apply recorded them (their construct's `protect` and
 * `retainOnDelete` while it is in their code, else the state's), each once.
 */
export function protectedContentsElsewhere(computation: PlanComputation, others: readonly { desired: DesiredStack; state: StateFile }[]): ProtectedContent[] {
  const containers = removedContainers(computation);
  if (containers.size === 0) return [];
  const found: ProtectedContent[] = [];
  for (const other of others) {
    const inCode = new Map(other.desired.resources.map((resource) => [resource.address, resource] as const));
    for (const [address, stateEntry] of Object.entries(other.state.resources).sort(([a], [b]) => (a < b ? -1 : 1))) {
      const object = existingObject(stateEntry, undefined);
      if (!object) continue;
      const guardrails = guardrailsOf(inCode.get(address), stateEntry, false);
      if (!guardrails.protect && !guardrails.retainOnDelete) continue;
      const container = object.resourceType.livesIn(object.spec).map((id) => containers.get(id)).find((resource) => resource !== undefined);
      if (container) found.push({ address, id: object.resourceType.id(object.spec), container, keptBy: guardrails.protect ? 'protect' : 'retainOnDelete', stack: other.state.stack });
    }
  }
  return found;
}

/** The objects the plan deletes or replaces, by the id of the object that goes. */
function removedContainers(computation: PlanComputation): Map<string, ResourcePlan> {
  const containers = new Map<string, ResourcePlan>();
  for (const resource of computation.resources.values()) {
    if (resource.change.action === 'delete' || resource.change.action === 'replace') containers.set(resource.resourceType.id(resource.deleteIdentity), resource);
  }
  return containers;
}

/**
 * The type and identity of an object that exists: one the plan read as live, or, outside the run's selection,
 * one the last apply recorded (a construct only in code, never applied, has nothing to lose).
 */
function existingObject(stateEntry: ResourceState | undefined, planned: ResourcePlan | undefined): { resourceType: ResourceType; spec: Attributes } | undefined {
  if (planned) return planned.live.attributes === null ? undefined : { resourceType: planned.resourceType, spec: planned.deleteIdentity };
  if (!stateEntry) return undefined;
  // A type this version does not know is refused elsewhere when selected; unselected, it is none of this check's.
  const resourceType = findResourceType(stateEntry.type);
  return resourceType ? { resourceType, spec: stateEntry.attributes } : undefined;
}
