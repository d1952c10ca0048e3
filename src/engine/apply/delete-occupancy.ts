/**
 * Whether an object still holds what its plain delete is refused for (a destination's associations), from the
 * answer to its type's occupancy probe (`DeleteSteps.whenOccupied`). The answer is believed only when it has the
 * probe's shape, the check the plan's consequence count makes of the same read (`notOfShapeAnswer`): an answer
 * that is not the listing tells nothing, and reading it as "empty" would send the delete without what an
 * occupied object needs.
 */
import type { ServiceClient, ServiceClientError, ServiceResult } from '../../client';
import { unwrapData } from '../../resources/define';
import type { ApiCall, DeleteSteps } from '../../resources/types';
import { EngineError } from '../errors';
import { notOfShapeAnswer } from '../refresh/read-answer';

export type Occupancy =
  | { readonly kind: 'occupied' }
  /** A listing with nothing in it, or a 404: the object is gone already, and the plain delete takes that for done. */
  | { readonly kind: 'free' }
  /** A 2xx answer that is not the probe's listing: why, as messages quote it. */
  | { readonly kind: 'unknown'; readonly why: string }
  /** The probe failed otherwise (a denial, a 5xx after retries): the delete fails with that error. */
  | { readonly kind: 'failed'; readonly error: ServiceClientError };

export function occupancyOf(client: ServiceClient, occupied: NonNullable<DeleteSteps['whenOccupied']>, probe: ServiceResult): Occupancy {
  // A read of something absent answers 404 (behaviour-notes.md): the object is gone, nothing to purge.
  if (!probe.ok) return probe.error.status === 404 ? { kind: 'free' } : { kind: 'failed', error: probe.error };
  const why = notOfShapeAnswer(client, occupied.probe, probe);
  if (why !== undefined) return { kind: 'unknown', why };
  return occupied.isOccupied(unwrapData(probe.raw)!) ? { kind: 'occupied' } : { kind: 'free' };
}

/** The failure of a delete whose probe answered something that is not its listing: nothing was sent to delete. */
export function unknownOccupancyError(client: ServiceClient, occupied: NonNullable<DeleteSteps['whenOccupied']>, why: string): EngineError {
  return new EngineError(
    'service_error',
    `${why}. That answer cannot tell whether the object may be deleted as it is or only with ${callText(client, occupied.call)}, ` +
      'so no delete was sent: nothing was deleted, and state still records the object. Check that SERVICE_ADDR points at the ' +
      'secrets service itself, not at a proxy or another server in front of it; the next apply or destroy tries the delete again.',
  );
}

/** `DELETE /v1/<path>?purge=true`. */
function callText(client: ServiceClient, call: ApiCall): string {
  const query = call.query === undefined ? '' : new URLSearchParams(call.query).toString();
  return `${call.method} ${client.displayPath(call.path)}${query === '' ? '' : `?${query}`}`;
}
