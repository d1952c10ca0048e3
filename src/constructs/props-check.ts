/**
 * A plain check of a construct's props that says, without zod, when its props schema (props-schema.ts) accepts
 * them: every construct's props are checked when it is created, and zod's parse was the largest part of that at
 * 10,000 constructs (a synth runs each schema a few thousand times, mostly before V8 has optimised zod's code).
 *
 * The check is conservative: `true` only when the schema certainly accepts the props, `false` whenever it might
 * not or the check does not know a part of the schema. Props it does not accept are parsed by zod as before, so
 * every message stays zod's (validation.ts). It follows the same field declarations as the schema, rule for rule;
 * the props the constructs declare by hand (references to other constructs, the resource options) are read from
 * their zod definitions, for the few kinds they use (a custom test, optional, boolean, unknown, a plain string or
 * list of strings); any other kind is left to zod when the prop is set. test/unit/props-check.test.ts holds it
 * to zod's answers.
 */
import type { z } from 'zod';
import { isDuration, parseDuration } from '../resources/duration';
import { ldifProblems } from '../resources/ldif';
import { templateProblems } from '../resources/template';
import type { FieldSpec } from '../resources/types';
import { SecretValue } from '../secret-value';

type Accepts = (value: unknown) => boolean;

const checks = new WeakMap<object, (props: unknown) => boolean>();

/**
 * Records the plain check of a props schema made by `propsSchema`: the props of `fields` made from their
 * declarations, then the props declared with zod (`zodProps`, which take precedence, as in the schema).
 */
export function registerPropsCheck(schema: object, fields: readonly FieldSpec[], zodProps: Readonly<Record<string, z.core.$ZodType>>): void {
  const props = new Map<string, Accepts>();
  for (const field of fields) props.set(field.prop, fieldAccepts(field));
  for (const [prop, schemaOfProp] of Object.entries(zodProps)) props.set(prop, zodAccepts(schemaOfProp));
  checks.set(schema, objectAccepts(props));
}

/** Whether `schema` certainly accepts `props` (false: parse with zod to know). */
export function certainlyAccepted(schema: object, props: unknown): boolean {
  return checks.get(schema)?.(props) === true;
}

/** The check of one field's prop: `fieldSchema` in props-schema.ts, rule for rule. */
export function fieldAccepts(field: FieldSpec): Accepts {
  const value = valueAccepts(field);
  return field.required ? value : (item) => item === undefined || value(item);
}

function valueAccepts(field: FieldSpec): Accepts {
  if (field.sensitive) return (value) => SecretValue.isSecretValue(value);
  switch (field.kind) {
    case 'string':
      return stringAccepts(field);
    case 'template': {
      const syntax = field.template ?? {};
      return lastAcceptedText((value) => (field.emptyAllowed || value.length >= 1) && templateProblems(value, syntax).length === 0);
    }
    case 'ldif':
      return lastAcceptedText((value) => value.length >= 1 && ldifProblems(value).length === 0);
    case 'bool':
      return (value) => typeof value === 'boolean';
    case 'int': {
      const minimum = field.minimum;
      return (value) => Number.isSafeInteger(value) && (minimum === undefined || (value as number) >= minimum);
    }
    case 'duration': {
      const minimum = field.minimum;
      if (minimum === undefined) return isDuration;
      return (value) => isDuration(value) && (parseDuration(value) ?? 0) >= minimum;
    }
    case 'stringList':
      return listAccepts(field);
    case 'stringMap':
      return field.members ? membersAccepts(field.members) : recordAccepts((value) => typeof value === 'string');
    case 'objectList': {
      const element = field.members ? membersAccepts(field.members) : recordAccepts(() => true);
      return (value) => everyElement(value, element);
    }
  }
}

/**
 * A check of texts that parses them (templates, LDIF), remembering the last text it accepted: an app's constructs
 * often repeat one (the LDIF of every dynamic role), and the answer is a function of the text alone.
 */
function lastAcceptedText(accepts: (value: string) => boolean): Accepts {
  let accepted: string | undefined;
  return (value) => {
    if (typeof value !== 'string') return false;
    if (value === accepted) return true;
    if (!accepts(value)) return false;
    accepted = value;
    return true;
  };
}

function stringAccepts(field: Pick<FieldSpec, 'allowed' | 'format' | 'emptyAllowed'>): Accepts {
  const { allowed } = field;
  if (allowed) return (value) => typeof value === 'string' && allowed.includes(value);
  const rules = field.format ?? [];
  const emptyAllowed = field.emptyAllowed || rules.length > 0;
  return (value) => typeof value === 'string' && (emptyAllowed || value.length >= 1) && rules.every((rule) => rule.test(value));
}

function listAccepts(field: FieldSpec): Accepts {
  const element = stringAccepts(field);
  const key = (value: string) => (field.matchesIgnoringCase ? value.toLowerCase() : value);
  return (value) => {
    if (!everyElement(value, element)) return false;
    const list = value as string[];
    if (field.nonEmpty && list.length === 0) return false;
    return !field.unique || new Set(list.map(key)).size === list.length;
  };
}

/** An array whose every index holds an accepted element (a hole is `undefined`, as zod reads it). */
function everyElement(value: unknown, accepts: Accepts): boolean {
  if (!Array.isArray(value)) return false;
  for (let index = 0; index < value.length; index++) {
    if (!accepts(value[index])) return false;
  }
  return true;
}

/** A strict object of the members' props. */
function membersAccepts(members: readonly FieldSpec[]): Accepts {
  return objectAccepts(new Map(members.map((member) => [member.prop, fieldAccepts(member)])));
}

/** An object with no key beside `props`, each prop's value accepted by its check (absent ones included). */
function objectAccepts(props: ReadonlyMap<string, Accepts>): Accepts {
  return (value) => {
    if (!isObject(value)) return false;
    for (const key of Object.keys(value)) {
      if (!props.has(key)) return false;
    }
    for (const [prop, accepts] of props) {
      if (!accepts((value as Record<string, unknown>)[prop])) return false;
    }
    return true;
  };
}

/**
 * A record of string keys: an object whose prototype is Object's (or none) and without a `constructor` of its
 * own (zod's plain-object test reads it), every own key a string whose value is accepted.
 */
function recordAccepts(accepts: Accepts): Accepts {
  return (value) => {
    if (!isObject(value)) return false;
    const prototype = Object.getPrototypeOf(value) as unknown;
    if ((prototype !== Object.prototype && prototype !== null) || Object.hasOwn(value, 'constructor')) return false;
    for (const key of Reflect.ownKeys(value)) {
      if (typeof key !== 'string' || !accepts((value as Record<string, unknown>)[key])) return false;
    }
    return true;
  };
}

/**
 * The check of a prop the construct declares with zod itself, from the schema's definition: a custom test (its
 * function), optional, boolean, unknown, a string or an array without further checks. Anything else accepts
 * nothing certainly (zod decides).
 */
export function zodAccepts(schema: z.core.$ZodType): Accepts {
  const def = schema._zod.def as z.core.$ZodTypeDef & { innerType?: z.core.$ZodType; element?: z.core.$ZodType; fn?: (value: unknown) => unknown; checks?: readonly unknown[] };
  if (def.checks !== undefined && def.checks.length > 0) return () => false;
  switch (def.type) {
    case 'optional': {
      const inner = zodAccepts(def.innerType!);
      return (value) => value === undefined || inner(value);
    }
    case 'custom': {
      const test = def.fn!;
      return (value) => Boolean(test(value));
    }
    case 'unknown':
      return () => true;
    case 'boolean':
      return (value) => typeof value === 'boolean';
    case 'string':
      return (value) => typeof value === 'string';
    case 'array': {
      const element = zodAccepts(def.element!);
      return (value) => everyElement(value, element);
    }
    default:
      return () => false;
  }
}

/** What zod's object schemas take: an object that is not an array. */
function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
