/**
 * The diff of one resource: desired (code), last applied (state) and live (refresh) give its action, its
 * field changes, its drift, and the secrets apply has to write.
 */
import type { FieldSpec, ResourceType, Attributes } from '../../resources/types';
import type { DesiredResource } from '../desired';
import { threeWayDiff, type DiffFieldTraits, type FieldChange, type FieldDrift } from '../diff/three-way';
import type { LiveObject } from '../refresh';
import type { FingerprintKey } from '../state/fingerprint';
import type { ResourceState } from '../state/state-file';
import type { DriftEntry, PlanAction, PlannedChange } from './plan';
import type { ResourcePlan } from './resource-plan';
import { compareSecrets } from './secret-comparison';

export interface ResourceDiffInput {
  address: string;
  resourceType: ResourceType;
  /** Absent when the resource is only in state, or when destroying. */
  desired?: DesiredResource;
  stateEntry?: ResourceState;
  live: LiveObject;
  /** Resolved desired secrets of this resource. */
  secrets: Readonly<Record<string, string>>;
  fingerprintKey: FingerprintKey;
  refreshOnly: boolean;
}

export interface ResourceDiff {
  plan: ResourcePlan;
  warnings: string[];
}

const SYNCED = 'SYNCED';

export function diffResource(input: ResourceDiffInput): ResourceDiff {
  const diff = input.desired ? diffInCode(input, input.desired) : diffOnlyInState(input);
  if (input.refreshOnly) asRefreshOnly(diff.plan);
  return diff;
}

/** `--refresh-only`: drift is reported, every change becomes a no-op. */
function asRefreshOnly(plan: ResourcePlan): void {
  const { change: planned } = plan;
  planned.action = 'no-op';
  delete planned.actionReason;
  planned.after = planned.before;
  planned.sensitive = [];
  planned.replacePaths = [];
  planned.fieldChanges = [];
  plan.writeCall = false;
  plan.writeSecrets = [];
}

function diffInCode(input: ResourceDiffInput, desired: DesiredResource): ResourceDiff {
  const { resourceType, stateEntry, live } = input;
  const canonical = resourceType.normaliseDesired(desired.spec);
  // State about another object (the identity changed in code) is not this object's last applied state.
  const sameObject = stateEntry !== undefined && stateEntry.id === desired.id;
  const lastApplied = sameObject ? stateEntry.attributes : undefined;
  const base = {
    address: input.address,
    resourceType,
    desired,
    canonical,
    stateEntry,
    live,
    deleteIdentity: stateEntry?.attributes ?? canonical,
    dependencies: [...desired.dependsOn],
    clear: [] as string[],
  };
  const warnings: string[] = [];

  if (live.attributes === null) {
    const secrets = compareSecrets({ ...secretInput(input, sameObject), creating: true });
    const drift = sameObject ? driftEntry(input, desired.id, 'deleted', stateEntry.attributes, null) : undefined;
    let reason: string | undefined;
    if (sameObject) reason = 'deleted outside secretform';
    else if (stateEntry) reason = `its identity changed from ${stateEntry.id} to ${desired.id}`;
    const action: PlanAction = stateEntry && !sameObject ? 'replace' : 'create';
    return {
      plan: {
        ...base,
        drift,
        writeAttributes: canonical,
        writeCall: true,
        writeSecrets: secrets.changed,
        change: change(input, desired.id, action, {
          reason,
          before: stateEntry && !sameObject ? stateEntry.attributes : null,
          after: canonical,
          sensitive: secrets.changed,
          replacePaths: stateEntry && !sameObject ? identityPaths(resourceType, stateEntry.attributes, canonical) : [],
          fieldChanges: [],
          secrets: secrets.statuses,
        }),
      },
      warnings: secrets.warnings,
    };
  }

  const liveAttributes = live.attributes;
  const traits = diffTraits(resourceType);
  const { changes, drift: fieldDrift } = threeWayDiff(canonical, lastApplied, comparableLive(resourceType, liveAttributes, lastApplied), traits);
  const forcing = changes.filter((c) => c.forcesReplacement);
  const identityChanged = stateEntry !== undefined && !sameObject;

  let drift: DriftEntry | undefined;
  if (sameObject && fieldDrift.length > 0) drift = driftEntry(input, desired.id, 'changed', stateEntry.attributes, liveAttributes, fieldDrift);

  if (forcing.length > 0 || identityChanged) {
    const secrets = compareSecrets({ ...secretInput(input, sameObject), creating: true });
    const replacePaths = identityChanged ? identityPaths(resourceType, stateEntry.attributes, canonical) : forcing.map((c) => [c.field]);
    const reason = identityChanged
      ? `its identity changed from ${stateEntry.id} to ${desired.id}`
      : `${forcing.map((c) => c.field).join(', ')} cannot change on an existing object`;
    return {
      plan: {
        ...base,
        drift,
        deleteIdentity: identityChanged ? stateEntry.attributes : canonical,
        writeAttributes: canonical,
        writeCall: true,
        writeSecrets: secrets.changed,
        change: change(input, desired.id, 'replace', {
          reason,
          before: liveAttributes,
          after: canonical,
          sensitive: secrets.changed,
          replacePaths,
          fieldChanges: changes,
          secrets: secrets.statuses,
        }),
      },
      warnings: secrets.warnings,
    };
  }

  const secrets = compareSecrets({ ...secretInput(input, sameObject), creating: false });
  warnings.push(...secrets.warnings);
  let writeSecrets = secrets.changed;
  const reasons: string[] = [];

  const syncStatus = liveAttributes.sync_status;
  const outOfSync = resourceType.fields.some((f) => f.api === 'sync_status' && f.computed) && syncStatus !== undefined && syncStatus !== SYNCED;
  if (outOfSync) {
    drift = driftEntry(input, desired.id, 'out_of_sync', stateEntry?.attributes ?? null, liveAttributes, [], String(syncStatus));
    reasons.push(`sync status is ${String(syncStatus)}: set it again`);
  }
  const drifted = secrets.statuses.filter((s) => s.status === 'drifted').map((s) => s.field);
  if (drifted.length > 0) {
    reasons.push(`${drifted.join(', ')} differs on the service`);
    if (sameObject && !drift) {
      drift = driftEntry(input, desired.id, 'changed', stateEntry.attributes, liveAttributes, []);
    }
    if (drift) drift.fields.push(...drifted.map((field) => ({ field, applied: '(sensitive)', live: '(sensitive, differs)' })));
  }
  if (!stateEntry) reasons.push('exists on the service but not in state: apply adopts it');

  const needsWrite = changes.length > 0 || writeSecrets.length > 0 || outOfSync || !stateEntry;
  // A write that replaces the whole object must carry every secret, or the service clears the ones left out.
  if (resourceType.writeSemantics === 'replace' && (changes.length > 0 || writeSecrets.length > 0)) {
    writeSecrets = Object.keys(input.secrets).filter((name) => isSensitive(resourceType, name));
  }
  const { writeAttributes, clear } = attributesToWrite(resourceType, canonical, changes);
  // Secrets with a call of their own (userpass `password`) are not part of the object's write on update.
  const bodySecrets = writeSecrets.filter((name) => resourceType.api(canonical).extra[name] === undefined);
  const writeCall = changes.length > 0 || bodySecrets.length > 0 || outOfSync;

  const action: PlanAction = needsWrite ? 'update' : 'no-op';
  if (fieldDrift.length > 0 && changes.length > 0 && stateEntry) reasons.unshift('changed outside secretform');
  return {
    plan: {
      ...base,
      drift,
      writeAttributes,
      clear,
      writeCall,
      writeSecrets,
      change: change(input, desired.id, action, {
        reason: action === 'update' && reasons.length > 0 ? reasons.join('; ') : undefined,
        before: liveAttributes,
        after: action === 'no-op' ? liveAttributes : { ...liveAttributes, ...writeAttributes },
        sensitive: action === 'update' ? writeSecrets : [],
        replacePaths: [],
        fieldChanges: action === 'update' ? changes : [],
        secrets: secrets.statuses,
      }),
    },
    warnings,
  };
}

function diffOnlyInState(input: ResourceDiffInput): ResourceDiff {
  const { resourceType, stateEntry, live } = input;
  if (!stateEntry) throw new Error(`${input.address}: neither in code nor in state`);
  const base = {
    address: input.address,
    resourceType,
    stateEntry,
    live,
    deleteIdentity: stateEntry.attributes,
    dependencies: [...stateEntry.dependencies],
    writeAttributes: {},
    clear: [],
    writeCall: false,
    writeSecrets: [],
  };
  if (live.attributes === null) {
    return {
      plan: {
        ...base,
        drift: driftEntry(input, stateEntry.id, 'deleted', stateEntry.attributes, null),
        change: change(input, stateEntry.id, 'no-op', {
          reason: 'already deleted outside secretform; apply removes it from state',
          before: null,
          after: null,
          sensitive: [],
          replacePaths: [],
          fieldChanges: [],
          secrets: [],
        }),
      },
      warnings: [],
    };
  }
  const comparable = comparableLive(resourceType, live.attributes, stateEntry.attributes);
  const { drift: fieldDrift } = threeWayDiff(stateEntry.attributes, stateEntry.attributes, comparable, diffTraits(resourceType));
  return {
    plan: {
      ...base,
      drift: fieldDrift.length > 0 ? driftEntry(input, stateEntry.id, 'changed', stateEntry.attributes, live.attributes, fieldDrift) : undefined,
      change: change(input, stateEntry.id, 'delete', {
        before: live.attributes,
        after: null,
        sensitive: [],
        replacePaths: [],
        fieldChanges: [],
        secrets: [],
      }),
    },
    warnings: [],
  };
}

/**
 * The live attributes as every diff compares them (in code or only in state alike): write-only fields are never
 * read back, so the last applied value stands in for the live one.
 */
function comparableLive(resourceType: ResourceType, live: Attributes, lastApplied: Attributes | undefined): Attributes {
  const comparable: Attributes = { ...live };
  for (const field of resourceType.fields) {
    if (field.writeOnly && lastApplied?.[field.api] !== undefined) comparable[field.api] = lastApplied[field.api];
  }
  return comparable;
}

/** The traits the three-way diff needs, for every non-secret field the code can set. */
export function diffTraits(resourceType: ResourceType): DiffFieldTraits[] {
  return resourceType.fields
    .filter((field) => !field.sensitive && !field.computed)
    .map((field) => ({
      name: field.api,
      immutable: field.immutable,
      unordered: field.unordered,
      serverDefault: field.serviceDefault,
      createOnly: field.createOnly,
    }));
}

/**
 * What an update writes: the canonical desired attributes, plus each field removed from code set back to the
 * service default (or, for partial-empty-deletes writes, sent as `""`, which deletes it).
 */
function attributesToWrite(resourceType: ResourceType, canonical: Attributes, changes: FieldChange[]): { writeAttributes: Attributes; clear: string[] } {
  const writeAttributes: Attributes = { ...canonical };
  const clear: string[] = [];
  for (const fieldChange of changes) {
    if (canonical[fieldChange.field] !== undefined) continue;
    if (resourceType.writeSemantics === 'partial-empty-deletes') clear.push(fieldChange.field);
    else writeAttributes[fieldChange.field] = fieldChange.to;
  }
  return { writeAttributes, clear };
}

function identityPaths(resourceType: ResourceType, before: Attributes, after: Attributes): string[][] {
  return resourceType.fields
    .filter((field: FieldSpec) => field.identity && JSON.stringify(before[field.api]) !== JSON.stringify(after[field.api]))
    .map((field) => [field.api]);
}

function isSensitive(resourceType: ResourceType, name: string): boolean {
  return resourceType.fields.some((field) => field.api === name && field.sensitive);
}

function secretInput(input: ResourceDiffInput, sameObject: boolean) {
  return {
    address: input.address,
    resourceType: input.resourceType,
    desired: input.secrets,
    recorded: sameObject ? input.stateEntry?.secrets : undefined,
    liveData: input.live.data,
    fingerprintKey: input.fingerprintKey,
  };
}

function driftEntry(
  input: ResourceDiffInput,
  id: string,
  kind: DriftEntry['kind'],
  before: Attributes | null,
  after: Attributes | null,
  fields: FieldDrift[] = [],
  detail?: string,
): DriftEntry {
  const entry: DriftEntry = { address: input.address, type: input.resourceType.type, id, kind, before, after, fields };
  if (detail !== undefined) entry.detail = detail;
  return entry;
}

function change(
  input: ResourceDiffInput,
  id: string,
  action: PlanAction,
  parts: {
    reason?: string;
    before: Attributes | null;
    after: Attributes | null;
    sensitive: string[];
    replacePaths: string[][];
    fieldChanges: FieldChange[];
    secrets: PlannedChange['secrets'];
  },
): PlannedChange {
  const planned: PlannedChange = {
    address: input.address,
    type: input.resourceType.type,
    id,
    action,
    before: parts.before,
    after: parts.after,
    sensitive: [...parts.sensitive],
    replacePaths: parts.replacePaths,
    fieldChanges: parts.fieldChanges,
    secrets: parts.secrets,
  };
  if (parts.reason !== undefined) planned.actionReason = parts.reason;
  return planned;
}
