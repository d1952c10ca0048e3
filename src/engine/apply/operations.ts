/** The requests that create, update and delete one object, built from the resource model. */
import { setTimeout as sleep } from 'node:timers/promises';
import { SecretScrubber, type ServiceClient } from '../../client';
import type { ApiCall, Attributes } from '../../resources/types';
import type { ResourcePlan } from '../plan/resource-plan';
import { occupancyOf, unknownOccupancyError } from './delete-occupancy';

/** A delete the service finishes asynchronously (a destination purge): how often, and how long, apply waits for it. */
export const ASYNC_DELETE_POLL_INTERVAL_MS = 200;
export const ASYNC_DELETE_WAIT_LIMIT_MS = 60_000;

/**
 * Creates the object (every field and every desired secret in the body) or updates it: the write call when a
 * field or a body secret changed, then the call of each secret the type writes on its own.
 * Returns the service's warnings (secrets removed); a failed request throws its ServiceClientError.
 */
export async function writeObject(client: ServiceClient, resource: ResourcePlan, secrets: Readonly<Record<string, string>>, create: boolean): Promise<string[]> {
  const warnings: string[] = [];
  const { resourceType } = resource;
  const canonical = resource.canonical!;
  const api = resourceType.api(canonical);
  const secretsFor = (fields: readonly string[]): Record<string, string> =>
    Object.fromEntries(fields.flatMap((field) => (secrets[field] === undefined ? [] : [[field, secrets[field]]])));

  if (create) {
    const sent = secretsFor(resource.writeSecrets);
    const body = resourceType.writeBody(canonical, { create: true, secrets: sent });
    warnings.push(...(await send(client, api.create, body, { secrets: Object.values(sent) })));
    return warnings;
  }
  const ownCalls = resourceType.secretWriteCalls(canonical);
  const inBody = resource.writeSecrets.filter((field) => ownCalls[field] === undefined);
  if (resource.writeCall) {
    const sent = secretsFor(inBody);
    const body = resourceType.writeBody(resource.writeAttributes, { create: false, secrets: sent, clear: resource.clear });
    warnings.push(...(await send(client, api.update, body, { secrets: Object.values(sent) })));
  }
  for (const field of resource.writeSecrets) {
    const call = ownCalls[field];
    if (call === undefined || secrets[field] === undefined) continue;
    warnings.push(...(await send(client, call, { [field]: secrets[field] }, { secrets: [secrets[field]] })));
  }
  return warnings;
}

/**
 * Deletes the object recorded for the resource, following its type's delete steps. Already gone counts as
 * deleted. When the type has another call for an object that still holds something, and the probe says it
 * does, that call is sent instead, and apply may wait until the service has finished it. A probe answer that
 * is not its listing fails the delete before anything is sent (delete-occupancy.ts).
 */
export async function deleteObject(client: ServiceClient, resource: ResourcePlan): Promise<string[]> {
  const { resourceType, deleteIdentity } = resource;
  const steps = resourceType.deleteSteps(deleteIdentity);
  const occupied = steps.whenOccupied;
  if (occupied) {
    const probe = await client.request(occupied.probe.method, occupied.probe.path, { query: occupied.probe.query });
    const occupancy = occupancyOf(client, occupied, probe);
    if (occupancy.kind === 'failed') throw occupancy.error;
    if (occupancy.kind === 'unknown') throw unknownOccupancyError(client, occupied, occupancy.why);
    if (occupancy.kind === 'occupied') {
      const warnings = await send(client, occupied.call, occupied.call.body, { absentIsDone: true });
      if (occupied.awaitGone) await waitUntilGone(client, resourceType.api(deleteIdentity).read, resource.address);
      return warnings;
    }
  }
  return send(client, steps.call, steps.call.body, { absentIsDone: true });
}

interface SendOptions {
  /** A 404 means the object is already gone: done. */
  absentIsDone?: boolean;
  /** Secret values in the body: a server may quote what it was sent, and a failure message must not carry them. */
  secrets?: readonly string[];
}

/**
 * The service's warnings on success; throws the client's error otherwise. The run's client already removes every
 * secret of the run from server text; the secrets of this body are removed again here, whatever client it was.
 */
async function send(client: ServiceClient, call: ApiCall, body: Attributes | undefined, options: SendOptions = {}): Promise<string[]> {
  const scrubber = new SecretScrubber(options.secrets ?? []);
  const result = await client.request(call.method, call.path, {
    body: call.method === 'GET' || call.method === 'DELETE' ? undefined : body ?? call.body ?? {},
    query: call.query,
    contentType: call.contentType,
    // Every write secretform makes is a "set": repeating it leaves the same object.
    idempotent: true,
  });
  if (result.ok) return result.warnings.map((warning) => scrubber.scrub(warning));
  if (options.absentIsDone && result.error.status === 404) return [];
  result.error.message = scrubber.scrub(result.error.message);
  result.error.errors = result.error.errors.map((text) => scrubber.scrub(text));
  throw result.error;
}

async function waitUntilGone(client: ServiceClient, read: ApiCall, address: string): Promise<void> {
  const deadline = Date.now() + ASYNC_DELETE_WAIT_LIMIT_MS;
  for (;;) {
    const result = await client.request(read.method, read.path, { query: read.query });
    if (!result.ok && result.error.status === 404) return;
    if (!result.ok) throw result.error;
    if (Date.now() >= deadline) {
      throw new Error(`${address}: the service is still deleting the object after ${ASYNC_DELETE_WAIT_LIMIT_MS / 1000} s; run again once it is gone`);
    }
    await sleep(ASYNC_DELETE_POLL_INTERVAL_MS);
  }
}
