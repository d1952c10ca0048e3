/**
 * What `secretform destroy` will delete, shown before asking for approval: every resource in state, or the
 * targets and everything that depends on them (as the engine's destroy selects them). Read from the state file
 * alone, so showing it sends no request; the engine refreshes when it runs.
 */
import type { EngineOptions } from '../engine/engine-options';
import { ok, type Result } from '../engine/errors';
import type { Plan, PlannedChange } from '../engine/plan/plan';
import { resolveStack, statePathOf } from '../engine/stack-name';
import { readState, type ResourceState } from '../engine/state/state-file';

export async function destroyPreview(options: EngineOptions): Promise<Result<Plan>> {
  const stack = resolveStack(options);
  if (!stack.ok) return stack;
  const state = await readState(statePathOf(options, stack.value), stack.value);
  if (!state.ok) return state;
  const selected = selectForDestroy(state.value.resources, options.targets);
  const changes = [...selected].sort().map((address) => deletion(address, state.value.resources[address]));
  return ok({ stack: stack.value, refreshOnly: false, changes, drift: [], warnings: [] });
}

/** The targets (all when none) plus, transitively, every resource whose dependencies include one of them. */
export function selectForDestroy(resources: Record<string, Pick<ResourceState, 'dependencies'>>, targets: string[] | undefined): Set<string> {
  const addresses = Object.keys(resources);
  if (targets === undefined || targets.length === 0) return new Set(addresses);
  const selected = new Set(targets.filter((target) => target in resources));
  let grew = true;
  while (grew) {
    grew = false;
    for (const address of addresses) {
      if (selected.has(address)) continue;
      if (resources[address].dependencies.some((dependency) => selected.has(dependency))) {
        selected.add(address);
        grew = true;
      }
    }
  }
  return selected;
}

function deletion(address: string, entry: ResourceState): PlannedChange {
  return {
    address,
    type: entry.type,
    id: entry.id,
    action: 'delete',
    before: entry.attributes,
    after: null,
    sensitive: [],
    replacePaths: [],
    fieldChanges: [],
    secrets: [],
  };
}
