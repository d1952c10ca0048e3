/**
 * What a value that becomes part of an API path may hold (role, set, user, destination and app names, mount
 * paths). The client percent-encodes each segment, but `.`, `..` and empty segments survive encoding, and a
 * path-normalising proxy turns `ldap/static-role/../config` into `ldap/config`: such values are refused at
 * synth, with the limits below.
 */
import type { FieldSpec } from './types';

/** Longest path value accepted (characters); a name of the service is far shorter in practice. */
export const NAME_MAX_LENGTH = 256;

/** First segments a secrets engine cannot be mounted under: the server's own paths. */
export const RESERVED_SECRETS_MOUNT_SEGMENTS = ['sys', 'auth', 'cubbyhole', 'identity', 'audit'] as const;
/** First segments an auth method cannot be mounted under: `token` is the built-in token auth method. */
export const RESERVED_AUTH_MOUNT_SEGMENTS = ['token'] as const;

/** C0 and C1 control characters and DEL. */
// eslint-disable-next-line no-control-regex -- names may not hold control characters, so the class names them
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

/** `.` and `..`, also percent-encoded (a proxy that decodes before normalising sees them the same). */
function isDotSegment(segment: string): boolean {
  // At most two dots of three characters each: a longer segment is a name, without a replace to find that out.
  if (segment.length > 6 || (!segment.includes('.') && !segment.includes('%'))) return false;
  const decoded = segment.replace(/%2e/gi, '.');
  return decoded === '.' || decoded === '..';
}

/** What `pathValueProblems` returns for a good value: one shared empty list (it checks every name of a stack). */
const NO_PROBLEMS: readonly string[] = Object.freeze([]);

/**
 * The problems of a value that becomes part of an API path, each a sentence saying what is allowed; empty
 * when the value is fine. Values of another type than string are left to the type check. A value of one
 * segment (most names, most mount paths) is checked without splitting it or allocating anything.
 */
export function pathValueProblems(field: Pick<FieldSpec, 'segment' | 'reservedFirstSegments' | 'maxLength'>, value: unknown): readonly string[] {
  if (typeof value !== 'string' || field.segment === undefined) return NO_PROBLEMS;
  const maxLength = field.maxLength ?? NAME_MAX_LENGTH;
  // Length first: nothing else scans a 200,000-character value.
  if (value.length > maxLength) return [`at most ${maxLength} characters (received ${value.length})`];
  if (value === '') return ['must not be empty'];
  let problems: string[] | undefined;
  if (CONTROL_CHARACTER.test(value)) (problems ??= []).push('no control characters (newline, tab, NUL, ...)');
  if (value.includes('\\')) (problems ??= []).push('no "\\" (a proxy may read it as "/")');
  const slash = value.indexOf('/');
  if (field.segment === 'single') {
    if (slash !== -1) (problems ??= []).push('a single path segment: no "/"');
    else if (isDotSegment(value)) (problems ??= []).push('not "." or ".." (a dot segment changes the API path)');
  } else {
    const segments = slash === -1 ? undefined : value.split('/');
    if (segments?.some((segment) => segment === '')) (problems ??= []).push('no empty segment: no leading, trailing or double "/"');
    if (segments ? segments.some(isDotSegment) : isDotSegment(value)) (problems ??= []).push('no "." or ".." segment (a dot segment changes the API path)');
  }
  const reserved = field.reservedFirstSegments;
  if (reserved !== undefined && reserved.includes(slash === -1 ? value : value.slice(0, slash))) {
    (problems ??= []).push(`must not be or start with ${reserved.map((name) => `"${name}"`).join(', ')} (reserved by the service)`);
  }
  return problems ?? NO_PROBLEMS;
}

/** Whether every segment of an API path is a real name: not empty, not a dot segment, no control character. */
export function isSafeApiPath(path: string): boolean {
  return !CONTROL_CHARACTER.test(path) && !path.includes('\\') && path.split('/').every((segment) => segment !== '' && !isDotSegment(segment));
}
