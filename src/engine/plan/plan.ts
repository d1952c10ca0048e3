import type { PolicyEvaluation } from '../../policy/evaluation';
import { HEALTH_DRIFT_KINDS, type Consequence } from '../../resources/types';
import type { FieldChange, FieldDrift } from './diff/three-way';
import type { SourceLocation } from '../../synthesized-spec';

/**
 * What apply will do to one resource (the saved-plan reader accepts exactly these). `forget`: the object leaves
 * the state and stays on the service, without a request (`retainOnDelete`, docs/guardrails.md).
 */
export const PLAN_ACTIONS = ['create', 'update', 'replace', 'delete', 'forget', 'no-op'] as const;
export type PlanAction = (typeof PLAN_ACTIONS)[number];

/** An action as the plan JSON (and a policy's `action`) lists it: terraform's lists, a replacement being a delete and a create. */
export type PlanJsonAction = 'create' | 'update' | 'delete' | 'forget' | 'no-op';

export const PLAN_JSON_ACTIONS: Readonly<Record<PlanAction, readonly PlanJsonAction[]>> = {
  create: ['create'],
  update: ['update'],
  replace: ['delete', 'create'],
  delete: ['delete'],
  forget: ['forget'],
  'no-op': ['no-op'],
};

/**
 * Where a secret field stands: the engine compares the desired value with the fingerprint of the applied one.
 * The saved-plan reader accepts exactly these (saved-plan/plan-schema.ts), so every status written is readable.
 * - `changed`: the desired value differs from the last applied one (or was never applied): apply writes it.
 * - `unverifiable`: same as last applied; the service cannot confirm it still holds it (masked or never returned).
 * - `in_sync`: confirmed on the service by the type's `verifySecret` hook (e.g. a key against its fingerprint).
 * - `drifted`: differs on the service from the value applied, as the type's `verifySecret` hook sees it: drift.
 * - `managed_by_service`: a root credential the service rotated (rotate-root): the value in code is superseded
 *   and not sent.
 */
export const SECRET_STATUSES = ['changed', 'unverifiable', 'in_sync', 'drifted', 'managed_by_service'] as const;
export type SecretStatus = (typeof SECRET_STATUSES)[number];

export interface SecretFieldStatus {
  readonly field: string;
  readonly status: SecretStatus;
  /** For `managed_by_service`: when the service rotated it (ISO 8601). */
  readonly rotatedAt?: string;
}

/**
 * Why a resource gets its action, when that is not obvious. The engine says which case it is; the reports
 * (report/reason-words.ts) own the words.
 */
export type ActionReason =
  /** create: the object was applied, then deleted outside secretform. */
  | { readonly kind: 'deleted_outside' }
  /** replace: the identity fields changed in code, so it is another object. */
  | { readonly kind: 'identity_changed'; readonly from: string; readonly to: string }
  /** replace: fields that cannot change on an existing object changed. */
  | { readonly kind: 'immutable_fields'; readonly fields: readonly string[] }
  /** replace: objects this one lives in are replaced, and it goes with them. */
  | { readonly kind: 'container_replaced'; readonly replaced: readonly string[] }
  /** update: fields secretform owns were changed outside secretform. */
  | { readonly kind: 'changed_outside' }
  /** update: secrets differ on the service from what was applied (checked by the type's hook). */
  | { readonly kind: 'secret_differs'; readonly fields: readonly string[] }
  /** update: the type's health hook reports a problem that a write repairs. */
  | { readonly kind: 'unhealthy'; readonly label: string; readonly status: string }
  /**
   * update: a root credential the service rotated changed in code: the new value is sent on purpose, and the
   * root is managed by the code again.
   */
  | { readonly kind: 'root_credential_changed'; readonly fields: readonly string[] }
  /** update: the object exists on the service but not in state. */
  | { readonly kind: 'adopt' }
  /** no-op: in state only, and already deleted on the service; apply forgets it. */
  | { readonly kind: 'forget_deleted' };

export type ActionReasonKind = ActionReason['kind'];

export interface PlannedChange {
  readonly address: string;
  readonly type: string;
  /** The object's identity on the service (its API path, e.g. `ldap/static-role/svc`). */
  readonly id: string;
  readonly action: PlanAction;
  /** The address the object had in state when its construct id changed since (terraform's `previous_address`). */
  readonly previousAddress?: string;
  /** Why, when it is not obvious; empty otherwise. Reports put these into words. */
  readonly reasons: readonly ActionReason[];
  /** Non-sensitive attributes of the live object (null when it does not exist). */
  readonly before: Readonly<Record<string, unknown>> | null;
  /** Non-sensitive attributes after the apply (null for a delete). */
  readonly after: Readonly<Record<string, unknown>> | null;
  /** Sensitive fields this change writes; their values are never shown. */
  readonly sensitive: readonly string[];
  /** Fields whose change forces the replacement, each as a path (`[["username"]]`). */
  readonly replacePaths: readonly (readonly string[])[];
  /** The non-sensitive field-level changes (empty for create, delete and no-op). */
  readonly fieldChanges: readonly FieldChange[];
  /** Status of each secret field of the resource (for the reports' "not verifiable on the server" notes). */
  readonly secrets: readonly SecretFieldStatus[];
  /** Addresses this resource depends on (desired, else as recorded in state): the reports' dependency picture. */
  readonly dependsOn?: readonly string[];
  /**
   * For a delete or replace: what else goes with the object on the service, counted from the live service
   * (guardrails/consequences.ts). Absent when nothing does, or for other actions.
   */
  readonly consequences?: readonly Consequence[];
  /**
   * Where the code creates the resource's construct (file relative to the project directory, line, column),
   * when known: metadata the reports read (SARIF locations, the markdown's policy section). Absent for a
   * resource only in state, with `new App({ stackTraces: false })`, or synth output of an older version.
   */
  readonly source?: SourceLocation;
}

/** `changed` and `deleted` for every type; the other kinds come from the types' health hooks. */
export const DRIFT_KINDS = ['changed', 'deleted', ...HEALTH_DRIFT_KINDS] as const;
export type DriftKind = (typeof DRIFT_KINDS)[number];

export interface DriftEntry {
  readonly address: string;
  readonly type: string;
  readonly id: string;
  readonly kind: DriftKind;
  /** Last applied attributes. */
  readonly before: Readonly<Record<string, unknown>> | null;
  /** Live attributes (null when deleted). */
  readonly after: Readonly<Record<string, unknown>> | null;
  /** For `changed`: the fields that differ. */
  readonly fields: readonly FieldDrift[];
  /** For a health kind: what the service reported (e.g. a sync status `PENDING`, a failure cause). */
  readonly detail?: string;
  /** For a health kind: the hook's words, the headline and the name of `detail` (`sync status`). */
  readonly health?: { readonly headline: string; readonly label: string };
}

export interface PlanSummary {
  create: number;
  update: number;
  replace: number;
  delete: number;
  forget: number;
  no_op: number;
  drifted: number;
}

/** A plan is a value: once computed it never changes (selection and guards make new plans). */
export interface Plan {
  readonly stack: string;
  /** `--refresh-only`: only drift is reported; no change is planned. */
  readonly refreshOnly: boolean;
  /** One entry per resource in code or state, in address order. */
  readonly changes: readonly PlannedChange[];
  readonly drift: readonly DriftEntry[];
  /** Non-fatal notes (e.g. a secret fingerprint made with another state key). */
  readonly warnings: readonly string[];
  /** The policy packs' results, when the run was given packs (`--policy`); absent otherwise. */
  readonly policy?: PolicyEvaluation;
}

export function summarize(plan: Plan): PlanSummary {
  const count = (action: PlanAction) => plan.changes.filter((c) => c.action === action).length;
  return {
    create: count('create'),
    update: count('update'),
    replace: count('replace'),
    delete: count('delete'),
    forget: count('forget'),
    no_op: count('no-op'),
    drifted: plan.drift.length,
  };
}

/** Whether apply has something to do: an operation on the service, or a move to record in state. */
export function hasActions(plan: Plan): boolean {
  return plan.changes.some((c) => c.action !== 'no-op' || c.previousAddress !== undefined);
}

/** Whether the plan has anything to apply or report (`--detailed-exitcode` 2). */
export function hasChangesOrDrift(plan: Plan): boolean {
  return plan.drift.length > 0 || plan.changes.some((c) => c.action !== 'no-op' || c.previousAddress !== undefined);
}
