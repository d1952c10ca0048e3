/**
 * The consequences of the deletes and replacements of a plan: for each such object, its type's
 * `consequences` hook counts on the live service what goes with it (a KV mount's secrets, an auth mount's
 * users ...). Only those objects are asked, so a plan without a delete or replace sends no extra request. A
 * count that cannot be made (no permission, a 2xx answer that is not the listing the call asks for, or a 404
 * that is not the service's own) is a consequence of unknown size, shown where its count would be, and a
 * warning: never 0, and never a failed plan. A hook that throws is such a count too (`thrownConsequence`): what
 * the object takes with it is unknown, not nothing.
 */
import { concurrencyLimit } from '../../lazy-packages';
import type { ServiceClient } from '../../client';
import type { Attributes, Consequence, ConsequenceAnswer, ConsequenceRead, ListingCall, UncountedConsequence } from '../../resources/types';
import { notOfShapeAnswer } from '../refresh/read-answer';
import { uncountedWarning } from './uncounted-warning';
import type { PlanComputation } from '../plan/compute-plan';
import type { Plan, PlannedChange } from '../plan/plan';
import type { ResourcePlan } from '../plan/resource-plan';

/** The computation with `consequences` on each delete and replace that takes something with it. */
export async function withConsequences(computation: PlanComputation, client: ServiceClient, parallelism: number): Promise<PlanComputation> {
  const removed = [...computation.resources.values()].filter(
    (resource) => (resource.change.action === 'delete' || resource.change.action === 'replace') && removedAttributes(resource) !== undefined,
  );
  if (removed.length === 0) return computation;
  const limit = concurrencyLimit(Math.max(1, parallelism));
  const read = async (call: ListingCall): Promise<ConsequenceAnswer> => limit(async () => {
    const answer = await client.request(call.method, call.path, { query: call.query });
    if (answer.ok) {
      const answered = notOfShapeAnswer(client, call, answer);
      return answered === undefined ? { ok: true, body: answer.raw } : { ok: false, why: answered };
    }
    // The service's answer for a path with nothing under it (a LIST with no entries, a mount already gone). A 404
    // in another shape (a proxy's HTML page, another server's JSON) tells nothing: counting it 0 would hide data.
    if (answer.error.status === 404) {
      return answer.error.serviceErrorBody ? { ok: true, body: undefined } : { ok: false, why: notTheServiceNotFound(client, call) };
    }
    return { ok: false, why: answer.error.message };
  });
  const warnings: string[] = [];
  const found = new Map<string, readonly Consequence[]>();
  await Promise.all(removed.map(async (resource) => {
    try {
      const consequences = await consequencesOf(resource, read);
      if (consequences.length > 0) found.set(resource.address, consequences);
      for (const consequence of consequences) {
        if ('uncounted' in consequence) {
          warnings.push(uncountedWarning(resource.address, resource.change.action, consequence));
        }
      }
    } catch (error) {
      const consequence = thrownConsequence(resource, error);
      found.set(resource.address, [consequence]);
      warnings.push(uncountedWarning(resource.address, resource.change.action, consequence));
    }
  }));
  if (found.size === 0 && warnings.length === 0) return computation;
  const withFound = (change: PlannedChange): PlannedChange => {
    const consequences = found.get(change.address);
    return consequences ? { ...change, consequences } : change;
  };
  const resources = new Map([...computation.resources].map(([address, resource]): [string, ResourcePlan] => [address, { ...resource, change: withFound(resource.change) }]));
  // The plan is a value: the counts make a new one.
  const plan: Plan = Object.freeze({
    ...computation.plan,
    changes: Object.freeze(computation.plan.changes.map(withFound)),
    warnings: Object.freeze([...computation.plan.warnings, ...warnings.sort()]),
  });
  return { plan, resources };
}

/** Why a 404 that is not the service's own answer leaves a count unknown, as a consequence's `uncounted` says it. */
function notTheServiceNotFound(client: ServiceClient, call: ListingCall): string {
  return (
    `${call.method} ${client.displayPath(call.path)} answered HTTP 404 without the service's error body ({"errors": [...]}): ` +
    'another server\'s answer (a proxy?), not the service saying that nothing is there'
  );
}

/**
 * What a hook that threw leaves: an unknown number of what the object holds, failing closed like a read that
 * could not be counted (reported as "could not be counted", never as nothing going with it).
 */
function thrownConsequence(resource: ResourcePlan, error: unknown): UncountedConsequence {
  const message = error instanceof Error ? error.message : String(error);
  return {
    what: 'objects',
    uncounted: `counting what ${resource.resourceType.type} ${resource.change.id} holds failed: ${message}`,
    detail: `whatever ${resource.change.id} holds on the service goes with it`,
  };
}

function consequencesOf(resource: ResourcePlan, read: ConsequenceRead): Promise<readonly Consequence[]> {
  // The object that goes is the one recorded in state (a replace with a new identity deletes the old one).
  return resource.resourceType.consequences(resource.deleteIdentity, removedAttributes(resource)!, read);
}

/**
 * The attributes of the object a delete removes: as read, or, when the read was of the new identity of a
 * replaced object, as last applied (its hook then reads the old object's contents).
 */
function removedAttributes(resource: ResourcePlan): Attributes | undefined {
  return resource.live.attributes ?? resource.stateEntry?.attributes;
}
