/**
 * What the answer to one object's read means: the object as it is live (`present`), its absence (`absent`), or
 * nothing at all (`invalid`). The one place that decides it, from the answer's status and its shape for the
 * type (the type's `readAnswerProblem`, derived from its fields in src/resources):
 * - 2xx that looks like such an object: present (or absent, when the type reads it as "not there": a mount
 *   missing from a valid listing, an unconfigured engine's empty config);
 * - 404: absent, as the service answers for a missing object. Before an object that state records is called
 *   deleted, or one an import looks for is reported not found, refresh needs proof that SERVICE_ADDR is the
 *   service (client/service-identity.ts);
 * - 2xx that does not look like one (no body, a JSON scalar or array, `{}`, another server's JSON): invalid,
 *   never "absent", so that plan, apply and destroy never act on it;
 * - any other failure is the request's error (or, for the whole run, the client's run failure).
 */
import type { ServiceClient, ServiceResult } from '../../client';
import { unwrapData } from '../../resources/define';
import type { ApiCall, ListingCall } from '../../resources/types';
import type { LiveObject, RefreshRequest } from './refresh-request';

export type ReadVerdict =
  | { kind: 'present'; object: LiveObject }
  /** `how`: the answer that said so (a 404, which another server gives too, or a valid answer without it). */
  | { kind: 'absent'; object: LiveObject; how: string }
  | { kind: 'invalid'; problem: string };

export function readVerdict(client: ServiceClient, request: RefreshRequest, call: ApiCall, result: ServiceResult): ReadVerdict {
  // Named only in what says "absent" or "invalid": not built for each of the objects read as present.
  const asked = (): string => `${call.method} ${client.displayPath(call.path)}`;
  if (!result.ok) return { kind: 'absent', object: { attributes: null, data: null, warnings: [] }, how: notFoundAnswer(client, call, result.error.errors) };
  const found = request.resourceType.readAnswerProblem(result.raw);
  // The problem may name the answer's keys: text the server chose.
  const problem = found === undefined ? undefined : client.scrubServerText(found);
  if (problem !== undefined) {
    return {
      kind: 'invalid',
      problem:
        `${asked()} answered HTTP ${result.status} with ${problem}: not a ${request.resourceType.type} object, nor its absence, so ` +
        'nothing is concluded about it. Check that SERVICE_ADDR points at the secrets service itself, not at a proxy or another server.',
    };
  }
  let attributes;
  try {
    attributes = request.resourceType.normaliseRead(result.raw, request.identity, request.desired);
  } catch (error) {
    return { kind: 'invalid', problem: `cannot interpret the answer to ${asked()}: ${client.scrub((error as Error).message)}` };
  }
  if (attributes === null) return { kind: 'absent', object: { attributes: null, data: null, warnings: result.warnings }, how: `${asked()}: HTTP ${result.status} without it` };
  return { kind: 'present', object: { attributes, data: unwrapData(result.raw), warnings: result.warnings } };
}

/**
 * A 404 as messages quote it (`GET /v1/<path>: HTTP 404: <what the server said>`): the service's "no handler for
 * route" tells an address ending in /v1 from a missing object, and another server's answer shows it is not one.
 */
export function notFoundAnswer(client: ServiceClient, call: ApiCall, errors: readonly string[]): string {
  const said = errors.filter((text) => text.trim() !== '');
  return `${call.method} ${client.displayPath(call.path)}: HTTP 404${said.length > 0 ? `: ${said.join('; ')}` : ''}`;
}

/**
 * A 2xx answer to a listing call that has not the call's shape, as messages quote it (`LIST /v1/<path> answered
 * HTTP 200 with <what it was>: not <the listing expected>`), or undefined when it has: generate stops on it, a
 * consequence count calls itself unknown.
 */
export function notOfShapeAnswer(client: ServiceClient, call: ListingCall, result: { status: number; raw: unknown }): string | undefined {
  const problem = call.answers.problem(result.raw);
  // The problem may name the answer's keys: text the server chose.
  return problem === undefined
    ? undefined
    : `${call.method} ${client.displayPath(call.path)} answered HTTP ${result.status} with ${client.scrubServerText(problem)}: not ${call.answers.expected}`;
}
