/** Refresh and diff of every selected resource into a plan, keeping what apply needs alongside. */
import type { ServiceClient } from '../../client';
import { getResourceType } from '../../resources/registry';
import type { DesiredResource, DesiredStack } from '../setup/desired';
import type { ProgressEvent } from '../setup/engine-options';
import { ok, type Result } from '../errors';
import { refresh } from '../refresh/refresh';
import { refreshRequestFor, type LiveObject, type RefreshRequest } from '../refresh/refresh-request';
import type { ResolvedSecrets } from '../setup/secret-resolution';
import { isSlowFingerprint, type FingerprintKey } from '../state/fingerprint';
import type { ResourceState, StateFile } from '../state/state-file';
import type { RunMode } from '../setup/targets';
import type { Plan } from './plan';
import { guardrailsOf } from './lifecycle';
import { diffResource, type ResourceDiff } from './resource-diff';
import { DiffBatch } from './diff-batch';
import type { ReadQueue } from '../refresh/read-queue';
import type { ResourcePlan } from './resource-plan';
import { deepFreeze } from '../../deep-freeze';
import { ownValue } from '../../own-keys';

export interface ComputePlanInput {
  client: ServiceClient;
  stack: string;
  desired: DesiredStack;
  state: StateFile;
  /** The resources of the run (see setup/targets.ts). */
  selected: ReadonlySet<string>;
  secrets: ResolvedSecrets;
  /** May still be on its way (read from the service while the refresh runs). */
  fingerprintKey: FingerprintKey | Promise<FingerprintKey>;
  mode: RunMode;
  refreshOnly: boolean;
  parallelism: number;
  /** Reads already sent for this run (a plan's read-ahead); else the refresh sends them all. */
  reads?: ReadQueue;
  warnings: string[];
  onProgress?: (event: ProgressEvent) => void;
}

export interface PlanComputation {
  readonly plan: Plan;
  /** By address, for apply. Holds no secret value. */
  readonly resources: ReadonlyMap<string, ResourcePlan>;
}

export async function computePlan(input: ComputePlanInput): Promise<Result<PlanComputation>> {
  const allDesired = new Map(input.desired.resources.map((r) => [r.address, r] as const));
  const desiredByAddress = input.mode === 'destroy' ? new Map<string, DesiredResource>() : allDesired;
  const warnings = [...input.warnings];
  const resources = new Map<string, ResourcePlan>();
  const moves = input.mode === 'destroy' ? new Map<string, string>() : findMoves(input.desired, allDesired, input.state);
  const stateEntryOf = (address: string) => ownValue(input.state.resources, address) ?? ownValue(input.state.resources, moves.get(address) ?? '');

  let fingerprintKey: FingerprintKey | undefined;
  const keyReady = Promise.resolve(input.fingerprintKey).then((key) => (fingerprintKey = key));
  // Awaited once the refresh succeeded; a refresh that failed first makes its outcome irrelevant.
  keyReady.catch(() => undefined);

  const diffAll = async (addresses: string[]): Promise<Result<void>> => {
    const requests = addresses.map((address) => {
      const inCode = allDesired.get(address);
      const recorded = stateEntryOf(address);
      return refreshRequestFor(address, getResourceType(inCode?.type ?? recorded!.type), {
        desired: inCode?.spec,
        desiredId: inCode?.id,
        recorded,
        identity: desiredByAddress.has(address) ? 'desired' : 'recorded',
      });
    });
    const diffs = new Map<string, ResourceDiff>();
    const diff = (request: RefreshRequest, live: LiveObject, key: FingerprintKey): void => {
      const guardrails = guardrailsOf(allDesired.get(request.address), stateEntryOf(request.address), input.mode === 'destroy');
      // The diff puts the guardrails into the resource's plan: no copy of it per object.
      const diffed = diffResource({
        address: request.address,
        resourceType: request.resourceType,
        desired: desiredByAddress.get(request.address),
        stateEntry: stateEntryOf(request.address),
        live,
        secrets: input.secrets.get(request.address) ?? {},
        fingerprintKey: key,
        refreshOnly: input.refreshOnly,
        guardrails,
      });
      // Frozen now, while other reads are on their way, rather than all at once with the plan after the last
      // answer (planComputation), which then finds them frozen: about 30 ms less after the last answer at 10,000.
      deepFreeze(diffed.plan.change);
      if (diffed.plan.drift) deepFreeze(diffed.plan.drift);
      diffs.set(request.address, diffed);
    };
    // Each object is diffed as soon as it is read, while the other reads are on their way; except before the
    // key is known, and where a slow (scrypt) fingerprint of an older state must be checked first: those are
    // checked all at once on the thread pool after the refresh, never one by one on the event loop.
    const later: RefreshRequest[] = [];
    // Diffed in batches, so that each answer's next request goes out before the others' diffs (diff-batch.ts).
    const toDiff = new DiffBatch((request, object) => {
      if (fingerprintKey && slowComparisons(request, object, input.secrets, stateEntryOf).length === 0) diff(request, object, fingerprintKey);
      else later.push(request);
    });
    const live = await refresh(input.client, requests, {
      parallelism: input.parallelism,
      reads: input.reads,
      onProgress: input.onProgress,
      onRead: (request, object) => toDiff.add(request, object),
    });
    toDiff.flush();
    if (!live.ok) return live;
    const key = fingerprintKey ?? (await keyReady);
    await key.prepare(later.flatMap((request) => slowComparisons(request, live.value.get(request.address)!, input.secrets, stateEntryOf)));
    for (const request of later) diff(request, live.value.get(request.address)!, key);
    for (const request of requests) {
      const { plan, warnings: diffWarnings } = diffs.get(request.address)!;
      const from = moves.get(request.address);
      resources.set(request.address, from === undefined ? plan : { ...plan, movedFrom: from, change: { ...plan.change, previousAddress: from } });
      if (diffWarnings.length > 0) warnings.push(...diffWarnings);
      const said = live.value.get(request.address)!.warnings;
      if (said !== undefined && said.length > 0) warnings.push(...serverWarnings(request.address, said));
    }
    return ok(undefined);
  };

  const movedFrom = new Set(moves.values());
  const first = await diffAll([...input.selected].filter((address) => !movedFrom.has(address)).sort());
  if (!first.ok) return first;

  if (input.mode === 'apply' && !input.refreshOnly) {
    // What lives inside a replaced object (associations of a destination, roles of a mount) goes with it, and
    // must be re-created after it. Such dependents outside a --target selection are refreshed now.
    const dependents = dependentsOfReplaced(resources, input.desired);
    const missing = [...dependents].filter((address) => !resources.has(address)).sort();
    if (missing.length > 0) {
      const second = await diffAll(missing);
      if (!second.ok) return second;
    }
    for (const address of dependents) {
      const resource = resources.get(address)!;
      const replaced = resource.dependencies.filter((dependency) => resources.get(dependency)?.change.action === 'replace' || dependents.has(dependency));
      resources.set(address, goesWithReplaced(resource, replaced));
    }
  }

  return ok(planComputation(input.stack, input.refreshOnly, resources, warnings));
}

/** The plan of these resource plans, frozen: a plan is a value; what changes it later makes a new one. */
export function planComputation(stack: string, refreshOnly: boolean, resources: ReadonlyMap<string, ResourcePlan>, warnings: readonly string[]): PlanComputation {
  // Each change names what it depends on (desired, else as recorded in state): resource-diff.ts sets `dependsOn`
  // as it makes the change, the same array as the resource's `dependencies`.
  const ordered = [...resources.values()].sort((a, b) => compare(a.address, b.address));
  const plan: Plan = deepFreeze({
    stack,
    refreshOnly,
    changes: ordered.map((r) => r.change),
    drift: ordered.flatMap((r) => (r.drift ? [r.drift] : [])),
    warnings: [...warnings],
  });
  return { plan, resources: new Map(ordered.map((r) => [r.address, r])) };
}


/**
 * Resources whose address changed in code: an address in state only, whose object (same type and id) a new
 * address in code manages. Keyed by the new address.
 */
function findMoves(desired: DesiredStack, inCode: ReadonlyMap<string, DesiredResource>, state: StateFile): Map<string, string> {
  // State entries no longer in code, by object (type and id), in state order: looked up, not scanned per resource.
  // Only their addresses are listed first (no [address, entry] pair per recorded object: nearly all are in code).
  const leftInState = new Map<string, string[]>();
  for (const address of Object.keys(state.resources)) {
    if (inCode.has(address)) continue;
    const entry = state.resources[address];
    const key = `${entry.type}\n${entry.id}`;
    const list = leftInState.get(key);
    if (list) list.push(address);
    else leftInState.set(key, [address]);
  }
  const moves = new Map<string, string>();
  if (leftInState.size === 0) return moves;
  for (const resource of desired.resources) {
    if (ownValue(state.resources, resource.address)) continue;
    const from = leftInState.get(`${resource.type}\n${resource.id}`)?.shift();
    if (from !== undefined) moves.set(resource.address, from);
  }
  return moves;
}

/**
 * (desired value, recorded fingerprint) of the slow fingerprints the diff of one object will compare: asked for
 * every object read, so a plain array (almost always empty), not a generator.
 */
function slowComparisons(
  request: RefreshRequest,
  live: LiveObject,
  secrets: ResolvedSecrets,
  stateEntryOf: (address: string) => ResourceState | undefined,
): Array<[string, string]> {
  const found: Array<[string, string]> = [];
  if (!live.attributes) return found;
  const recorded = stateEntryOf(request.address)?.secrets;
  const desired = secrets.get(request.address);
  if (!recorded || !desired) return found;
  for (const field in desired) {
    const fingerprint = recorded[field];
    if (fingerprint !== undefined && isSlowFingerprint(fingerprint)) found.push([desired[field], fingerprint]);
  }
  return found;
}

/** Desired resources that (transitively) depend on a replaced resource, and exist now. */
function dependentsOfReplaced(resources: Map<string, ResourcePlan>, desired: DesiredStack): Set<string> {
  const replaced = new Set<string>();
  for (const resource of resources.values()) if (resource.change.action === 'replace') replaced.add(resource.address);
  const dependents = new Set<string>();
  // Nothing replaced (most plans): nothing goes with it, and the walk over every desired resource is not needed
  // (it ran after the last answer of a plan, before its report).
  if (replaced.size === 0) return dependents;
  let grew = true;
  while (grew) {
    grew = false;
    for (const resource of desired.resources) {
      if (dependents.has(resource.address) || replaced.has(resource.address)) continue;
      if (resource.dependsOn.some((dependency) => replaced.has(dependency) || dependents.has(dependency))) {
        dependents.add(resource.address);
        grew = true;
      }
    }
  }
  return dependents;
}

/** An update or no-op turned into delete-and-create, because an object it lives in is replaced. */
function goesWithReplaced(resource: ResourcePlan, replaced: string[]): ResourcePlan {
  const planned = resource.change;
  if (planned.action !== 'update' && planned.action !== 'no-op') return resource; // already created or replaced
  if (resource.live.attributes === null || !resource.canonical || !resource.desired) return resource;
  const secretFields = Object.keys(resource.desired.secrets);
  return {
    ...resource,
    change: {
      ...planned,
      action: 'replace',
      reasons: [{ kind: 'container_replaced', replaced }],
      after: resource.canonical,
      sensitive: secretFields,
      secrets: secretFields.map((field) => ({ field, status: 'changed' as const })),
    },
    writeAttributes: resource.canonical,
    clear: [],
    writeCall: true,
    writeSecrets: secretFields,
  };
}

/** What the service warned about while reading a resource, once each, named by the resource. */
export function serverWarnings(address: string, warnings: readonly string[] | undefined): string[] {
  if (warnings === undefined || warnings.length === 0) return [];
  return [...new Set(warnings)].map((warning) => `${address}: the service warned: ${warning}`);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
