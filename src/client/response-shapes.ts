/**
 * Reading response bodies in every shape servers use for the same endpoint (behaviour-notes, rule 1):
 * the standard envelope (`{request_id, ..., data, warnings}`), a body holding only `data`, a top-level
 * object (directory static-cred, library read), and a bare JSON array (directory lists).
 */

export type JsonObject = Record<string, unknown>;
export type ShapeResult<T> = { ok: true; value: T } | { ok: false; detail: string };

const ENVELOPE_KEYS = new Set([
  'request_id',
  'lease_id',
  'renewable',
  'lease_duration',
  'data',
  'wrap_info',
  'warnings',
  'auth',
  'mount_type',
]);

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * An envelope has `data` and either a `request_id` or nothing but envelope fields, so a top-level object
 * that merely has a field named `data` among its own fields is not mistaken for one.
 */
export function isEnvelope(body: unknown): body is JsonObject & { data: unknown } {
  if (!isJsonObject(body) || !Object.prototype.hasOwnProperty.call(body, 'data')) return false;
  return 'request_id' in body || Object.keys(body).every((key) => ENVELOPE_KEYS.has(key));
}

/**
 * Empty text (204, or a 200 without body) is `undefined`. A body that is not JSON is described by its start
 * only when `excerpt` makes one that is safe to show (see ServiceClient: never for a request that carried values),
 * else by its length.
 */
export function parseJsonText(text: string, excerpt?: (start: string) => string): ShapeResult<unknown> {
  if (text.trim() === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    const described = excerpt
      ? `starts with ${JSON.stringify(excerpt(text.trim().slice(0, 60).replace(/\s+/g, ' ')))}`
      : `${text.length} characters, not shown: the request carried values that may be secret, and servers echo them`;
    return { ok: false, detail: `a body that is not JSON (${described})` };
  }
}

/** What the caller wants from a body: the envelope's `data`, or the body itself when there is no envelope. */
export function payloadOf(body: unknown): unknown {
  return isEnvelope(body) ? body.data : body;
}

/** The envelope's `warnings` (null and absent mean none). */
export function warningsOf(body: unknown): string[] {
  if (!isJsonObject(body) || !Array.isArray(body.warnings)) return [];
  return body.warnings.filter((warning): warning is string => typeof warning === 'string');
}

/**
 * The `errors` of an error body; other bodies (HTML from a proxy, nothing) give none. An entry that is not a
 * string is shown by its text leaves (`key: value`), never re-encoded as JSON: a JSON string of JSON adds a level
 * of escaping to whatever the server quoted, and an echoed secret then hides behind one more backslash.
 */
export function errorsOf(body: unknown): string[] {
  if (!isJsonObject(body) || !Array.isArray(body.errors)) return [];
  return body.errors.map((error) => (typeof error === 'string' ? error : textLeaves(error, 0).join('; ')));
}

function textLeaves(value: unknown, depth: number): string[] {
  if (typeof value === 'string') return [value];
  if (typeof value === 'number' || typeof value === 'boolean') return [String(value)];
  if (depth >= 4 || value === null || typeof value !== 'object') return [];
  if (Array.isArray(value)) return value.flatMap((item) => textLeaves(item, depth + 1));
  return Object.entries(value).flatMap(([key, item]) => textLeaves(item, depth + 1).map((text) => `${key}: ${text}`));
}

/**
 * The object a read returns: envelope `data{...}` or a top-level object. No body or `data: null` is
 * `undefined` (nothing there); an array or a scalar is not an object and is reported.
 */
export function objectFromBody(body: unknown): ShapeResult<JsonObject | undefined> {
  const payload = payloadOf(body);
  if (payload === undefined || payload === null) return { ok: true, value: undefined };
  if (isJsonObject(payload)) return { ok: true, value: payload };
  return { ok: false, detail: `${describeJson(payload)} where an object was expected` };
}

/**
 * The names a list returns: a bare JSON array, envelope `data.keys`, or `{keys: [...]}` alone. No body and
 * `data: null` are an empty list.
 */
export function listFromBody(body: unknown): ShapeResult<string[]> {
  const payload = payloadOf(body);
  if (payload === undefined || payload === null) return { ok: true, value: [] };
  const keys = Array.isArray(payload) ? payload : isJsonObject(payload) ? payload.keys : undefined;
  if (keys === undefined || keys === null) {
    if (isJsonObject(payload)) return { ok: false, detail: 'an object without "keys" where a list was expected' };
    return { ok: false, detail: `${describeJson(payload)} where a list was expected` };
  }
  if (!Array.isArray(keys)) return { ok: false, detail: `"keys" holding ${describeJson(keys)} instead of an array` };
  const notStrings = keys.filter((key) => typeof key !== 'string');
  if (notStrings.length > 0) return { ok: false, detail: `a list with entries that are not strings (${describeJson(notStrings[0])})` };
  return { ok: true, value: keys as string[] };
}

function describeJson(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
