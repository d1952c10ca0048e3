import { ServiceError } from './respond';

/**
 * Object keys that name a prototype in JavaScript. The service itself would store them as ordinary keys, but
 * here any code that copies or merges a body (`target[key] = value`, merge patches) would reach
 * `Object.prototype` through them, so they are refused once, for every endpoint, when the body is parsed.
 */
export const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Parses a request body: empty is `{}`, anything else must be a JSON object without prototype keys at any
 * depth. Errors are 400 in the service's style and never quote the body (it may hold secrets).
 */
export function parseJsonBody(raw: Buffer): Record<string, unknown> {
  const text = raw.toString('utf8');
  if (text.trim() === '') return {};
  let refusedKey: string | undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text, function guard(this: unknown, key: string, value: unknown) {
      if (PROTOTYPE_KEYS.has(key) && refusedKey === undefined) refusedKey = key;
      return value;
    });
  } catch (error) {
    throw new ServiceError(400, [`failed to parse JSON input: ${describeSyntaxError(error)}`]);
  }
  if (refusedKey !== undefined) {
    throw new ServiceError(400, [
      `invalid JSON input: the key "${refusedKey}" is not accepted (__proto__, constructor and prototype are refused anywhere in a body)`,
    ]);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ServiceError(400, ['failed to parse JSON input: the body must be a JSON object']);
  }
  return parsed as Record<string, unknown>;
}

/** Where the JSON broke, without V8's excerpt of the input: the body may hold a secret. */
function describeSyntaxError(error: unknown): string {
  const message = error instanceof Error ? error.message : '';
  if (/end of JSON input/.test(message)) return 'unexpected end of JSON input';
  const position = /at position (\d+)/.exec(message);
  return position ? `invalid JSON at position ${position[1]}` : 'invalid JSON';
}
