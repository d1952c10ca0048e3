/**
 * A listing that answered 2xx with a body of another shape than the one the service answers (the call's
 * `ListingShape`, declared by the type that sends it in src/resources): generate stops on it. Read as a listing,
 * `{}` or `data` without `keys` is an area with nothing in it, and a server that answers some paths like the
 * service (a proxy, a stub, another tool) would give an empty or partial app that says the rest is not there.
 */
import type { ServiceClient } from '../client';
import { EngineError } from '../engine/errors';

/**
 * The error that stops generate before it writes anything: the endpoint and what it answered (`notOfShapeAnswer`),
 * and the likely cause.
 */
export function notAListingError(client: ServiceClient, answered: string): EngineError {
  return new EngineError(
    'service_error',
    `generate stopped: ${answered}. Nothing is concluded from it (read as a listing, its area would look empty or partial) and nothing ` +
      `is written. Check that SERVICE_ADDR (${client.address}) points at the secrets service itself, not at a proxy or another server.`,
  );
}
