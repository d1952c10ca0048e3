/**
 * Prop validation at synth: zod schemas check each prop's shape, rule functions check what spans props, and
 * every problem becomes one line `<construct path>: <prop>: received <value>; <what is allowed>`. Secrets are
 * shown as `(sensitive)`, never their value.
 */
import type { z } from 'zod';
import { DURATION_ALLOWED, isDuration, parseDuration } from '../resources/duration';
import { MOUNT_PATH } from '../resources/formats';
import { SecretValue } from '../secret-value';
import type { LazyPropsSchema, PropDeclaration } from './prop-declaration';

/** One problem of one construct's props. */
export interface PropIssue {
  /** Prop path, e.g. `cloudRoles[0].roleName`. */
  readonly prop: string;
  /** The value received (looked up from the props when not given). */
  readonly value?: unknown;
  /** What is allowed, or what is wrong. */
  readonly allowed: string;
  /** Print `(sensitive)` instead of the value. */
  readonly sensitive?: boolean;
}

export function formatIssue(path: string, issue: PropIssue): string {
  const shown = issue.sensitive || SecretValue.isSecretValue(issue.value) ? '(sensitive)' : showValue(issue.value);
  return `${path}: ${issue.prop}: received ${shown}; ${issue.allowed}`;
}

export function showValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (SecretValue.isSecretValue(value)) return '(sensitive)';
  if (typeof value === 'function') return 'a function';
  let text: string;
  try {
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a symbol (which JSON skips) is shown by its description; objects never get here
    text = JSON.stringify(value, (_key, inner: unknown) => (SecretValue.isSecretValue(inner) ? '(sensitive)' : inner)) ?? String(value);
  } catch {
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- last resort for what JSON cannot encode (a bigint, a cycle): some text beats a crash
    text = String(value);
  }
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/** The value at a prop path of the props object (`a[0].b` or the zod path array). */
export function valueAt(props: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = props;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<PropertyKey, unknown>)[key as string];
  }
  return current;
}

export function propLabel(path: readonly PropertyKey[]): string {
  let label = '';
  for (const key of path) {
    if (typeof key === 'number') label += `[${key}]`;
    else label += label === '' ? String(key) : `.${String(key)}`;
  }
  return label || '(props)';
}

/**
 * A construct's props schema (props-schema.ts: the plain check and the zod schema built on demand), typed as a
 * plain object where the public declarations show it (a construct's definition), so that they do not name zod
 * (whose own declarations fail a user's `esModuleInterop: false`).
 */
export type PropsSchema = object;

/** Runs a schema over the props and turns every zod issue into a PropIssue. */
export function schemaIssues(schema: PropsSchema, props: unknown): PropIssue[] {
  const { check, zod } = schema as LazyPropsSchema;
  if (check(props ?? {})) return [];
  // Only props the plain check does not vouch for are parsed: zod is loaded and the schema built here.
  const zodSchema = zod();
  const result = zodSchema.safeParse(props ?? {}, { error: allowedText });
  if (result.success) return [];
  const issues: PropIssue[] = [];
  for (const issue of result.error.issues) {
    if (issue.code === 'unrecognized_keys') {
      const known = Object.keys(zodSchema.shape).join(', ');
      for (const key of issue.keys) {
        const path = [...issue.path, key];
        issues.push({ prop: propLabel(path), value: valueAt(props, path), allowed: `not a known prop; known props: ${known}`, sensitive: true });
      }
      continue;
    }
    issues.push({ prop: propLabel(issue.path), value: valueAt(props, issue.path), allowed: issue.message });
  }
  return issues;
}

/** Phrases zod's built-in issues as "what is allowed". */
function allowedText(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? `required: expected ${article(issue.expected)}` : `expected ${article(issue.expected)}`;
    case 'invalid_value':
      return `allowed values: ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
    case 'too_small':
      if (issue.origin === 'string') return Number(issue.minimum) === 1 ? 'must not be empty' : `needs at least ${issue.minimum} characters`;
      if (issue.origin === 'array' || issue.origin === 'set') return `needs at least ${issue.minimum} element${Number(issue.minimum) === 1 ? '' : 's'}`;
      return `must be ${issue.inclusive === false ? '>' : '>='} ${issue.minimum}`;
    case 'too_big':
      if (issue.origin === 'string') return `at most ${issue.maximum} characters`;
      if (issue.origin === 'array') return `at most ${issue.maximum} elements`;
      return `must be ${issue.inclusive === false ? '<' : '<='} ${issue.maximum}`;
    case 'invalid_union':
      return 'does not match any allowed form';
    default:
      return undefined;
  }
}

function article(expected: string): string {
  if (expected === 'array') return 'an array';
  if (expected === 'object') return 'an object';
  if (expected === 'int') return 'an integer';
  return `a ${expected}`;
}

// ---- schemas shared by the constructs (built with the `z` given: zod is loaded on first use) ----

/** @internal (zod's types stay out of the public declarations) */
export function secretSchema(zod: typeof z): z.ZodType {
  return zod.custom<SecretValue>((value) => SecretValue.isSecretValue(value), {
    message: 'a SecretValue (SecretValue.fromEnv("NAME") or SecretValue.fromFile("path")), never a plain string',
  });
}

/** @internal (zod's types stay out of the public declarations) */
export function durationSchema(zod: typeof z): z.ZodType<string | number> {
  return zod.custom<string | number>((value) => isDuration(value), { message: `expected ${DURATION_ALLOWED}` });
}

/**
 * A mount path (the resource model's MOUNT_PATH form), for the `path` prop of engine backends.
 * @internal (zod's types stay out of the public declarations)
 */
export const mountPathProp: PropDeclaration = {
  accepts: (value) => typeof value === 'string' && MOUNT_PATH.every((rule) => rule.test(value)),
  schema: (zod) => zod.string().refine((value) => MOUNT_PATH.every((rule) => rule.test(value)), { message: MOUNT_PATH[0].message }),
};

// ---- rules that span props ----

/** `ttl <= maxTtl`-style rule; silent when either value is absent or not a duration (reported elsewhere). */
export function durationNotAbove(props: Record<string, unknown>, lower: string, upper: string): PropIssue[] {
  const low = parseDuration(props[lower]);
  const high = parseDuration(props[upper]);
  if (low === undefined || high === undefined || high === 0) return [];
  return low > high ? [{ prop: lower, value: props[lower], allowed: `must not exceed ${upper} (${showValue(props[upper])}, ${high}s)` }] : [];
}

export function exactlyOne(props: Record<string, unknown>, names: readonly string[], context = ''): PropIssue[] {
  const set = names.filter((name) => props[name] !== undefined);
  if (set.length === 1) return [];
  const prop = set.length === 0 ? names.join(' | ') : set.join(', ');
  const value = set.length === 0 ? undefined : Object.fromEntries(set.map((name) => [name, props[name]]));
  return [{ prop, value, allowed: `exactly one of ${names.join(', ')} must be set${context}` }];
}

export function notBoth(props: Record<string, unknown>, first: string, second: string, why = ''): PropIssue[] {
  if (props[first] === undefined || props[second] === undefined) return [];
  return [{ prop: `${first}, ${second}`, value: { [first]: props[first], [second]: props[second] }, allowed: `${first} and ${second} are mutually exclusive${why}` }];
}
