/**
 * The resource model: one `ResourceType` per kind of object secretform manages. Constructs, the engine and the
 * reports all read these definitions, so each fact about a type (its fields, paths, normalisation) lives once.
 *
 * Vocabulary:
 * - spec: a resource's desired attributes keyed by the service's field names (snake_case), as synthesized.
 *   Secret fields are never in a spec; they travel separately as references.
 * - canonical form: what `normaliseDesired(spec)` and `normaliseRead(raw)` both return, so that the two can be
 *   compared with deep equality (durations as integer seconds, lists as arrays, unordered lists sorted, ...).
 */

/** A spec or canonical object: service field name -> value. */
export type Attributes = Record<string, unknown>;

/** How a field's value is typed, validated and normalised. */
export type FieldKind =
  | 'string'
  | 'bool'
  | 'int'
  /** `"1h"`-style string or integer seconds; canonical form: integer seconds. */
  | 'duration'
  /** Array of strings (the service may also take or return a comma-separated string). */
  | 'stringList'
  /** Object of string to string. */
  | 'stringMap'
  /** Array of objects (the service may take it as a JSON string). */
  | 'objectList'
  /** Templated LDIF; may be written base64-encoded; canonical form: decoded text. */
  | 'ldif'
  /** Go-template text (username templates, secret name templates). */
  | 'template';

/** How a field is put on the wire when it differs from its canonical form. */
export type WireFormat = 'json-string' | 'comma-string';

/** A rule a string value (or each string of a list) must follow; `message` says what is allowed. */
export interface FormatRule {
  test(value: string): boolean;
  readonly message: string;
}

/**
 * How a value that becomes part of an API path may be shaped (rules in names.ts):
 * - `single`: exactly one path segment (no `/`);
 * - `hierarchical`: one or more segments separated by `/` (roles and sets that form a hierarchy, mount paths).
 */
export type PathSegmentKind = 'single' | 'hierarchical';

/** The fields and extra functions a template field may use (see template.ts). */
export interface TemplateSyntaxFacts {
  /** Field names allowed after the leading period (`Username` for `{{.Username}}`); undefined = any. */
  readonly fields?: readonly string[];
  /** Functions available besides the service's and the built-in ones (LDIF templates add `utf16le`). */
  readonly extraFunctions?: readonly string[];
}

export interface FieldSpec {
  /** The service's field name (snake_case), used in specs, plan output and request bodies. */
  readonly api: string;
  /** The construct prop name (camelCase). */
  readonly prop: string;
  readonly kind: FieldKind;
  /** What the field is, for users: the construct prop's documentation (generated Props) says it. */
  readonly doc: string;
  /** Must be set in code. */
  readonly required?: boolean;
  /** The values the service accepts (for a list: for each element). */
  readonly allowed?: readonly string[];
  /** Rules a string value (or each string of a list) follows, checked at synth, in this order. */
  readonly format?: readonly FormatRule[];
  /** A string that may be empty (most strings may not). */
  readonly emptyAllowed?: boolean;
  /** Smallest value of an int, or of a duration in seconds. */
  readonly minimum?: number;
  /** A list needs at least one element. */
  readonly nonEmpty?: boolean;
  /** Each element of a list at most once (compared ignoring case when `matchesIgnoringCase`); names the element. */
  readonly unique?: string;
  /**
   * The service stores the value as given but compares it ignoring case (directory account names: `SVC-1` and
   * `svc-1` are one account). Unlike `caseInsensitive`, the stored value keeps its case.
   */
  readonly matchesIgnoringCase?: boolean;
  /** The default in words, when `serviceDefault` cannot say it (none fixed, or derived from other fields). */
  readonly defaultDoc?: string;
  /** objectList: the fields of each element. stringMap: its only keys. */
  readonly members?: readonly FieldSpec[];
  /** objectList: the name of the element's TypeScript interface (e.g. `CloudRoleAssignment`). */
  readonly elementName?: string;
  /**
   * Set by the construct rather than by a prop of that name: from a referenced construct (a role's mount from
   * its `backend`) or a default of the construct's own (an engine's path). Its prop is written by hand.
   */
  readonly setByConstruct?: boolean;
  /**
   * The value the service reports when the field was never set, in canonical form. `undefined` when the
   * service has no fixed default (absent, or derived from other fields). Lets the engine tell "absent in code"
   * from "server default".
   */
  readonly serviceDefault?: unknown;
  /** A secret: never synthesized (only a reference is), never returned by the server, diffed by fingerprint. */
  readonly sensitive?: boolean;
  /** A root credential the service can rotate itself: send it only when its desired value changed. */
  readonly rootCredential?: boolean;
  /** Cannot change after creation: a change means delete and re-create. */
  readonly immutable?: boolean;
  /** Accepted only when the object is created; never sent on update, never returned. */
  readonly createOnly?: boolean;
  /** Part of the API path (and of the import id). */
  readonly identity?: boolean;
  /** Identity fields are not sent in the request body unless this is set. */
  readonly inBody?: boolean;
  /** Element order is not kept by the server: the canonical form is sorted. */
  readonly unordered?: boolean;
  /** The server lower-cases the value before storing it. */
  readonly caseInsensitive?: boolean;
  /** Only with `kind: 'objectList'`: key order of each element does not matter; elements compared by these keys. */
  readonly elementKeys?: readonly string[];
  /** How the field is sent when it is not sent in canonical form. */
  readonly wire?: WireFormat;
  /** Deprecated by the service (still accepted); says what to use instead. */
  readonly deprecated?: string;
  /** Not secret, but the server never returns it: compared against the last applied value only. */
  readonly writeOnly?: boolean;
  /** Reported by the server, never set in code (e.g. an association's `sync_status`). */
  readonly computed?: boolean;
  /** The value becomes part of an API path; names.ts says what such a value may hold. */
  readonly segment?: PathSegmentKind;
  /** Values whose first path segment is one of these are refused (the server's own paths, e.g. `sys`). */
  readonly reservedFirstSegments?: readonly string[];
  /** Maximum length in characters (path values default to `NAME_MAX_LENGTH`, names.ts). */
  readonly maxLength?: number;
  /** Only with `kind: 'template'` or `'ldif'`: the fields and functions the template may use. */
  readonly template?: TemplateSyntaxFacts;
  /**
   * A setting of secretform itself, not of the service (e.g. `rotate_root_after_create`): a construct prop that
   * is synthesized with the spec, but never sent, never read back, never diffed and never kept in state.
   */
  readonly local?: boolean;
}

/** One HTTP call of the service's API; `path` is relative to `/v1/`. */
export interface ApiCall {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'LIST';
  readonly path: string;
  /** Query parameters (e.g. the association lookup). */
  readonly query?: Readonly<Record<string, string>>;
  /** A fixed body the call needs besides the resource's fields (e.g. association remove). */
  readonly body?: Readonly<Record<string, unknown>>;
  /** Content type the call requires, when not `application/json` (PATCH needs merge-patch). */
  readonly contentType?: string;
}

/** The calls that read, create, update and delete one object. */
export interface ApiPaths {
  readonly read: ApiCall;
  readonly create: ApiCall;
  readonly update: ApiCall;
  readonly delete: ApiCall;
}

/**
 * How a delete is carried out. Usually the `delete` call alone; some objects refuse it while they still hold
 * things secretform does not manage (a destination with associations) and need another call then.
 */
export interface DeleteSteps {
  readonly call: ApiCall;
  readonly whenOccupied?: {
    /**
     * Read to tell whether the object still holds something, with the shape its 2xx answer must have: the engine
     * fails the delete, sending nothing, on an answer of another shape (it cannot tell; "empty" would be a guess).
     * A 404 means the object is gone already, so the plain `call` (which takes a 404 for done) is sent.
     */
    readonly probe: ListingCall;
    /** Whether the probe's answer (unwrapped from its envelope, and of the probe's shape) says it does. */
    isOccupied(answer: Record<string, unknown>): boolean;
    /** The call that deletes it anyway (e.g. `purge=true`). */
    readonly call: ApiCall;
    /** The service finishes that delete asynchronously: wait until the object's read answers 404. */
    readonly awaitGone: boolean;
  };
}

/** What a secret's check against the service found: `undefined` from a hook means the service cannot tell. */
export type SecretVerdict = 'same' | 'different';

/** Drift kinds that a type's `health` hook reports (besides the generic `changed` and `deleted`). */
export const HEALTH_DRIFT_KINDS = ['out_of_sync'] as const;
export type HealthDriftKind = (typeof HEALTH_DRIFT_KINDS)[number];

/** A live object that exists but is not well, as its type's `health` hook sees it. */
export interface HealthProblem {
  /** The drift kind plans report, e.g. `out_of_sync`. */
  readonly kind: HealthDriftKind;
  /** What reports say after the address, e.g. `is out of sync on the service`. */
  readonly headline: string;
  /** The name of what the service reported, e.g. `sync status`. */
  readonly label: string;
  /** What the service reported, e.g. `PENDING` or a failure cause. */
  readonly status: string;
  /** Writing the object again repairs it: the plan has an update. */
  readonly repairedByWrite: boolean;
}

/** The operations a type offers besides configuration (the `secretform action` commands). */
export type OperationName = 'rotate-root' | 'rotate-role' | 'creds' | 'check-out' | 'check-in' | 'status' | 'login';

/** Options an operation takes from the command line. */
export type OperationOption = 'ttl' | 'force' | 'account';

export interface OperationInput {
  /** `--ttl`, as the service's duration string. */
  readonly ttl?: string;
  /** `--force`: the privileged path (library check-in on the manage path). */
  readonly force?: boolean;
  /** `--account`: the accounts the call is about (library check-in). */
  readonly accounts?: readonly string[];
  /** Resolved values of the secret fields the operation needs (`secretInputs`). */
  readonly secrets?: Readonly<Record<string, string>>;
}

export interface OperationSpec {
  readonly name: OperationName;
  readonly doc: string;
  /** The call for the object identified by `identity` (canonical identity fields), with its body. */
  call(identity: Attributes, input: OperationInput): ApiCall;
  /** The answer holds credentials: printed to stdout only, never logged or stored. */
  readonly returnsCredentials: boolean;
  /** Command-line options the operation accepts. */
  readonly options: readonly OperationOption[];
  /** Secret fields of the object whose values from code the call sends (login: `password`). */
  readonly secretInputs?: readonly string[];
  /** Sent without the service token (userpass login). */
  readonly anonymous?: boolean;
  /** The service may fail briefly after it (the root rotation propagates): retry, do not report. */
  readonly eventuallyConsistent?: boolean;
  /** After it, the type's root credential is known only to the service. */
  readonly rotatesRootCredential?: boolean;
  /**
   * The local bool field (`rotate_root_after_create`) that makes apply run this operation right after the object
   * was created, so the value from code stops working at once.
   */
  readonly afterCreateSetting?: string;
}

/**
 * What a write does to fields it does not carry:
 * - `merge`: they keep their stored value.
 * - `replace`: they are reset (every write must carry the whole object, secrets included).
 * - `partial-empty-deletes`: they keep their value; a field sent as `""` is deleted.
 * - `create-only`: there is no update call that changes fields besides `update` (mounts are tuned, associations
 *   are set again).
 */
export type WriteSemantics = 'merge' | 'replace' | 'partial-empty-deletes' | 'create-only';

export interface WriteBodyOptions {
  /** The object does not exist yet (create-only fields are sent only then). */
  readonly create: boolean;
  /** Resolved secret values to send, by field name; the engine decides which (see `rootCredential`). */
  readonly secrets?: Readonly<Record<string, string>>;
  /** Fields to send as `""` (only meaningful for `partial-empty-deletes`). */
  readonly clear?: readonly string[];
}

/**
 * What a listing endpoint answers, as service-api.md gives it (and the envelope behaviour-notes adds). Discovery
 * checks every answer against it before a type's `find` reads it, and the engine before a type's `consequences`
 * hook counts it and before a delete's occupancy probe (`DeleteSteps.whenOccupied`) decides: a body of another
 * shape (`{}`, `data` without `keys`, names that are not strings) would otherwise read as an empty or partial area.
 */
export interface ListingShape {
  /** The shape in words, for the error that refuses another: `a list of names (...)`. */
  readonly expected: string;
  /** Why a 2xx answer's body (`undefined`: none) is not such a listing; undefined when it is one (empty ones too). */
  problem(body: unknown): string | undefined;
}

/** A call that reads a listing (discovery, a consequence count, a delete's occupancy probe), with the shape its 2xx answer must have. */
export interface ListingCall extends ApiCall {
  readonly answers: ListingShape;
}

/**
 * Calls the service while discovering objects: the body of a 2xx answer, which has the call's shape (generate
 * stops on one that has not), or `undefined` when the service answered 404 (a LIST with no entries answers 404;
 * generate believes it only once it knows it talks to the service). Identical calls are sent once.
 */
export type ListingRead = (call: ListingCall) => Promise<unknown>;

/**
 * What a read for a type's `consequences` hook found: the body of a 2xx answer that has the call's shape
 * (`undefined` when the service answered 404: nothing there, as a LIST with no entries answers), or why the
 * answer tells nothing (a denial, a body that is not the listing the call asks for). The hook reports the
 * latter as a consequence it could not count, never as none.
 */
export type ConsequenceAnswer = { readonly ok: true; readonly body: unknown } | { readonly ok: false; readonly why: string };

/** Calls the service for a type's `consequences` hook. */
export type ConsequenceRead = (call: ListingCall) => Promise<ConsequenceAnswer>;

/** What discovery found of one type: the identities of its objects, and what it saw but cannot express. */
export interface DiscoveryResult {
  /** Identity fields (canonical) of each object found; each is then read with the type's `read` call. */
  readonly found: readonly Attributes[];
  /** Objects of the service the model cannot express, each as `<path> (<why>)`, e.g. `sys/mounts/pki (type "pki")`. */
  readonly unexpressed?: readonly string[];
}

/** How `secretform generate` finds every object of a type on the service (the listing endpoints). */
export interface DiscoverySpec {
  /**
   * The type whose objects this type's objects live in (roles in a secrets mount, users in an auth mount); its
   * objects are discovered first and `find` is called once per object (with its canonical live attributes).
   * Absent: `find` is called once, with no parent.
   */
  readonly within?: string;
  find(read: ListingRead, parent: Attributes | undefined): Promise<DiscoveryResult>;
  /**
   * `find` names objects no listing showed, which may not exist (an engine's one configuration in each mount of
   * its type, the global sync configuration): one that reads as absent is simply not there. Otherwise each object
   * found was listed, and one whose read then finds nothing (deleted between the two, or a listing that names what
   * is not there) is left out with a warning.
   */
  readonly foundUnlisted?: boolean;
  /**
   * The secret fields an object holds, from its read answer (unwrapped): the server never returns them, so
   * generated code asks for them from the environment. Default: the required sensitive fields.
   */
  secretsHeld?(data: Record<string, unknown>): readonly string[];
  /**
   * Keys of the read answer (unwrapped) that are not fields of the type but are known (computed by the server,
   * e.g. `last_service_rotation`); any other key the model lacks is reported as not expressed.
   */
  readonly readOnlyKeys?: readonly string[];
  /**
   * The form a person writes of live attributes where the server fills in equivalents (a cloud role given by
   * name is read back with its id too); default: the attributes as read.
   */
  asWritten?(live: Attributes): Attributes;
  /** Overrides the check of the read answer's keys for answers not shaped as the fields (listings, lookups). */
  unmodelledKeys?(data: Record<string, unknown>, identity: Attributes): readonly string[];
}

/**
 * What else goes on the service when an object is deleted (its type's `consequences` hook), counted from the
 * live service where the API can tell. Never a secret value: names of things at most, usually a count.
 */
export type Consequence = CountedConsequence | UncountedConsequence;

export interface CountedConsequence {
  /** What goes, as a plural noun: `secrets`, `users`, `roles`, `external secrets` (resources/nouns.ts). */
  readonly what: string;
  /** The same noun, singular, for a count of 1 (absent from plans saved before it existed). */
  readonly one?: string;
  readonly count: number;
  /** The count stopped at the hook's bound: there are at least `count`. */
  readonly atLeast?: boolean;
  /** One sentence for reviewers, e.g. `every secret stored in KV mount "apps" is deleted with it`. */
  readonly detail: string;
}

/** What a delete would take with it where the service's answer could not tell how many: unknown, never 0. */
export interface UncountedConsequence {
  readonly what: string;
  /** Why not: the call and what it answered (`LIST /v1/apps/metadata answered HTTP 200 with ...`). */
  readonly uncounted: string;
  readonly detail: string;
}

export interface ResourceType {
  /** Resource type name, e.g. `ldap_static_role`. */
  readonly type: string;
  /** Construct class name, e.g. `LdapStaticRole`. */
  readonly construct: string;
  readonly doc: string;
  readonly fields: readonly FieldSpec[];
  readonly writeSemantics: WriteSemantics;
  /** The API path that identifies the object (no `/v1/`), e.g. `ldap/static-role/svc`. Also its import id. */
  id(spec: Attributes): string;
  /** Every identity field parsed back out of an import id; throws `ImportIdError` when it does not fit. */
  parseImportId(importId: string): Attributes;
  /** The calls that read, create, update and delete the object identified by `spec`'s identity fields. */
  api(spec: Attributes): ApiPaths;
  /** How the object identified by `spec` is deleted (its `delete` call, or more). */
  deleteSteps(spec: Attributes): DeleteSteps;
  /**
   * Secret fields an update writes with a call of their own instead of the object's write (userpass
   * `password`), each with that call; the call's body is `{ <field>: <value> }`.
   */
  secretWriteCalls(spec: Attributes): Readonly<Record<string, ApiCall>>;
  /**
   * Checks a secret against what the server reports of it (a GitHub app key against its SHA-256 fingerprint).
   * `liveData` is the server's answer unwrapped from its envelope. Undefined: the service cannot tell.
   */
  verifySecret(field: string, value: string, liveData: Record<string, unknown> | null): SecretVerdict | undefined;
  /** A problem of a live object that exists (an association not synced), or undefined when it is well. */
  health(live: Attributes): HealthProblem | undefined;
  /**
   * What else a delete of the object identified by `spec` takes with it (the secrets of a KV mount, the users of
   * an auth mount ...), read through `read` from the live service (`live`: its canonical live attributes).
   * Called only for objects a plan deletes or replaces; `[]` when nothing else goes.
   */
  consequences(spec: Attributes, live: Attributes, read: ConsequenceRead): Promise<readonly Consequence[]>;
  /**
   * The live object holds data secretform's code does not describe (a KV mount's secrets): `generate` writes
   * `protect: true` on the construct it adopts, so a later destroy or a removed construct cannot lose that data.
   */
  holdsUnmanagedData(live: Attributes): boolean;
  /** The operations the type offers (rotate, credentials, check-out ...). */
  readonly operations: readonly OperationSpec[];
  /** Canonical form of a desired spec (sensitive fields never appear in it). */
  normaliseDesired(spec: Attributes): Attributes;
  /**
   * Canonical form of what the server returned for the object (envelope or bare), or `null` when the answer
   * says the object does not exist. `identity` is the identity of the object read (its fields are copied into
   * the result); `desired`, when given, decides between equivalent forms the server fills in (e.g. a cloud role
   * given by name is read back with its id too).
   */
  normaliseRead(raw: unknown, identity: Attributes, desired?: Attributes): Attributes | null;
  /**
   * Why a 2xx answer to the type's `read` call does not look like an answer about such an object (no body, a JSON
   * scalar or array, an envelope without data, an object holding none of what the read returns), or undefined
   * when it does. Derived from the fields (a read returns at least one readable field), or from the type's
   * `readAnswerShape` when the answer is not shaped as the fields (listings, lookups). Checked before
   * `normaliseRead`: an answer that fails it is neither the object nor its absence.
   */
  readAnswerProblem(raw: unknown): string | undefined;
  /** Ids of the objects this one needs to exist first (mount, backend config, destination, app). */
  dependsOn(spec: Attributes): string[];
  /**
   * Ids of the objects whose delete takes this one with it on the service (a user's auth mount, a role's
   * secrets mount, an association's destination): the protection check refuses such a delete while this object
   * is protected, whether or not the code references the container (a mount given by its path string).
   */
  livesIn(spec: Attributes): string[];
  /** The request body of a create or update, built from a canonical desired spec. */
  writeBody(desired: Attributes, options: WriteBodyOptions): Attributes;
  /** How `generate` finds the type's objects on the service; undefined: it does not look for them. */
  readonly discover?: DiscoverySpec;
  /**
   * A sync destination type: the service's identifier of it (`cloud1-sm`, `repohost` ...); undefined for every
   * other type. A key of every type (not only of destinations) so that all types' objects have one shape.
   */
  readonly destinationType?: string;
}

export class ImportIdError extends Error {
  constructor(type: string, importId: string, expected: string) {
    super(`${type}: import id ${JSON.stringify(importId)} does not have the form ${expected}`);
    this.name = 'ImportIdError';
  }
}
