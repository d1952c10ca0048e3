/** The requests that create, update and delete one object, built from the resource model. */
import { setTimeout as sleep } from 'node:timers/promises';
import { SecretScrubber, type ServiceClient } from '../../client';
import type { ApiCall, Attributes } from '../../resources/types';
import type { ResourcePlan } from '../plan/resource-plan';

/** A destination purge runs asynchronously on the service: how often, and how long, apply waits for it. */
export const PURGE_POLL_INTERVAL_MS = 200;
export const PURGE_WAIT_LIMIT_MS = 60_000;

/**
 * Creates the object (every field and every desired secret in the body) or updates it: the write call when a
 * field or a body secret changed, then the own call of each secret that has one (userpass `password`).
 * Returns the service's warnings (secrets removed); a failed request throws its ServiceClientError.
 */
export async function writeObject(client: ServiceClient, resource: ResourcePlan, secrets: Readonly<Record<string, string>>, create: boolean): Promise<string[]> {
  const warnings: string[] = [];
  const { resourceType } = resource;
  const canonical = resource.canonical!;
  const api = resourceType.api(canonical);
  const secretsFor = (fields: string[]): Record<string, string> =>
    Object.fromEntries(fields.flatMap((field) => (secrets[field] === undefined ? [] : [[field, secrets[field]]])));

  if (create) {
    const sent = secretsFor(resource.writeSecrets);
    const body = resourceType.writeBody(canonical, { create: true, secrets: sent });
    warnings.push(...(await send(client, api.create, body, { secrets: Object.values(sent) })));
    return warnings;
  }
  const ownCall = resource.writeSecrets.filter((field) => api.extra[field] !== undefined);
  const inBody = resource.writeSecrets.filter((field) => api.extra[field] === undefined);
  if (resource.writeCall) {
    const sent = secretsFor(inBody);
    const body = resourceType.writeBody(resource.writeAttributes, { create: false, secrets: sent, clear: resource.clear });
    warnings.push(...(await send(client, api.update, body, { secrets: Object.values(sent) })));
  }
  for (const field of ownCall) {
    if (secrets[field] === undefined) continue;
    warnings.push(...(await send(client, api.extra[field], { [field]: secrets[field] }, { secrets: [secrets[field]] })));
  }
  return warnings;
}

/**
 * Deletes the object recorded for the resource. Already gone counts as deleted. A destination that still has
 * associations (not ours: ours were removed first) is deleted with `purge=true`, and apply waits until the
 * service has finished the purge, so what depended on it (its GitHub app) can go next.
 */
export async function deleteObject(client: ServiceClient, resource: ResourcePlan): Promise<string[]> {
  const api = resource.resourceType.api(resource.deleteIdentity);
  const purgeDelete = api.extra.purgeDelete;
  const associations = api.extra.associations;
  if (purgeDelete && associations) {
    const read = await client.request(associations.method, associations.path, { query: associations.query });
    if (!read.ok && read.error.status !== 404) throw read.error;
    if (read.ok && hasAssociations(read.data)) {
      const warnings = await send(client, purgeDelete, undefined, { absentIsDone: true });
      await waitUntilGone(client, api.read, resource.address);
      return warnings;
    }
  }
  return send(client, api.delete, api.delete.body, { absentIsDone: true });
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

function hasAssociations(data: unknown): boolean {
  const secrets = (data as { associated_secrets?: unknown } | undefined)?.associated_secrets;
  return typeof secrets === 'object' && secrets !== null && Object.keys(secrets).length > 0;
}

async function waitUntilGone(client: ServiceClient, read: ApiCall, address: string): Promise<void> {
  const deadline = Date.now() + PURGE_WAIT_LIMIT_MS;
  for (;;) {
    const result = await client.request(read.method, read.path, { query: read.query });
    if (!result.ok && result.error.status === 404) return;
    if (!result.ok) throw result.error;
    if (Date.now() >= deadline) {
      throw new Error(`${address}: the service is still purging the destination after ${PURGE_WAIT_LIMIT_MS / 1000} s; run again once it is gone`);
    }
    await sleep(PURGE_POLL_INTERVAL_MS);
  }
}
