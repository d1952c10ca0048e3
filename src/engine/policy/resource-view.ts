/**
 * The resource a policy's `check` gets: built from the plan and the desired state, with every field of the type
 * present (null when absent) and secret fields as `(sensitive)`. Built from values that hold no secret (the plan
 * and the synthesized specs keep secrets as references), so policy code cannot see one.
 */
import { PLAN_JSON_ACTIONS, type DriftEntry, type PlannedChange } from '../plan/plan';
import { findResourceType } from '../../resources/registry';
import type { Attributes, FieldSpec } from '../../resources/types';
import { SENSITIVE_PLACEHOLDER, type PolicyAttributes, type PolicyResource } from '../../policy/policy';
import { deepFreeze } from '../../deep-freeze';

/** The desired side of a resource, as the policy stage needs it: attributes and which secret fields are set. */
export interface PolicyDesiredInput {
  readonly address: string;
  readonly type: string;
  readonly spec: Readonly<Attributes>;
  /** Names of the secret fields set in code (their values are never needed). */
  readonly secretFields: readonly string[];
  readonly policyWaivers?: Readonly<Record<string, string>>;
}


export function policyResourceOf(
  stack: string,
  change: PlannedChange,
  desired: PolicyDesiredInput | undefined,
  drift: DriftEntry | undefined,
): PolicyResource {
  const fields = findResourceType(change.type)?.fields ?? [];
  const desiredView = desired === undefined || change.action === 'delete' ? null : desiredAttributes(fields, change.type, desired);
  const liveSecrets = change.secrets.map((status) => status.field);
  return deepFreeze({
    address: change.address,
    stack,
    type: change.type,
    action: [...PLAN_JSON_ACTIONS[change.action]],
    desired: desiredView,
    live: change.before === null ? null : withAllFields(fields, change.before, liveSecrets),
    drift: drift === undefined ? null : { kind: drift.kind, before: copy(drift.before), after: copy(drift.after) },
  });
}

function desiredAttributes(fields: readonly FieldSpec[], type: string, desired: PolicyDesiredInput): PolicyAttributes {
  const resourceType = findResourceType(type);
  const attributes = resourceType ? resourceType.normaliseDesired(desired.spec) : desired.spec;
  return withAllFields(fields, attributes, desired.secretFields);
}

/** Every field of the type (null when absent), the given attributes, and the set secret fields as `(sensitive)`. */
function withAllFields(fields: readonly FieldSpec[], attributes: Readonly<Attributes>, secretFields: readonly string[]): PolicyAttributes {
  const sensitive = new Set(fields.filter((field) => field.sensitive).map((field) => field.api));
  const result: Record<string, unknown> = {};
  for (const field of fields) result[field.api] = null;
  for (const [name, value] of Object.entries(attributes)) {
    // A second guard: a field the model calls sensitive never shows a value, whatever the attributes hold.
    result[name] = sensitive.has(name) ? SENSITIVE_PLACEHOLDER : copy(value);
  }
  for (const name of secretFields) result[name] = SENSITIVE_PLACEHOLDER;
  return result;
}

/** A copy policy code may keep or change without touching the plan. */
function copy<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

