import type { FieldChange, FieldDrift } from '../diff/three-way';

/** What apply will do to one resource. */
export type PlanAction = 'create' | 'update' | 'replace' | 'delete' | 'no-op';

/** Where a secret field stands: the engine compares the desired value with the fingerprint of the applied one. */
export type SecretStatus =
  /** The desired value differs from the last applied one (or was never applied): apply writes it. */
  | 'changed'
  /** Same as last applied; the service cannot confirm it still holds it (masked or never returned). */
  | 'unverifiable'
  /** Confirmed on the service (the GitHub app key against the server's fingerprint). */
  | 'in_sync'
  /** Differs on the service from the desired value (GitHub app key fingerprint mismatch): drift. */
  | 'drifted';

export interface SecretFieldStatus {
  field: string;
  status: SecretStatus;
}

export interface PlannedChange {
  address: string;
  type: string;
  /** The object's identity on the service (its API path, e.g. `ldap/static-role/svc`). */
  id: string;
  action: PlanAction;
  /** The address the object had in state when its construct id changed since (terraform's `previous_address`). */
  previousAddress?: string;
  /** Why, in words, when it is not obvious (e.g. "deleted outside secretform", "username cannot change"). */
  actionReason?: string;
  /** Non-sensitive attributes of the live object (null when it does not exist). */
  before: Record<string, unknown> | null;
  /** Non-sensitive attributes after the apply (null for a delete). */
  after: Record<string, unknown> | null;
  /** Sensitive fields this change writes; their values are never shown. */
  sensitive: string[];
  /** Fields whose change forces the replacement, each as a path (`[["username"]]`). */
  replacePaths: string[][];
  /** The non-sensitive field-level changes (empty for create, delete and no-op). */
  fieldChanges: FieldChange[];
  /** Status of each secret field of the resource (for the reports' "not verifiable on the server" notes). */
  secrets: SecretFieldStatus[];
  /** Addresses this resource depends on (desired, else as recorded in state): the reports' dependency picture. */
  dependsOn?: string[];
}

export type DriftKind = 'changed' | 'deleted' | 'out_of_sync';

export interface DriftEntry {
  address: string;
  type: string;
  id: string;
  kind: DriftKind;
  /** Last applied attributes. */
  before: Record<string, unknown> | null;
  /** Live attributes (null when deleted). */
  after: Record<string, unknown> | null;
  /** For `changed`: the fields that differ. */
  fields: FieldDrift[];
  /** For `out_of_sync`: the sync status seen (e.g. `PENDING`, a failure cause). */
  detail?: string;
}

export interface PlanSummary {
  create: number;
  update: number;
  replace: number;
  delete: number;
  no_op: number;
  drifted: number;
}

export interface Plan {
  stack: string;
  /** `--refresh-only`: only drift is reported; no change is planned. */
  refreshOnly: boolean;
  /** One entry per resource in code or state, in address order. */
  changes: PlannedChange[];
  drift: DriftEntry[];
  /** Non-fatal notes (e.g. a secret fingerprint made with another state key). */
  warnings: string[];
}

export function summarize(plan: Plan): PlanSummary {
  const count = (action: PlanAction) => plan.changes.filter((c) => c.action === action).length;
  return {
    create: count('create'),
    update: count('update'),
    replace: count('replace'),
    delete: count('delete'),
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
