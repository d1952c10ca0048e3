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
  /** One-line description (shown in docs and reports). */
  readonly doc: string;
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
  /** Deprecated by the service (still accepted). */
  readonly deprecated?: boolean;
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

export interface ApiPaths {
  readonly read: ApiCall;
  readonly create: ApiCall;
  readonly update: ApiCall;
  readonly delete: ApiCall;
  /** Further calls some types need, e.g. userpass `password` (change a user's password). */
  readonly extra: Readonly<Record<string, ApiCall>>;
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
  /** Canonical form of a desired spec (sensitive fields never appear in it). */
  normaliseDesired(spec: Attributes): Attributes;
  /**
   * Canonical form of what the server returned for the object (envelope or bare), or `null` when the answer
   * says the object does not exist. `identity` is the identity of the object read (its fields are copied into
   * the result); `desired`, when given, decides between equivalent forms the server fills in (e.g. a cloud role
   * given by name is read back with its id too).
   */
  normaliseRead(raw: unknown, identity: Attributes, desired?: Attributes): Attributes | null;
  /** Ids of the objects this one needs to exist first (mount, backend config, destination, app). */
  dependsOn(spec: Attributes): string[];
  /** The request body of a create or update, built from a canonical desired spec. */
  writeBody(desired: Attributes, options: WriteBodyOptions): Attributes;
}

export class ImportIdError extends Error {
  constructor(type: string, importId: string, expected: string) {
    super(`${type}: import id ${JSON.stringify(importId)} does not have the form ${expected}`);
    this.name = 'ImportIdError';
  }
}
