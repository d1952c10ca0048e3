/**
 * The last check before a path goes on the wire. Names in code become path segments; a `..` there, behind a
 * proxy that normalises paths, writes or deletes another object (`ldap/role/../config` is `ldap/config`).
 * Synth validates names first; this refuses whatever slipped through, before anything is sent.
 */

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why the path (relative to `/v1/`, unencoded, `/`-separated) must not be sent; undefined when it is fine. */
export function pathProblem(path: string): string | undefined {
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
  return path.replace(/^\/+/, '').split('/').map((segment) => encodeURIComponent(segment)).join('/');
}
