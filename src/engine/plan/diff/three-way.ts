import { valuesEqual } from './values';

/** What the diff needs to know of a (non-secret) field; the resource model provides it. */
export interface DiffFieldTraits {
  name: string;
  /** A change can only be made by deleting and re-creating the object. */
  immutable?: boolean;
  /** The service does not keep this list's order. */
  unordered?: boolean;
  /** The service's value when the field is not set (canonical form): what "removed from code" resets to. */
  serverDefault?: unknown;
  /** Sent only when the object is created; the live value is not compared after creation. */
  createOnly?: boolean;
}

export interface FieldChange {
  field: string;
  /** Live value (what the object has now), undefined when the object does not exist. */
  from: unknown;
  /** Value the apply will set. */
  to: unknown;
  forcesReplacement: boolean;
}

export interface FieldDrift {
  field: string;
  /** Last applied value. */
  applied: unknown;
  /** Live value. */
  live: unknown;
}

export interface ThreeWayResult {
  changes: FieldChange[];
  drift: FieldDrift[];
}

/**
 * kubectl's three-way rule: only fields set in code now or applied before are ours. A field set in code must
 * equal the live value; a field applied before but removed from code goes back to the service default; a
 * field neither in code nor applied is the server's (its defaults never show as changes). Drift is a field of
 * ours whose live value differs from what we last applied.
 */
export function threeWayDiff(
  desired: Record<string, unknown>,
  lastApplied: Record<string, unknown> | undefined,
  live: Record<string, unknown>,
  traits: readonly DiffFieldTraits[],
): ThreeWayResult {
  const changes: FieldChange[] = [];
  const drift: FieldDrift[] = [];
  for (const field of traits) {
    const name = field.name;
    const inCode = desired[name] !== undefined;
    const applied = lastApplied !== undefined && lastApplied[name] !== undefined;
    if (!inCode && !applied) continue;
    const liveValue = live[name] ?? field.serverDefault;

    if (applied && !field.createOnly && !valuesEqual(lastApplied[name], liveValue, field.unordered)) {
      drift.push({ field: name, applied: lastApplied[name], live: liveValue });
    }
    if (field.createOnly) continue;

    const target = inCode ? desired[name] : field.serverDefault;
    if (target === undefined) continue; // removed from code and the service has no default to return to
    if (!valuesEqual(target, liveValue, field.unordered)) {
      changes.push({ field: name, from: liveValue, to: target, forcesReplacement: field.immutable === true });
    }
  }
  return { changes, drift };
}
