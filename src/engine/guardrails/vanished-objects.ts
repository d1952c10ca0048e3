/**
 * A plan in which (nearly) every object recorded in state reads "deleted outside" is far more likely pointed at
 * the wrong service (a mistyped address, another environment's server) than describing objects that were all
 * deleted by hand: it says so, beside the plan that would create them all again.
 */
import type { PlanComputation } from '../plan/compute-plan';

/** At least this many recorded objects must be missing for the warning: one missing object is ordinary drift. */
const MIN_VANISHED = 2;
/** ... and at least this share of the recorded objects the plan read. */
const MIN_SHARE = 0.9;

/** The warning, or undefined when the plan reads most recorded objects where the state says they are. */
export function vanishedObjectsWarning(computation: PlanComputation, address: string): string | undefined {
  let recorded = 0;
  let vanished = 0;
  for (const resource of computation.resources.values()) {
    if (resource.stateEntry === undefined) continue;
    recorded += 1;
    if (resource.live.attributes === null) vanished += 1;
  }
  if (vanished < MIN_VANISHED || vanished < recorded * MIN_SHARE) return undefined;
  return `${vanished} of the ${recorded} objects recorded in state were not found on ${address}: the address may be wrong ` +
    '(is this the service the stack was applied to? check its ServiceConnection or SERVICE_ADDR). ' +
    'An apply would forget them and create them all on this service.';
}
