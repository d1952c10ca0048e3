/**
 * The last check before a path goes on the wire. Names in code become path segments; a `..` there, behind a
 * proxy that normalises paths, writes or deletes another object (`ldap/role/../config` is `ldap/config`).
 * Synth validates names first; this refuses whatever slipped through, before anything is sent.
 */

// eslint-disable-next-line no-control-regex -- refuses control characters in a path, so the class names them
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Letters, digits, `-`, `_` and `/`, with no empty segment: nothing to refuse and nothing to encode. Almost every
 * path of a run is one; the checks below run per request (10,000 per plan of 10,000 objects) only for the others.
 */
const PLAIN_PATH = /^[A-Za-z0-9_-]+(?:\/[A-Za-z0-9_-]+)*\/?$/;

/** Whether the path is plain: nothing in it to refuse (`pathProblem` is undefined) and nothing to encode. */
export function isPlainPath(path: string): boolean {
  return PLAIN_PATH.test(path);
}

/** Why the path (relative to `/v1/`, unencoded, `/`-separated) must not be sent; undefined when it is fine. */
export function pathProblem(path: string): string | undefined {
  return PLAIN_PATH.test(path) ? undefined : checkedPathProblem(path);
}

/** Every check of `pathProblem`, without its shortcut for plain paths (which must agree with it). */
export function checkedPathProblem(path: string): string | undefined {
  const relative = path.replace(/^\/+/, '');
  if (relative === '') return 'is empty';
  if (CONTROL.test(relative)) return 'contains a control character';
  if (LONE_SURROGATE.test(relative)) return 'is not valid Unicode (a lone surrogate)';
  // A trailing "/" is how a list names a folder (`LIST ldap/static-role/team/`), not an empty segment.
  const segments = relative.replace(/\/$/, '').split('/');
  for (const [index, segment] of segments.entries()) {
    if (segment === '.' || segment === '..') return `has the dot segment ${JSON.stringify(segment)} (segment ${index + 1})`;
    // A proxy that decodes twice would turn "%2e%2e" into "..".
    if (/^(%2e|\.){1,2}$/i.test(segment)) return `has the encoded dot segment ${JSON.stringify(segment)} (segment ${index + 1})`;
    if (segment === '') return `has an empty segment (segment ${index + 1}, from "//")`;
  }
  return undefined;
}

/** Each segment percent-encoded (so `?`, `#`, `%` and spaces in a name stay in its segment), `/` kept. */
export function encodePath(path: string): string {
  return PLAIN_PATH.test(path) ? path : encodeSegments(path);
}

/** Every segment percent-encoded, without `encodePath`'s shortcut for plain paths (which must agree with it). */
export function encodeSegments(path: string): string {
  return path.replace(/^\/+/, '').split('/').map((segment) => encodeURIComponent(segment)).join('/');
}
