/**
 * What the built-in rules read from the resource model: field names checked against the model when the pack
 * loads (a renamed field fails at once, not silently passes), the value a resource will hold (the code's, else
 * the service's default), durations in seconds and in words.
 */
import { parseDuration } from '../../resources/duration';
import { getResourceType } from '../../resources/registry';
import type { FieldSpec } from '../../resources/types';
import { SENSITIVE_PLACEHOLDER, type PolicyResource, type PolicyViolation } from '../policy';

/** The model's field `api` of `type`; throws when the model has no such field (a rule out of date with the model). */
export function modelField(type: string, api: string): FieldSpec {
  const field = getResourceType(type).fields.find((candidate) => candidate.api === api);
  if (field === undefined) throw new Error(`recommended policies: resource type ${type} has no field "${api}"`);
  return field;
}

/**
 * The value the object will hold once applied: the code's, else the service's default. Undefined when the
 * resource is not in code (a delete: nothing to judge) or the field has neither.
 */
export function effectiveValue(resource: PolicyResource, field: FieldSpec): unknown {
  if (resource.desired === null) return undefined;
  const value = resource.desired[field.api];
  return value === null || value === undefined ? field.serviceDefault : value;
}

/** Whether the code sets the secret field (its value is never visible: only that it is set). */
export function secretIsSet(resource: PolicyResource, field: FieldSpec): boolean {
  return resource.desired?.[field.api] === SENSITIVE_PLACEHOLDER;
}

/** A non-empty string in the code (or by the service's default). */
export function hasText(resource: PolicyResource, field: FieldSpec): boolean {
  const value = effectiveValue(resource, field);
  return typeof value === 'string' && value.trim() !== '';
}

/** The effective duration in seconds (0 when unset and the service has no default). */
export function effectiveSeconds(resource: PolicyResource, field: FieldSpec): number {
  return parseDuration(effectiveValue(resource, field)) ?? 0;
}

export const HOUR = 3600;
export const DAY = 24 * HOUR;

/** `86400` -> `24h`, `2592000` -> `30d`: the words of a limit in a message. */
export function durationWords(seconds: number): string {
  if (seconds % DAY === 0 && seconds >= DAY * 2) return `${seconds / DAY}d`;
  if (seconds % HOUR === 0) return `${seconds / HOUR}h`;
  return `${seconds}s`;
}

/**
 * A duration that must be set (0 means "unlimited" or "the mount's default") and at most `limit`: the violation
 * says which, with the prop to set.
 */
export function boundedDurationViolations(resource: PolicyResource, field: FieldSpec, limit: number, unsetMeans: string): PolicyViolation[] {
  if (resource.desired === null) return [];
  const seconds = effectiveSeconds(resource, field);
  if (seconds === 0) return [{ field: field.api, message: `${unsetMeans}; set ${field.prop} to at most ${durationWords(limit)}` }];
  if (seconds > limit) return [{ field: field.api, message: `${durationWords(seconds)} is longer than ${durationWords(limit)}` }];
  return [];
}

/** The check of a rule against a long-lived secret: a violation saying `message` whenever the code sets `field`. */
export function secretInUse(field: FieldSpec, message: string): (resource: PolicyResource) => PolicyViolation[] {
  return (resource) => (secretIsSet(resource, field) ? [{ field: field.api, message }] : []);
}
