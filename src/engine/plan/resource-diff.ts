/**
 * The diff of one resource: desired (code), last applied (state) and live (refresh) give its action, its
 * field changes, its drift, and the secrets apply has to write. What is special about a type (a secret the
 * server can check, the health of a live object, a secret with an endpoint of its own) comes from its hooks.
 */
import type { Attributes, HealthProblem, ResourceType } from '../../resources/types';
import type { DesiredResource } from '../setup/desired';
import { threeWayDiff, type DiffFieldTraits, type FieldChange, type FieldDrift } from './diff/three-way';
import type { LiveObject } from '../refresh/refresh-request';
import type { FingerprintKey } from '../state/fingerprint';
import type { ResourceState } from '../state/state-file';
import type { ActionReason, DriftEntry, PlanAction } from './plan';
import { keptAsIs, type ResourcePlan } from './resource-plan';
import { compareSecrets, type SecretComparison, type SecretComparisonInput } from './secret-comparison';
import type { Guardrails } from './lifecycle';
import { ignoredFields, keepLiveValues, withoutIgnored } from '../setup/ignored-fields';

/**
 * The empty list a change holds where nothing applies, shared and already frozen: a plan of 10,000 unchanged
 * objects freezes (planComputation) and holds four fewer arrays per object.
 */
const NOTHING: readonly never[] = Object.freeze([]);

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
  /** The guardrails of the object (lifecycle.ts): a retained object only in state is forgotten. */
  guardrails?: Guardrails;
}

export interface ResourceDiff {
  plan: ResourcePlan;
  warnings: readonly string[];
}

export function diffResource(input: ResourceDiffInput): ResourceDiff {
  const diff = input.desired ? diffInCode(input, input.desired) : diffOnlyInState(input);
  // `--refresh-only`: drift is reported, every change becomes a no-op.
  return input.refreshOnly ? { ...diff, plan: keptAsIs(diff.plan) } : diff;
}

/** What the three cases of a resource in code share. */
interface InCode {
  input: ResourceDiffInput;
  desired: DesiredResource;
  canonical: Attributes;
  /** State is about this object (same id); state about another object is not its last applied state. */
  sameObject: boolean;
  /** State holds another object at this address: the identity changed in code. */
  identityChanged: boolean;
  /** Fields `ignoreChanges` leaves alone once the object exists (../setup/ignored-fields.ts). */
  ignored: ReadonlySet<string>;
  /** What it needs first: the plan's `dependencies` and its change's `dependsOn` (one array, both read-only). */
  dependencies: readonly string[];
}

function diffInCode(input: ResourceDiffInput, desired: DesiredResource): ResourceDiff {
  const { stateEntry, live } = input;
  const sameObject = stateEntry !== undefined && stateEntry.id === desired.id;
  const facts: InCode = {
    input,
    desired,
    canonical: input.resourceType.normaliseDesired(desired.spec),
    sameObject,
    identityChanged: stateEntry !== undefined && !sameObject,
    ignored: ignoredFields(input.resourceType, desired.lifecycle),
    dependencies: [...desired.dependsOn],
  };
  if (live.attributes === null) return absentOnService(facts);
  return presentOnService(facts, live.attributes);
}

/** The object does not exist: create it (or replace the other object state holds at this address). */
function absentOnService(facts: InCode): ResourceDiff {
  const { input, desired, canonical, sameObject, identityChanged } = facts;
  const stateEntry = input.stateEntry;
  if (identityChanged) {
    return writeWhole(facts, {
      action: 'replace',
      reasons: [{ kind: 'identity_changed', from: stateEntry!.id, to: desired.id }],
      before: stateEntry!.attributes,
      replacePaths: identityPaths(input.resourceType, stateEntry!.attributes, canonical),
      fieldChanges: [],
    });
  }
  return writeWhole(facts, {
    action: 'create',
    reasons: sameObject ? [{ kind: 'deleted_outside' }] : [],
    before: null,
    replacePaths: [],
    fieldChanges: [],
    drift: sameObject ? driftEntry(input, desired.id, 'deleted', stateEntry!.attributes, null) : undefined,
  });
}

function presentOnService(facts: InCode, liveAttributes: Attributes): ResourceDiff {
  const { input, desired, canonical, sameObject, identityChanged } = facts;
  const { resourceType, stateEntry } = input;
  const lastApplied = sameObject ? stateEntry!.attributes : undefined;
  const traits = facts.ignored.size === 0 ? diffTraits(resourceType) : diffTraits(resourceType).filter((trait) => !facts.ignored.has(trait.name));
  const { changes, drift: fieldDrift } = threeWayDiff(canonical, lastApplied, comparableLive(resourceType, liveAttributes, lastApplied), traits);
  const fieldDriftEntry = sameObject && fieldDrift.length > 0
    ? driftEntry(input, desired.id, 'changed', stateEntry!.attributes, liveAttributes, fieldDrift)
    : undefined;

  const forcing = changes.filter((c) => c.forcesReplacement);
  if (identityChanged || forcing.length > 0) {
    return writeWhole(facts, {
      action: 'replace',
      reasons: identityChanged
        ? [{ kind: 'identity_changed', from: stateEntry!.id, to: desired.id }]
        : [{ kind: 'immutable_fields', fields: forcing.map((c) => c.field) }],
      before: liveAttributes,
      replacePaths: identityChanged ? identityPaths(resourceType, stateEntry!.attributes, canonical) : forcing.map((c) => [c.field]),
      fieldChanges: changes,
      drift: fieldDriftEntry,
      deleteIdentity: identityChanged ? stateEntry!.attributes : canonical,
    });
  }
  return updateInPlace(facts, liveAttributes, changes, fieldDrift, fieldDriftEntry);
}

interface WholeWrite {
  action: 'create' | 'replace';
  reasons: ActionReason[];
  before: Attributes | null;
  replacePaths: string[][];
  fieldChanges: FieldChange[];
  drift?: DriftEntry;
  deleteIdentity?: Attributes;
}

/** A create, or the create half of a replace: every field and every desired secret is written. */
function writeWhole(facts: InCode, write: WholeWrite): ResourceDiff {
  const { input, desired, canonical } = facts;
  const secrets = compareSecrets(secretInput(input, facts.sameObject, true));
  return {
    plan: inCodePlan(facts, {
      drift: write.drift,
      deleteIdentity: write.deleteIdentity ?? input.stateEntry?.attributes ?? canonical,
      writeAttributes: canonical,
      clear: [],
      writeCall: true,
      writeSecrets: secrets.changed,
      change: {
        address: input.address,
        type: input.resourceType.type,
        id: desired.id,
        action: write.action,
        reasons: write.reasons,
        before: write.before,
        after: canonical,
        sensitive: [...secrets.changed],
        replacePaths: write.replacePaths,
        fieldChanges: write.fieldChanges,
        secrets: secrets.statuses,
        dependsOn: facts.dependencies,
        ...(desired.source !== undefined ? { source: desired.source } : {}),
      },
    }),
    warnings: secrets.warnings,
  };
}

/** The object exists and may stay: an update when a field, a secret or its health needs a write, else a no-op. */
function updateInPlace(
  facts: InCode,
  liveAttributes: Attributes,
  changes: FieldChange[],
  fieldDrift: FieldDrift[],
  fieldDriftEntry: DriftEntry | undefined,
): ResourceDiff {
  const { desired, canonical, sameObject, ignored } = facts;
  // Ignored secrets are neither compared nor sent once the object exists.
  const input = ignored.size === 0 ? facts.input : { ...facts.input, secrets: withoutIgnored(facts.input.secrets, ignored) };
  const { resourceType, stateEntry } = input;
  const secrets = compareSecrets(secretInput(input, sameObject, false));
  const health = resourceType.health(liveAttributes);
  const drift = driftOfLiveObject(facts, liveAttributes, health, secrets, fieldDriftEntry);
  const repair = health?.repairedByWrite === true;

  const reasons: ActionReason[] = [];
  if (fieldDrift.length > 0 && changes.length > 0 && stateEntry) reasons.push({ kind: 'changed_outside' });
  if (health && repair) reasons.push({ kind: 'unhealthy', label: health.label, status: health.status });
  const drifted = driftedSecrets(secrets);
  if (drifted.length > 0) reasons.push({ kind: 'secret_differs', fields: drifted });
  if (secrets.handedBack.length > 0) reasons.push({ kind: 'root_credential_changed', fields: [...secrets.handedBack] });
  if (!stateEntry) reasons.push({ kind: 'adopt' });

  let writeSecrets = secrets.changed;
  // A write that replaces the whole object must carry every secret, or the service clears the ones left out.
  // Ignored secrets too: the service cannot be asked for their value, and leaving one out would clear it.
  if (resourceType.writeSemantics === 'replace' && (changes.length > 0 || writeSecrets.length > 0)) {
    writeSecrets = Object.keys(facts.input.secrets).filter((name) => isSensitive(resourceType, name));
  }
  const toWrite = attributesToWrite(resourceType, canonical, changes);
  const writeAttributes = keepLiveValues(toWrite.writeAttributes, liveAttributes, ignored);
  const { clear } = toWrite;
  // Secrets the type writes with a call of their own are not part of the object's write on update.
  // (Nothing to look up when no secret is written: most objects.)
  const bodySecrets = writeSecrets.length === 0 ? NOTHING : secretsInBody(resourceType, canonical, writeSecrets);
  const writeCall = changes.length > 0 || bodySecrets.length > 0 || repair;
  const action: PlanAction = writeCall || writeSecrets.length > 0 || !stateEntry ? 'update' : 'no-op';
  const updating = action === 'update';
  return {
    plan: inCodePlan(facts, {
      drift,
      deleteIdentity: stateEntry?.attributes ?? canonical,
      writeAttributes,
      clear,
      writeCall,
      writeSecrets,
      change: {
        address: input.address,
        type: resourceType.type,
        id: desired.id,
        action,
        reasons: updating ? reasons : NOTHING,
        before: liveAttributes,
        after: updating ? { ...liveAttributes, ...writeAttributes } : liveAttributes,
        sensitive: updating ? [...writeSecrets] : NOTHING,
        replacePaths: NOTHING,
        fieldChanges: updating ? changes : NOTHING,
        secrets: secrets.statuses,
        dependsOn: facts.dependencies,
        ...(desired.source !== undefined ? { source: desired.source } : {}),
      },
    }),
    warnings: secrets.warnings,
  };
}

/** The secrets among `writeSecrets` that go in the object's own write (not in a call of their own). */
function secretsInBody(resourceType: ResourceType, canonical: Attributes, writeSecrets: readonly string[]): readonly string[] {
  const ownCalls = resourceType.secretWriteCalls(canonical);
  return writeSecrets.filter((name) => ownCalls[name] === undefined);
}

/**
 * The drift of an object that exists: a health problem its type's hook reports (which wins, as it says more),
 * else the fields changed outside secretform; secrets the server shows to differ are added to either.
 */
function driftOfLiveObject(
  facts: InCode,
  liveAttributes: Attributes,
  health: HealthProblem | undefined,
  secrets: SecretComparison,
  fieldDriftEntry: DriftEntry | undefined,
): DriftEntry | undefined {
  const { input, desired, sameObject } = facts;
  let drift = health
    ? {
      ...driftEntry(input, desired.id, health.kind, input.stateEntry?.attributes ?? null, liveAttributes),
      detail: health.status,
      health: { headline: health.headline, label: health.label },
    }
    : fieldDriftEntry;
  const drifted = driftedSecrets(secrets);
  if (drifted.length === 0) return drift;
  if (!drift) {
    if (!sameObject) return undefined;
    drift = driftEntry(input, desired.id, 'changed', input.stateEntry!.attributes, liveAttributes);
  }
  return { ...drift, fields: [...drift.fields, ...drifted.map((field) => ({ field, applied: '(sensitive)', live: '(sensitive, differs)' }))] };
}

function driftedSecrets(secrets: SecretComparison): readonly string[] {
  // Most objects have no secret (statuses empty): the shared empty list, not two new arrays, twice per object.
  if (secrets.statuses.length === 0) return NOTHING;
  return secrets.statuses.filter((s) => s.status === 'drifted').map((s) => s.field);
}

/**
 * The plan of a resource in code. Its properties are listed, not spread from a shared base: a spread into a
 * literal of this size was the largest part of the diff's own time (7 us per object).
 */
function inCodePlan(facts: InCode, planned: Pick<ResourcePlan, 'drift' | 'deleteIdentity' | 'writeAttributes' | 'clear' | 'writeCall' | 'writeSecrets' | 'change'>): ResourcePlan {
  const { input, desired, canonical } = facts;
  return {
    address: input.address,
    resourceType: input.resourceType,
    desired,
    canonical,
    stateEntry: input.stateEntry,
    live: input.live,
    dependencies: facts.dependencies,
    drift: planned.drift,
    deleteIdentity: planned.deleteIdentity,
    writeAttributes: planned.writeAttributes,
    clear: planned.clear,
    writeCall: planned.writeCall,
    writeSecrets: planned.writeSecrets,
    change: planned.change,
    guardrails: input.guardrails,
  };
}

function diffOnlyInState(input: ResourceDiffInput): ResourceDiff {
  const { resourceType, stateEntry, live } = input;
  if (!stateEntry) throw new Error(`${input.address}: neither in code nor in state`);
  let drift: DriftEntry | undefined;
  if (live.attributes === null) {
    drift = driftEntry(input, stateEntry.id, 'deleted', stateEntry.attributes, null);
  } else {
    const comparable = comparableLive(resourceType, live.attributes, stateEntry.attributes);
    const { drift: fieldDrift } = threeWayDiff(stateEntry.attributes, stateEntry.attributes, comparable, diffTraits(resourceType));
    if (fieldDrift.length > 0) drift = driftEntry(input, stateEntry.id, 'changed', stateEntry.attributes, live.attributes, fieldDrift);
  }
  const gone = live.attributes === null;
  const action = gone ? 'no-op' : input.guardrails?.retainOnDelete ? 'forget' : 'delete';
  const dependencies = [...stateEntry.dependencies];
  return {
    plan: {
      address: input.address,
      resourceType,
      stateEntry,
      live,
      drift,
      deleteIdentity: stateEntry.attributes,
      dependencies,
      writeAttributes: {},
      clear: [],
      writeCall: false,
      writeSecrets: [],
      guardrails: input.guardrails,
      change: {
        address: input.address,
        type: resourceType.type,
        id: stateEntry.id,
        action,
        reasons: gone ? [{ kind: 'forget_deleted' }] : [],
        before: live.attributes,
        after: null,
        sensitive: [],
        replacePaths: [],
        fieldChanges: [],
        secrets: [],
        dependsOn: dependencies,
      },
    },
    warnings: [],
  };
}

/**
 * The live attributes as every diff compares them (in code or only in state alike): write-only fields are never
 * read back, so the last applied value stands in for the live one.
 */
function comparableLive(resourceType: ResourceType, live: Attributes, lastApplied: Attributes | undefined): Attributes {
  const writeOnly = fieldFacts(resourceType).writeOnly;
  if (writeOnly.length === 0 || lastApplied === undefined) return live;
  const comparable: Attributes = { ...live };
  for (const name of writeOnly) {
    if (lastApplied[name] !== undefined) comparable[name] = lastApplied[name];
  }
  return comparable;
}

/** The traits the three-way diff needs, for every non-secret field the code can set. */
export function diffTraits(resourceType: ResourceType): readonly DiffFieldTraits[] {
  return fieldFacts(resourceType).traits;
}

/** What the diff of every object of a type asks of its fields, worked out once per type (10,000 objects, 7 types). */
interface FieldFacts {
  traits: readonly DiffFieldTraits[];
  /** Write-only fields: never read back. */
  writeOnly: readonly string[];
}

const fieldFactsByType = new WeakMap<ResourceType, FieldFacts>();

function fieldFacts(resourceType: ResourceType): FieldFacts {
  let facts = fieldFactsByType.get(resourceType);
  if (!facts) {
    facts = Object.freeze({
      traits: Object.freeze(resourceType.fields
        .filter((field) => !field.sensitive && !field.computed && !field.local)
        .map((field) => Object.freeze({
          name: field.api,
          immutable: field.immutable,
          unordered: field.unordered,
          serverDefault: field.serviceDefault,
          createOnly: field.createOnly,
        }))),
      writeOnly: Object.freeze(resourceType.fields.filter((field) => field.writeOnly).map((field) => field.api)),
    });
    fieldFactsByType.set(resourceType, facts);
  }
  return facts;
}

/**
 * What an update writes: the canonical desired attributes, plus each field removed from code set back to the
 * service default (or, for partial-empty-deletes writes, sent as `""`, which deletes it).
 */
function attributesToWrite(resourceType: ResourceType, canonical: Attributes, changes: FieldChange[]): { writeAttributes: Attributes; clear: string[] } {
  // No change (most objects): the canonical attributes themselves (frozen, shared, as a replace's write uses them).
  if (changes.length === 0) return { writeAttributes: canonical, clear: [] };
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
    .filter((field) => field.identity && JSON.stringify(before[field.api]) !== JSON.stringify(after[field.api]))
    .map((field) => [field.api]);
}

function isSensitive(resourceType: ResourceType, name: string): boolean {
  return resourceType.fields.some((field) => field.api === name && field.sensitive);
}

function secretInput(input: ResourceDiffInput, sameObject: boolean, creating: boolean): SecretComparisonInput {
  return {
    creating,
    address: input.address,
    resourceType: input.resourceType,
    desired: input.secrets,
    recorded: sameObject ? input.stateEntry?.secrets : undefined,
    rotatedByService: sameObject ? input.stateEntry?.rotated_by_service : undefined,
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
): DriftEntry {
  return { address: input.address, type: input.resourceType.type, id, kind, before, after, fields };
}
