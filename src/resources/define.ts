/**
 * Shared machinery of the resource types: canonical values by field kind, the default read normalisation and
 * request body, and `defineResourceType`, which fills in those defaults for a type module.
 */
import { deepFreeze } from '../deep-freeze';
import { parseDuration } from './duration';
import { fieldIndex } from './field-index';
import { canonicalLdif } from './ldif';
import type { ApiPaths, Attributes, Consequence, ConsequenceRead, FieldSpec, ResourceType, WriteBodyOptions } from './types';


/** The `data` of an envelope response, or the response itself when it is bare (both shapes occur). */
export function unwrapData(raw: unknown): Record<string, unknown> | null {
  if (!isPlainObject(raw)) return null;
  if (isPlainObject(raw.data)) return raw.data;
  if ('data' in raw && raw.data === null && ('request_id' in raw || 'lease_id' in raw)) return null;
  return raw;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Canonical form of one field's value; values of the wrong type are returned unchanged (validation reports them). */
export function canonicalValue(field: FieldSpec, value: unknown): unknown {
  switch (field.kind) {
    case 'string':
    case 'template':
      if (typeof value === 'number') return String(value);
      if (typeof value === 'string') return field.caseInsensitive ? value.toLowerCase() : value;
      return value;
    case 'bool':
      if (value === 'true') return true;
      if (value === 'false') return false;
      return value;
    case 'int':
      if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) return parseInt(value, 10);
      return value;
    case 'duration': {
      const seconds = parseDuration(value);
      return seconds === undefined ? value : seconds;
    }
    case 'stringList': {
      let list: unknown[];
      if (typeof value === 'string') list = value.split(',').map((item) => item.trim()).filter((item) => item !== '');
      else if (Array.isArray(value)) list = value;
      else return value;
      let strings = list.map((item) => (typeof item === 'string' && field.caseInsensitive ? item.toLowerCase() : item));
      if (field.unordered) strings = uniqueSorted(strings);
      return strings;
    }
    case 'stringMap': {
      if (!isPlainObject(value)) return value;
      const sorted: Record<string, unknown> = {};
      for (const key of Object.keys(value).sort()) sorted[key] = value[key];
      return sorted;
    }
    case 'objectList': {
      let list: unknown = value;
      if (typeof value === 'string') {
        try {
          list = value.trim() === '' ? [] : JSON.parse(value);
        } catch {
          return value;
        }
      }
      if (!Array.isArray(list)) return value;
      let elements = list.map((element: unknown) => (isPlainObject(element) ? canonicalElement(element, field.elementKeys) : element));
      if (field.unordered) elements = uniqueSorted(elements);
      return elements;
    }
    case 'ldif':
      return typeof value === 'string' ? canonicalLdif(value) : value;
  }
}

/** An object-list element with its keys in a fixed order and empty values dropped. */
function canonicalElement(element: Record<string, unknown>, keys: readonly string[] | undefined): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const key of keys ?? Object.keys(element).sort()) {
    const value = element[key];
    if (value !== undefined && value !== null && value !== '') result[key] = value;
  }
  return result;
}

/**
 * An unordered list is a set to the service (it may drop repeats): sorted, each value once, in `compareJson`'s
 * order. Each item's JSON text is made once, not twice per comparison of the sort (every unordered list of every
 * answer and spec goes through here).
 */
function uniqueSorted(items: readonly unknown[]): unknown[] {
  if (items.length <= 1) return [...items];
  const keyed = items.map((item) => ({ item, text: JSON.stringify(item) }));
  keyed.sort((a, b) => compareText(a.text, b.text));
  const result: unknown[] = [];
  for (let i = 0; i < keyed.length; i++) if (i === 0 || compareText(keyed[i].text, keyed[i - 1].text) !== 0) result.push(keyed[i].item);
  return result;
}

export function compareJson(a: unknown, b: unknown): number {
  return compareText(JSON.stringify(a), JSON.stringify(b));
}

function compareText(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

/** Canonical form of every non-sensitive field set in `spec` (unknown keys are dropped). */
export function canonicalAttributes(fields: readonly FieldSpec[], spec: Attributes): Attributes {
  const result: Attributes = {};
  for (const field of fields) {
    if (field.sensitive || field.computed || field.local) continue;
    const value = spec[field.api];
    if (value === undefined || value === null) continue;
    result[field.api] = canonicalValue(field, value);
  }
  return result;
}

/** The value of a field as the service takes it in a request body. */
export function wireValue(field: FieldSpec, canonical: unknown): unknown {
  if (field.wire === 'json-string') return JSON.stringify(canonical);
  if (field.wire === 'comma-string' && Array.isArray(canonical)) return canonical.join(',');
  return canonical;
}

/** The default request body: every field of `desired` the service takes in the body, plus the given secrets. */
export function defaultWriteBody(fields: readonly FieldSpec[], desired: Attributes, options: WriteBodyOptions): Attributes {
  const body: Attributes = {};
  for (const field of fields) {
    if ((field.identity && !field.inBody) || field.computed || field.local) continue;
    if (field.createOnly && !options.create) continue;
    if (field.sensitive) {
      const secret = options.secrets?.[field.api];
      if (secret !== undefined) body[field.api] = secret;
      continue;
    }
    const value = desired[field.api];
    if (value !== undefined && value !== null) body[field.api] = wireValue(field, value);
  }
  for (const name of options.clear ?? []) {
    if (body[name] === undefined) body[name] = '';
  }
  return body;
}

/** Fields a read reports: everything except secrets and create-only fields. */
export function readableFields(fields: readonly FieldSpec[]): FieldSpec[] {
  return fields.filter((field) => !field.sensitive && !field.createOnly && !field.writeOnly && !field.local);
}

/**
 * `resourceType.id(resourceType.normaliseDesired(spec))` with only the identity fields made canonical: an id
 * reads nothing else (see `buildResourceType`), and canonicalising every LDIF text and list of 10,000 specs
 * to check their ids was about 30 ms of a plan's start-up.
 */
export function desiredId(resourceType: ResourceType, spec: Attributes): string {
  return resourceType.id(canonicalAttributes(fieldIndex(resourceType.fields).identity, spec));
}

/** Identity fields of a spec (what `parseImportId` returns and `normaliseRead` copies into its result). */
export function identityOf(fields: readonly FieldSpec[], spec: Attributes): Attributes {
  const identity: Attributes = {};
  for (const field of fields) {
    if (field.identity && spec[field.api] !== undefined) identity[field.api] = canonicalValue(field, spec[field.api]);
  }
  return identity;
}

/**
 * A type module's part of a `ResourceType`; `defineResourceType` fills in the rest. `id` and `api` get the
 * canonical identity fields (`livesIn` too), `dependsOn` the canonical spec; a `writeBody` given replaces the default body.
 */
export interface ResourceTypeDefinition
  extends Pick<ResourceType, 'type' | 'construct' | 'doc' | 'fields' | 'writeSemantics' | 'id' | 'parseImportId' | 'api'>,
    Partial<Pick<ResourceType, 'dependsOn' | 'livesIn' | 'writeBody' | 'deleteSteps' | 'secretWriteCalls' | 'verifySecret' | 'health' | 'operations' | 'discover' | 'holdsUnmanagedData' | 'destinationType'>> {
  /** What else a delete takes with it; `identity` holds the canonical identity fields. Default: nothing. */
  readonly consequences?: (identity: Attributes, live: Attributes, read: ConsequenceRead) => Promise<readonly Consequence[]>;
  /**
   * Maps the server's answer (already unwrapped from its envelope) to service field names before the
   * canonical form is taken; returns null when the answer means "does not exist". Default: the data itself.
   */
  readonly readAttributes?: (data: Record<string, unknown>, identity: Attributes) => Record<string, unknown> | null;
  /** Adjusts the canonical read form using the desired spec (server-filled equivalents). */
  readonly alignWithDesired?: (read: Attributes, desired: Attributes) => Attributes;
  /**
   * For a read answer not shaped as the fields (a listing, a lookup): why the answer (unwrapped) is not one, or
   * undefined. Default: the answer must hold at least one readable field (see `readAnswerProblem`).
   */
  readonly readAnswerShape?: (data: Record<string, unknown>) => string | undefined;
}

const definitions = new WeakMap<ResourceType, ResourceTypeDefinition>();

/**
 * The same type with more fields, everything else as declared: what adding a field to a type's module does,
 * without editing it (for scratch types in tests and experiments).
 */
export function withExtraFields(resourceType: ResourceType, extra: readonly FieldSpec[]): ResourceType {
  const definition = definitions.get(resourceType);
  if (!definition) throw new Error(`${resourceType.type} was not made by defineResourceType`);
  return defineResourceType({ ...definition, fields: [...definition.fields, ...extra] });
}

export function defineResourceType(definition: ResourceTypeDefinition): ResourceType {
  const resourceType = buildResourceType(definition);
  definitions.set(resourceType, definition);
  return resourceType;
}

/**
 * `compute` of a spec, computed once per frozen spec (desired specs are frozen when loaded, and validation,
 * refresh, diff and apply each ask for the same canonical form and identity), else every time: a spec that is
 * not frozen may change between calls. Results are frozen, as they are shared.
 */
function oncePerFrozenSpec(compute: (spec: Attributes) => Attributes): (spec: Attributes) => Attributes {
  const results = new WeakMap<Attributes, Attributes>();
  return (spec) => {
    if (!Object.isFrozen(spec)) return compute(spec);
    let result = results.get(spec);
    if (result === undefined) results.set(spec, (result = deepFreeze(compute(spec))));
    return result;
  };
}

/** Every key of a ResourceTypeDefinition, each present (an absent hook is `undefined`). */
type EveryDefinitionKey = { readonly [K in keyof Required<ResourceTypeDefinition>]: ResourceTypeDefinition[K] };

/**
 * The definition with every key, in one order: the type modules write their definitions with only the hooks they
 * need, so the 15 were of 15 shapes, and the code the engine runs per resource (`id`, `health`,
 * `readAnswerProblem` below call the definition's) was compiled again for each new type that reached it. The
 * compiler refuses a key left out here. The hooks are the module's own functions (none uses `this`).
 */
function oneShape(definition: ResourceTypeDefinition): ResourceTypeDefinition {
  const shaped: EveryDefinitionKey = {
    type: definition.type,
    construct: definition.construct,
    doc: definition.doc,
    fields: definition.fields,
    writeSemantics: definition.writeSemantics,
    id: definition.id,
    parseImportId: definition.parseImportId,
    api: definition.api,
    dependsOn: definition.dependsOn,
    livesIn: definition.livesIn,
    writeBody: definition.writeBody,
    deleteSteps: definition.deleteSteps,
    secretWriteCalls: definition.secretWriteCalls,
    verifySecret: definition.verifySecret,
    health: definition.health,
    operations: definition.operations,
    discover: definition.discover,
    holdsUnmanagedData: definition.holdsUnmanagedData,
    destinationType: definition.destinationType,
    consequences: definition.consequences,
    readAttributes: definition.readAttributes,
    alignWithDesired: definition.alignWithDesired,
    readAnswerShape: definition.readAnswerShape,
  };
  return shaped;
}

function buildResourceType(given: ResourceTypeDefinition): ResourceType {
  const definition = oneShape(given);
  const { fields } = definition;
  // identityOf reads only the identity fields: given just those, it skips a pass over every field per call.
  const identityFields = fieldIndex(fields).identity;
  const readable = readableFields(fields).filter((field) => !field.identity);
  const answeredFields = answeredFieldNames(fields);
  const canonicalOf = oncePerFrozenSpec((spec) => canonicalAttributes(fields, spec));
  const identityFor = oncePerFrozenSpec((spec) => identityOf(identityFields, spec));
  return {
    type: definition.type,
    construct: definition.construct,
    doc: definition.doc,
    fields,
    writeSemantics: definition.writeSemantics,
    id: (spec) => definition.id(identityFor(spec)),
    parseImportId: (importId) => definition.parseImportId(importId),
    api: (spec) => definition.api(identityFor(spec)),
    deleteSteps: (spec) => (definition.deleteSteps ? definition.deleteSteps(identityFor(spec)) : { call: definition.api(identityFor(spec)).delete }),
    secretWriteCalls: (spec) => (definition.secretWriteCalls ? definition.secretWriteCalls(identityFor(spec)) : {}),
    verifySecret: (field, value, liveData) => definition.verifySecret?.(field, value, liveData),
    health: (live) => definition.health?.(live),
    consequences: async (spec, live, read) => (definition.consequences ? definition.consequences(identityFor(spec), live, read) : []),
    holdsUnmanagedData: (live) => definition.holdsUnmanagedData?.(live) ?? false,
    operations: definition.operations ?? [],
    discover: definition.discover,
    dependsOn: (spec) => (definition.dependsOn ? definition.dependsOn(canonicalOf(spec)) : []),
    livesIn: (spec) => (definition.livesIn ? definition.livesIn(identityFor(spec)) : []),
    normaliseDesired: (spec) => canonicalOf(spec),
    normaliseRead(raw, identity, desired) {
      const data = unwrapData(raw);
      if (data === null) return null;
      const canonicalIdentity = identityFor(identity);
      const mapped = definition.readAttributes ? definition.readAttributes(data, canonicalIdentity) : data;
      if (mapped === null) return null;
      let result: Attributes = { ...canonicalIdentity };
      for (const field of readable) {
        const value = mapped[field.api];
        if (value !== undefined && value !== null) result[field.api] = canonicalValue(field, value);
      }
      if (desired && definition.alignWithDesired) result = definition.alignWithDesired(result, canonicalOf(desired));
      return result;
    },
    writeBody: (desired, options) =>
      definition.writeBody ? definition.writeBody(desired, options) : defaultWriteBody(fields, desired, options),
    readAnswerProblem(raw) {
      const problem = payloadProblem(raw);
      if (problem !== undefined) return problem;
      const data = unwrapData(raw)!;
      if (definition.readAnswerShape) return definition.readAnswerShape(data);
      return holdsAnyField(data, answeredFields) ? undefined : objectWithoutFields(data, answeredFields);
    },
    // Every type's object has this key, so that all of them have one shape (one hidden class for V8: the code
    // that reads a type for each resource is not compiled again when a destination comes after a user).
    destinationType: definition.destinationType,
  };
}

/**
 * What a read of an object always holds at least one of: its readable fields besides the identity (which is in
 * the path, and which some reads do not repeat). An answer with none of them (`{}`, an error body under 200,
 * some other server's JSON) says nothing about the object.
 */
function answeredFieldNames(fields: readonly FieldSpec[]): string[] {
  return readableFields(fields).filter((field) => !field.identity).map((field) => field.api);
}

function holdsAnyField(data: Record<string, unknown>, names: readonly string[]): boolean {
  return names.some((name) => Object.prototype.hasOwnProperty.call(data, name));
}

function objectWithoutFields(data: Record<string, unknown>, names: readonly string[]): string {
  const keys = Object.keys(data);
  const held = keys.length === 0 ? 'an empty object' : `an object with only ${describeKeys(keys)}`;
  return `${held}, none of the fields such a read returns (${describeKeys(names)})`;
}

/** At most five names, quoted: server keys are shown, never their values (they may hold anything). */
export function describeKeys(names: readonly string[]): string {
  const shown = names.slice(0, 5).map((name) => JSON.stringify(name.length > 40 ? `${name.slice(0, 40)}...` : name));
  return names.length > 5 ? `${shown.join(', ')} and ${names.length - 5} more` : shown.join(', ');
}

/** Why a read answer's body is not an object at all (what `unwrapData` would take as "nothing there"), or undefined. */
export function payloadProblem(raw: unknown): string | undefined {
  if (raw === undefined) return 'no body';
  if (!isPlainObject(raw)) return `a JSON ${Array.isArray(raw) ? 'array' : raw === null ? 'null' : typeof raw} instead of an object`;
  if (unwrapData(raw) === null) return 'an envelope whose data is null';
  return undefined;
}

/** Builds the four usual calls when create, update, read and delete all use one path. */
export function samePathApi(path: string): ApiPaths {
  return {
    read: { method: 'GET', path },
    create: { method: 'POST', path },
    update: { method: 'POST', path },
    delete: { method: 'DELETE', path },
  };
}

/** Splits an import id against a pattern of literal segments and named parts; undefined when it does not fit. */
export function matchPath(importId: string, pattern: RegExp): RegExpExecArray | undefined {
  const match = pattern.exec(importId.replace(/^\/+|\/+$/g, '').replace(/^v1\//, ''));
  return match ?? undefined;
}
