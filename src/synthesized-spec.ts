/**
 * The synthesized spec format: the object each secretform construct writes under `"//".secretform` of its
 * resource in `cdk.tf.json`, and the engine reads back. Both sides use this module, so the writer and the reader
 * agree on the version, the shape and where the object sits. It names no framework: constructs write it,
 * the engine reads it without importing constructs or cdktf.
 */
import { hasKeysInOrder, inKeyOrder, isJsonObject, isNonEmptyString, isOptionalBoolean, isStringArray, isStringRecord } from './json-shape';
import { lazy, type Infer } from './lazy-zod';
import { parseSecretReferenceJson, secretReferenceJson, type SecretReference } from './secret-value';

export const SPEC_FORMAT_VERSION = 1;

/** The override path of the object on a synthesized resource (cdktf's `addOverride`). */
export const SPEC_OVERRIDE_PATH = '//.secretform';

const lifecycleSchema = lazy((z) => z.strictObject({
  protect: z.boolean().optional(),
  retainOnDelete: z.boolean().optional(),
  ignoreChanges: z.array(z.string().min(1)).optional(),
}));

const sourceLocationSchema = lazy((z) => z.strictObject({
  file: z.string().min(1),
  line: z.number().int().positive(),
  column: z.number().int().positive(),
}));

/** @internal (zod's types stay out of the public declarations) */
export const specSchema = lazy((z) => z.object({
  version: z.literal(SPEC_FORMAT_VERSION),
  type: z.string(),
  address: z.string().min(1),
  id: z.string().min(1),
  spec: z.record(z.string(), z.unknown()),
  secrets: z.record(z.string(), z.unknown()),
  dependsOn: z.array(z.string()),
  digest: z.string(),
  lifecycle: lifecycleSchema().optional(),
  policyWaivers: z.record(z.string(), z.string()).optional(),
  source: sourceLocationSchema().optional(),
}));

/**
 * The guardrails a construct sets on its object (docs/guardrails.md); every key is optional and absent means
 * off, so a spec without guardrails is written and read exactly as before.
 */
export interface ResourceLifecycle {
  /** A plan that deletes or replaces the object fails before any write. */
  readonly protect?: boolean;
  /** Removing the construct (or `destroy`) forgets the object in state and leaves it on the service. */
  readonly retainOnDelete?: boolean;
  /** Service field names written on create and never diffed afterwards; `['*']` for every field. */
  readonly ignoreChanges?: readonly string[];
}

/**
 * Where the user's code creates the construct (constructs/creation-site.ts): the file relative to the project
 * directory with `/` separators, the 1-based line and column. Optional in format version 1: synth output written
 * before it existed, or with `new App({ stackTraces: false })`, has none and still loads.
 */
export interface SourceLocation {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

/** One resource as synthesized: everything but secret values (secrets are references). */
export interface SynthesizedSpec {
  /** Construct path. */
  readonly address: string;
  /** Resource type, e.g. `ldap_static_role`. */
  readonly type: string;
  /** API path id. */
  readonly id: string;
  /** Desired attributes by the service's field names, without secrets. */
  readonly spec: Readonly<Record<string, unknown>>;
  /** Where each secret field's value comes from (never the value). */
  readonly secrets: Readonly<Record<string, SecretReference>>;
  /** Addresses of the resources that must exist first. */
  readonly dependsOn: readonly string[];
  /** Digest of the canonical spec and the secret references (the bridge's trigger). */
  readonly digest: string;
  /** The construct's guardrails, when it sets any. */
  readonly lifecycle?: ResourceLifecycle;
  /** Policies the construct waives, by policy id, with the reason (absent when none). */
  readonly policyWaivers?: Readonly<Record<string, string>>;
  /** Where the code creates the construct, when known (for the reports; never part of the digest). */
  readonly source?: SourceLocation;
}

/** The JSON object written under `"//".secretform`. */
export function writeSynthesizedSpec(entry: SynthesizedSpec): Record<string, unknown> {
  const secrets: Record<string, unknown> = {};
  for (const [field, reference] of Object.entries(entry.secrets)) secrets[field] = secretReferenceJson(reference);
  return {
    version: SPEC_FORMAT_VERSION,
    type: entry.type,
    address: entry.address,
    id: entry.id,
    spec: entry.spec,
    secrets,
    dependsOn: [...entry.dependsOn],
    digest: entry.digest,
    ...lifecycleJson(entry.lifecycle),
    ...(entry.policyWaivers !== undefined && Object.keys(entry.policyWaivers).length > 0 ? { policyWaivers: { ...entry.policyWaivers } } : {}),
    ...(entry.source !== undefined ? { source: { file: entry.source.file, line: entry.source.line, column: entry.source.column } } : {}),
  };
}

/** `{ lifecycle }` with only the guardrails that are on, or nothing when none is. */
export function lifecycleJson(lifecycle: ResourceLifecycle | undefined): { lifecycle?: ResourceLifecycle } {
  const json: { protect?: boolean; retainOnDelete?: boolean; ignoreChanges?: string[] } = {};
  if (lifecycle?.protect) json.protect = true;
  if (lifecycle?.retainOnDelete) json.retainOnDelete = true;
  if (lifecycle?.ignoreChanges && lifecycle.ignoreChanges.length > 0) json.ignoreChanges = [...lifecycle.ignoreChanges];
  return Object.keys(json).length > 0 ? { lifecycle: json } : {};
}

/**
 * What a construct whose props or stack rules failed is synthesized as when validation was skipped
 * (`new App({ skipValidation: true })`): the reader refuses the whole stack, rather than read the construct's
 * absence as "removed from code" and delete the live object.
 */
export interface InvalidMarker {
  readonly type: string;
  readonly address: string;
  readonly problems: readonly string[];
}

const invalidMarkerSchema = lazy((z) => z.object({
  version: z.literal(SPEC_FORMAT_VERSION),
  type: z.string(),
  address: z.string().min(1),
  problems: z.array(z.string()).min(1),
}));

export function writeInvalidMarker(marker: InvalidMarker): Record<string, unknown> {
  return { version: SPEC_FORMAT_VERSION, type: marker.type, address: marker.address, problems: [...marker.problems] };
}

export class SpecFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SpecFormatError';
  }
}

/**
 * Every secretform spec of a synthesized stack configuration (`cdk.tf.json` content), in file order, whatever
 * resource type carries it (the bridge's `null_resource` or `terraform_data`). Resources of the user's own,
 * without the object, are skipped. Throws a SpecFormatError naming the resource when an object is malformed.
 */
export function readSynthesizedSpecs(config: unknown, source: string): SynthesizedSpec[] {
  const specs: SynthesizedSpec[] = [];
  const invalid: string[] = [];
  forEachSpecObject(config, (resourceType, logicalId, object) => {
    // Only an object with `problems` can be a marker: trying the marker's schema on every spec first cost a
    // failed parse (and its error objects) per resource.
    const marked = isObjectWith(object, 'problems') ? invalidMarkerSchema().safeParse(object) : undefined;
    if (marked?.success) {
      const { address, problems } = marked.data;
      invalid.push(...problems.map((problem) => (problem.startsWith(`${address}: `) ? problem : `${address}: ${problem}`)));
      return;
    }
    // The resource is named only in a message: no text made per spec that reads well (synth's digest record and
    // every plan read each stack's specs).
    specs.push(parseSpec(object, () => `${source}: ${resourceType}.${logicalId}`));
  });
  if (invalid.length > 0) {
    throw new SpecFormatError(
      `${source}: ${invalid.length} problem${invalid.length === 1 ? '' : 's'} in constructs synthesized without validation ` +
        `(\`new App({ skipValidation: true })\`?); secretform never plans a construct whose spec is invalid. Fix them, ` +
        `then synthesize again:\n  ${invalid.join('\n  ')}`,
    );
  }
  return specs;
}

function isObjectWith(value: unknown, key: string): boolean {
  return typeof value === 'object' && value !== null && Object.prototype.hasOwnProperty.call(value, key);
}

/**
 * Every `"//".secretform` object of a synthesized configuration, as written (not checked), with the terraform
 * address of the resource that carries it. Resources of the user's own, without the object, are skipped.
 */
export function specObjectsOf(config: unknown): Array<{ terraformAddress: string; object: unknown }> {
  const found: Array<{ terraformAddress: string; object: unknown }> = [];
  forEachSpecObject(config, (resourceType, logicalId, object) => found.push({ terraformAddress: `${resourceType}.${logicalId}`, object }));
  return found;
}

/** `visit` of every `"//".secretform` object of a configuration, in file order, with its resource's type and logical id. */
function forEachSpecObject(config: unknown, visit: (resourceType: string, logicalId: string, object: unknown) => void): void {
  const blocks = (config as { resource?: unknown } | null)?.resource;
  if (typeof blocks !== 'object' || blocks === null) return;
  for (const resourceType of Object.keys(blocks)) {
    const resources = (blocks as Record<string, unknown>)[resourceType];
    if (typeof resources !== 'object' || resources === null) continue;
    for (const logicalId of Object.keys(resources)) {
      const block = (resources as Record<string, unknown>)[logicalId];
      const object = (block as { '//'?: { secretform?: unknown } } | null)?.['//']?.secretform;
      if (object !== undefined) visit(resourceType, logicalId, object);
    }
  }
}

/** One `"//".secretform` object read back; throws a SpecFormatError naming `where` when it is malformed. */
export function parseSynthesizedSpec(value: unknown, where: string): SynthesizedSpec {
  return parseSpec(value, () => where);
}

function parseSpec(value: unknown, where: () => string): SynthesizedSpec {
  const entry = isWellFormedSpec(value) ? value : schemaParsedSpec(value, where());
  const secrets: Record<string, SecretReference> = {};
  for (const [field, json] of Object.entries(entry.secrets)) {
    const reference = parseSecretReferenceJson(json);
    if (!reference) throw new SpecFormatError(`${where()}: secret "${field}" is not a {"$secret": {"env"|"file": ...}} reference`);
    secrets[field] = reference;
  }
  return {
    address: entry.address, type: entry.type, id: entry.id, spec: entry.spec, secrets, dependsOn: entry.dependsOn, digest: entry.digest,
    ...(entry.lifecycle ? { lifecycle: entry.lifecycle } : {}),
    ...(entry.policyWaivers !== undefined ? { policyWaivers: entry.policyWaivers } : {}),
    // A new object in the schema's key order, whatever order the framework wrote.
    ...(entry.source !== undefined ? { source: { file: entry.source.file, line: entry.source.line, column: entry.source.column } } : {}),
  };
}

function schemaParsedSpec(value: unknown, where: string): SpecObject {
  const parsed = specSchema().safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw new SpecFormatError(`${where}: not a secretform spec of format version ${SPEC_FORMAT_VERSION}: ${issues}`);
  }
  return parsed.data;
}

type SpecObject = Infer<typeof specSchema>;

/** The keys of `lifecycleSchema`, in its order, written out so that reading a spec does not build the schema (a unit test checks they agree). */
export const LIFECYCLE_KEYS: readonly string[] = ['protect', 'retainOnDelete', 'ignoreChanges'];

/**
 * A spec object the schema would take, and return with the same parts (its `spec`, `lifecycle` and
 * `policyWaivers` kept as they are): the common case, checked without zod, whose parse of 10,000 specs cost
 * about 40 ms of a plan's start-up. Anything else goes through the schema, which names the problem.
 * @internal (zod's types stay out of the public declarations)
 */
export function isWellFormedSpec(value: unknown): value is SpecObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const spec = value as Record<string, unknown>;
  return spec.version === SPEC_FORMAT_VERSION && typeof spec.type === 'string' && isNonEmptyString(spec.address) && isNonEmptyString(spec.id) &&
    isJsonObject(spec.spec) && isJsonObject(spec.secrets) && isStringArray(spec.dependsOn) && typeof spec.digest === 'string' &&
    (spec.lifecycle === undefined || isWellFormedLifecycle(spec.lifecycle)) && (spec.policyWaivers === undefined || isStringRecord(spec.policyWaivers)) &&
    (spec.source === undefined || isWellFormedSource(spec.source));
}

/** The keys of `sourceLocationSchema` (a unit test checks they agree); in any order, as the framework may sort them. */
export const SOURCE_KEYS: readonly string[] = ['file', 'line', 'column'];

function isWellFormedSource(value: unknown): boolean {
  if (!isJsonObject(value) || Object.keys(value).length !== SOURCE_KEYS.length || !SOURCE_KEYS.every((key) => key in value)) return false;
  return isNonEmptyString(value.file) && isPositiveInteger(value.line) && isPositiveInteger(value.column);
}

function isPositiveInteger(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value > 0;
}

function isWellFormedLifecycle(value: unknown): boolean {
  if (!isJsonObject(value) || !hasKeysInOrder(value, LIFECYCLE_KEYS)) return false;
  return isOptionalBoolean(value.protect) && isOptionalBoolean(value.retainOnDelete) && (value.ignoreChanges === undefined || isStringArray(value.ignoreChanges, true));
}

/** The override path of a stack's connection in its configuration: `"//".secretform.connection` at the top level. */
export const CONNECTION_OVERRIDE_PATH = '//.secretform.connection';

/**
 * A stack's `ServiceConnection` as synthesized: which service the stack's resources live on. Names and paths only:
 * the token is read at plan/apply time from the variable `tokenEnv` names, never synthesized.
 */
export interface SynthesizedConnection {
  /** Construct path of the ServiceConnection (for messages). */
  readonly construct: string;
  /** Scheme, host, port and optional path prefix, as `SERVICE_ADDR` takes it. */
  readonly address: string;
  /** The environment variable that holds the token (never the token). */
  readonly tokenEnv: string;
  /** PEM files, as written in code (a relative path is resolved against the project directory at run time). */
  readonly caCertFile?: string;
  readonly clientCertFile?: string;
  readonly clientKeyFile?: string;
  readonly skipVerify: boolean;
}

/** @internal (zod's types stay out of the public declarations) */
export const connectionSchema = lazy((z) => z.object({
  version: z.literal(SPEC_FORMAT_VERSION),
  construct: z.string().min(1),
  address: z.string().min(1),
  tokenEnv: z.string().min(1),
  caCertFile: z.string().min(1).optional(),
  clientCertFile: z.string().min(1).optional(),
  clientKeyFile: z.string().min(1).optional(),
  skipVerify: z.boolean(),
}).strict());

const connectionMarkerSchema = lazy((z) => z.object({
  version: z.literal(SPEC_FORMAT_VERSION),
  construct: z.string().min(1),
  problems: z.array(z.string()).min(1),
}));

/** The JSON object written at `"//".secretform.connection`. */
export function writeSynthesizedConnection(connection: SynthesizedConnection): Record<string, unknown> {
  const optional = (key: 'caCertFile' | 'clientCertFile' | 'clientKeyFile') => (connection[key] === undefined ? {} : { [key]: connection[key] });
  return {
    version: SPEC_FORMAT_VERSION,
    construct: connection.construct,
    address: connection.address,
    tokenEnv: connection.tokenEnv,
    ...optional('caCertFile'),
    ...optional('clientCertFile'),
    ...optional('clientKeyFile'),
    skipVerify: connection.skipVerify,
  };
}

/** What an invalid connection (or two in one stack) is synthesized as when validation was skipped: the reader refuses the stack. */
export function writeConnectionMarker(construct: string, problems: readonly string[]): Record<string, unknown> {
  return { version: SPEC_FORMAT_VERSION, construct, problems: [...problems] };
}

/**
 * The connection of a synthesized stack configuration, or undefined when the stack has none (it then uses the
 * `SERVICE_*` environment). Throws a SpecFormatError when the object is malformed or marks an invalid connection.
 */
export function readSynthesizedConnection(config: unknown, source: string): SynthesizedConnection | undefined {
  const comment = (config as { '//'?: { secretform?: { connection?: unknown } } } | null)?.['//'];
  const object = typeof comment === 'object' && comment !== null ? comment.secretform?.connection : undefined;
  if (object === undefined) return undefined;
  return parseSynthesizedConnection(object, source);
}

/** One connection object read back (from `cdk.tf.json` or a saved plan); throws a SpecFormatError naming `where`. */
export function parseSynthesizedConnection(value: unknown, where: string): SynthesizedConnection {
  const marked = isObjectWith(value, 'problems') ? connectionMarkerSchema().safeParse(value) : undefined;
  if (marked?.success) {
    throw new SpecFormatError(
      `${where}: the ServiceConnection ${marked.data.construct} was synthesized without validation (\`new App({ skipValidation: true })\`?) ` +
        `and is invalid; secretform never talks to a service through an invalid connection. Fix it, then synthesize again:\n  ${marked.data.problems.join('\n  ')}`,
    );
  }
  const { version: _version, ...connection } = wellFormedConnectionInAnyOrder(value) ?? schemaParsedConnection(value, where);
  return connection;
}

function schemaParsedConnection(value: unknown, where: string): ConnectionObject {
  const parsed = connectionSchema().safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(object)'}: ${issue.message}`).join('; ');
    throw new SpecFormatError(`${where}: "//".secretform.connection is not a secretform connection of format version ${SPEC_FORMAT_VERSION}: ${issues}`);
  }
  return parsed.data;
}

type ConnectionObject = Infer<typeof connectionSchema>;

/** The keys of `connectionSchema`, in its order, written out so that reading a connection does not build the schema (a unit test checks they agree). */
export const CONNECTION_KEYS: readonly string[] = ['version', 'construct', 'address', 'tokenEnv', 'caCertFile', 'clientCertFile', 'clientKeyFile', 'skipVerify'];

/**
 * A connection object the schema would take, with its keys in the schema's order, as the schema would return it
 * (cdktf writes them sorted): the common case, checked without loading zod. Undefined when it is not well formed:
 * the caller parses it with the schema, which names the problem.
 * @internal (zod's types stay out of the public declarations)
 */
export function wellFormedConnectionInAnyOrder(value: unknown): ConnectionObject | undefined {
  const ordered = isJsonObject(value) ? inKeyOrder(value, CONNECTION_KEYS) : undefined;
  return ordered !== undefined && isWellFormedConnection(ordered) ? ordered : undefined;
}

function isWellFormedConnection(value: Record<string, unknown>): value is ConnectionObject {
  const optional = (part: unknown) => part === undefined || isNonEmptyString(part);
  return value.version === SPEC_FORMAT_VERSION && isNonEmptyString(value.construct) && isNonEmptyString(value.address) && isNonEmptyString(value.tokenEnv) &&
    optional(value.caCertFile) && optional(value.clientCertFile) && optional(value.clientKeyFile) && typeof value.skipVerify === 'boolean';
}
