/**
 * What refresh is asked to read and what it answers: the read of one resource (built the same way by every
 * command) and the live object. Apart from refresh.ts so that read-answer.ts, which refresh uses to judge an
 * answer, can name them without importing refresh.
 */
import type { Attributes, ResourceType } from '../../resources/types';

export interface RefreshRequest {
  address: string;
  resourceType: ResourceType;
  /** A spec holding the object's identity fields (the desired spec, or the attributes recorded in state). */
  identity: Attributes;
  /** The forms to read into: the desired spec, or the attributes last applied (see `refreshRequestFor`). */
  desired?: Attributes;
  /**
   * What the command would conclude from a read that finds nothing, a conclusion that needs proof that
   * SERVICE_ADDR is the service (see `refresh`): `deleted` for an object state records, `not found` for one an
   * import looks for (it reports it as not on the service). Undefined for an object to be created: its absence
   * is expected, and a wrong address fails its write anyway.
   */
  absenceMeans?: AbsenceMeaning;
}

export type AbsenceMeaning = 'deleted' | 'not found';

export interface LiveObject {
  /** Canonical non-secret attributes, or null when the object does not exist. */
  attributes: Attributes | null;
  /** The server's answer unwrapped from its envelope (for values outside the model, e.g. a key fingerprint). */
  data: Record<string, unknown> | null;
  /** What the service warned about while reading it (envelope `warnings`, secrets removed). */
  warnings?: string[];
}

/**
 * The read of one resource, built the same way by every command (plan, apply, destroy, import), so that a live
 * object is normalised into one form whatever the command: the identity is the object the run works on (the
 * code's, else the one state recorded); the forms the read picks between server-filled equivalents (a cloud role
 * given by name is read back with its id too) are the code's when the code manages that object, else the ones
 * last applied.
 */
export function refreshRequestFor(
  address: string,
  resourceType: ResourceType,
  sources: { desired?: Attributes; desiredId?: string; recorded?: { id: string; attributes: Attributes }; identity: 'desired' | 'recorded' },
): RefreshRequest {
  const { desired, recorded } = sources;
  const identity = sources.identity === 'desired' && desired ? desired : recorded?.attributes ?? desired;
  if (!identity) throw new Error(`${address}: neither in code nor in state`);
  const codeManagesIt = desired !== undefined && (recorded === undefined || sources.identity === 'desired' || recorded.id === sources.desiredId);
  const forms = codeManagesIt ? desired : recorded?.attributes;
  return { address, resourceType, identity, desired: forms, absenceMeans: recorded === undefined ? undefined : 'deleted' };
}
