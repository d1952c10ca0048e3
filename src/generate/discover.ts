/**
 * Discovery: finds every object of the types that declare `discover` (the resource model holds the listing
 * endpoints), then reads each with the engine's refresh, through one client, at most `parallelism` requests at
 * a time. Identical calls (the mount listing, a destination-type listing) are sent once. A listing that answered
 * 2xx must have the shape its type declares for it (listing-answer.ts); one that answered 404 is an empty area
 * only once the run knows it talks to the service (service-proof.ts). An object a listing named whose read then
 * finds nothing is left out with a warning.
 */
import { confirmService, notTheServiceMessage, type ServiceClient } from '../client';
import { EngineError, fail, ok, type Result } from '../engine/errors';
import { notFoundAnswer, notOfShapeAnswer } from '../engine/refresh/read-answer';
import { refresh } from '../engine/refresh/refresh';
import { keysBesides } from '../resources/discovery';
import { allResourceTypes } from '../resources/registry';
import type { Attributes, ListingCall, ResourceType } from '../resources/types';
import { appendAll } from '../append-all';
import { concurrencyLimit } from '../lazy-packages';
import { notAListingError } from './listing-answer';
import { serviceProven, type EmptyListing } from './service-proof';

/** One object found on the service and read back. */
export interface DiscoveredObject {
  readonly resourceType: ResourceType;
  /** The object's id (its API path), e.g. `cloud/roles/deployer`. */
  readonly id: string;
  /** Canonical live attributes (identity fields included, secrets never). */
  readonly attributes: Attributes;
  /** Secret fields the object holds (values unknown: the generated code reads them from the environment). */
  readonly secrets: readonly string[];
}

export interface Discovery {
  /** Sorted by type (registry order), then id. */
  readonly objects: readonly DiscoveredObject[];
  /** What the model cannot express, sorted: unknown mount or destination types, fields the model lacks. */
  readonly unexpressed: readonly string[];
  /** Objects listed whose read then found nothing (left out of the app), sorted. */
  readonly warnings: readonly string[];
}

export async function discover(client: ServiceClient, options: { parallelism: number }): Promise<Result<Discovery>> {
  const limit = concurrencyLimit(Math.max(1, options.parallelism));
  const answers = new Map<string, Promise<unknown>>();
  const emptyListings: EmptyListing[] = [];
  const read = (call: ListingCall): Promise<unknown> => {
    const key = `${call.method} ${call.path} ${JSON.stringify(call.query ?? {})}`;
    let answer = answers.get(key);
    if (!answer) {
      answer = limit(async () => {
        const result = await client.request(call.method, call.path, { query: call.query });
        if (result.ok) {
          const answered = notOfShapeAnswer(client, call, result);
          if (answered !== undefined) throw notAListingError(client, answered);
          return result.raw;
        }
        if (result.error.status === 404) {
          emptyListings.push({ path: call.path, how: notFoundAnswer(client, call, result.error.errors) });
          return undefined;
        }
        throw await failedListingError(client, call, result.error.message);
      });
      answers.set(key, answer);
    }
    return answer;
  };

  const objects: DiscoveredObject[] = [];
  const unexpressed = new Set<string>();
  const warnings: string[] = [];
  const byType = new Map<string, DiscoveredObject[]>();
  try {
    for (const resourceType of typesInDiscoveryOrder()) {
      const spec = resourceType.discover!;
      const parents: (Attributes | undefined)[] = spec.within ? (byType.get(spec.within) ?? []).map((parent) => parent.attributes) : [undefined];
      const results = await Promise.all(parents.map((parent) => spec.find(read, parent)));
      const identities = results.flatMap((result) => result.found);
      for (const line of results.flatMap((result) => result.unexpressed ?? [])) unexpressed.add(line);

      const requests = identities.map((identity) => ({ address: resourceType.id(identity), resourceType, identity }));
      const live = await refresh(client, requests, { parallelism: options.parallelism });
      if (!live.ok) return live;
      const found: DiscoveredObject[] = [];
      for (const request of requests) {
        const object = live.value.get(request.address);
        if (!object?.attributes) {
          // An unconfigured engine's configuration is simply not there; a listed object that is not, is news.
          if (!spec.foundUnlisted) warnings.push(vanishedWarning(client, resourceType, request.address, request.identity));
          continue;
        }
        const data = object.data ?? {};
        found.push({
          resourceType,
          id: request.address,
          attributes: resourceType.discover?.asWritten ? resourceType.discover.asWritten(object.attributes) : object.attributes,
          secrets: secretsHeld(resourceType, data),
        });
        for (const key of unmodelledKeys(resourceType, data, request.identity)) {
          unexpressed.add(`${request.address}: field ${JSON.stringify(key)} (not in secretform's model of ${resourceType.type})`);
        }
      }
      found.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      byType.set(resourceType.type, found);
      appendAll(objects, found);
    }
  } catch (error) {
    if (error instanceof EngineError) return fail(error);
    throw error;
  }
  // The app says that what it leaves out is not on the service: a conclusion from every area that read as empty.
  const proven = await serviceProven(client, emptyListings);
  if (!proven.ok) return proven;
  return ok({ objects, unexpressed: [...unexpressed].sort(), warnings: warnings.sort() });
}

/** An object a listing named whose read found nothing: gone since, or a listing that names what is not there. */
function vanishedWarning(client: ServiceClient, resourceType: ResourceType, address: string, identity: Attributes): string {
  const call = resourceType.api(identity).read;
  return (
    `${address} was listed, but its read (${call.method} ${client.displayPath(call.path)}) found nothing, so it is left out of the app. ` +
    'It was deleted between the listing and the read, or the server lists objects it does not have: run generate again to see which.'
  );
}

/** Types that declare discovery, each after the type its objects live in. */
function typesInDiscoveryOrder(): ResourceType[] {
  const types = allResourceTypes().filter((resourceType) => resourceType.discover);
  const ordered: ResourceType[] = [];
  const visit = (resourceType: ResourceType): void => {
    if (ordered.includes(resourceType)) return;
    const parent = types.find((candidate) => candidate.type === resourceType.discover?.within);
    if (parent) visit(parent);
    ordered.push(resourceType);
  };
  types.forEach(visit);
  return ordered;
}

function secretsHeld(resourceType: ResourceType, data: Record<string, unknown>): string[] {
  const held = resourceType.discover?.secretsHeld
    ? resourceType.discover.secretsHeld(data)
    : resourceType.fields.filter((field) => field.sensitive && field.required).map((field) => field.api);
  return [...held];
}

function unmodelledKeys(resourceType: ResourceType, data: Record<string, unknown>, identity: Attributes): readonly string[] {
  const spec = resourceType.discover;
  if (spec?.unmodelledKeys) return spec.unmodelledKeys(data, identity);
  return keysBesides(data, [...resourceType.fields.map((field) => field.api), ...(spec?.readOnlyKeys ?? [])]);
}

/**
 * A listing that failed: the service's own error when the run knows it talks to the service; otherwise the
 * failure is most likely the address (another HTTP server answers LIST with 501 or 405), so the error says that and
 * names SERVICE_ADDR, as an empty listing without that proof does (service-proof.ts).
 */
async function failedListingError(client: ServiceClient, call: ListingCall, message: string): Promise<EngineError> {
  const identity = await confirmService(client);
  if (identity.confirmed) return new EngineError('service_error', `discovery: ${call.method} ${call.path}: ${message}`);
  return new EngineError(
    'service_unusable',
    notTheServiceMessage(client, {
      run: 'generate',
      conclusion: 'nothing is written',
      absent: `${call.method} ${client.displayPath(call.path)} failed (${message})`,
      answer: identity.answer,
    }),
  );
}
