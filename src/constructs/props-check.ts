/**
 * A plain check of a construct's props that says, without zod, when its props schema (props-schema.ts) accepts
 * them: every construct's props are checked when it is created, and zod's parse was the largest part of that at
 * 10,000 constructs (a synth runs each schema a few thousand times, mostly before V8 has optimised zod's code);
 * and with the check, zod is not even loaded while every construct's props pass it.
 *
 * The check is conservative: `true` only when the schema certainly accepts the props, `false` whenever it might
 * not or the check does not know a part of the schema. Props it does not accept are parsed by zod as before, so
 * every message stays zod's (validation.ts). It follows the same field declarations as the schema, rule for rule;
 * the props the constructs declare by hand (references to other constructs, the resource options) say what they
 * accept themselves (prop-declaration.ts). test/unit/props-check.test.ts holds it to zod's answers.
 */
import { isDuration, parseDuration } from '../resources/duration';
import { ldifProblems } from '../resources/ldif';
import { templateProblems } from '../resources/template';
import type { FieldSpec } from '../resources/types';
import { SecretValue } from '../secret-value';
import type { Accepts, LazyPropsSchema, PropDeclaration } from './prop-declaration';

/**
 * The plain check of a props schema: the props of `fields` made from their declarations, then the props
 * declared by hand (`declared`, which take precedence, as in the schema).
 */
export function propsCheck(fields: readonly FieldSpec[], declared: Readonly<Record<string, PropDeclaration>>): (props: unknown) => boolean {
  const props = new Map<string, Accepts>();
  for (const field of fields) props.set(field.prop, fieldAccepts(field));
  for (const [prop, declaration] of Object.entries(declared)) props.set(prop, declaration.accepts);
  return objectAccepts(props);
}

/** Whether `schema` certainly accepts `props` (false: parse with zod to know). */
export function certainlyAccepted(schema: object, props: unknown): boolean {
  return (schema as LazyPropsSchema).check(props);
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

/** What zod's object schemas take: an object that is not an array. */
function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
