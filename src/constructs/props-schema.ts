/**
 * The props schema of a construct, derived from its resource type's field declarations (kind, required, allowed
 * values, format, minimum, list rules, members). Constructs add only the props that are not fields (references
 * to other constructs, `manageMount`: prop-declaration.ts) and the rules that span props.
 *
 * It is two things: the plain check that says, without zod, when the schema certainly accepts a construct's
 * props (props-check.ts), and the zod schema, built with zod loaded on the first props the check does not vouch
 * for (lazy-zod.ts). Most props are valid: an app making only valid constructs never loads zod.
 */
import type { z } from 'zod';
import { lazy } from '../lazy-zod';
import { parseDuration } from '../resources/duration';
import { ldifProblems } from '../resources/ldif';
import { templateProblems } from '../resources/template';
import type { FieldSpec, ResourceType } from '../resources/types';
import type { LazyPropsSchema, PropDeclaration } from './prop-declaration';
import { propsCheck } from './props-check';
import { resourceOptionDeclarations } from './resource-options';
import { durationSchema, secretSchema } from './validation';

/**
 * Props schema: the hand-written `extra` props first (in their order), then one entry per field the code sets,
 * then the options every construct takes (resource-options.ts: guardrails, policy waivers).
 */
export function propsSchema(resourceType: ResourceType, extra: Readonly<Record<string, PropDeclaration>> = {}): LazyPropsSchema {
  const fields = resourceType.fields.filter((field) => !field.computed && !field.setByConstruct && !(field.prop in extra));
  const declared = { ...extra, ...resourceOptionDeclarations };
  const zod = lazy((zod) => {
    const shape: Record<string, z.core.$ZodType> = {};
    for (const [prop, declaration] of Object.entries(extra)) shape[prop] = declaration.schema(zod);
    for (const field of fields) shape[field.prop] = fieldSchema(field, zod);
    for (const [prop, declaration] of Object.entries(resourceOptionDeclarations)) shape[prop] = declaration.schema(zod);
    return zod.strictObject(shape);
  });
  return { check: propsCheck(fields, declared), zod };
}

/** The schema of one field's prop (optional unless the field is required). */
export function fieldSchema(field: FieldSpec, zod: typeof z): z.ZodType {
  const schema = valueSchema(field, zod);
  return field.required ? schema : schema.optional();
}

function valueSchema(field: FieldSpec, zod: typeof z): z.ZodType {
  if (field.sensitive) return secretSchema(zod);
  switch (field.kind) {
    case 'string':
      return stringSchema(field, zod);
    case 'template':
      return withProblems(field.emptyAllowed ? zod.string() : zod.string().min(1), (text) =>
        templateProblems(text, field.template ?? {}).map((problem) => `a template that parses: ${problem}`));
    case 'ldif':
      return withProblems(zod.string().min(1), (text) => ldifProblems(text).map((problem) => `LDIF that parses: ${problem}`));
    case 'bool':
      return zod.boolean();
    case 'int':
      return field.minimum === undefined ? zod.number().int() : zod.number().int().min(field.minimum);
    case 'duration': {
      const minimum = field.minimum;
      if (minimum === undefined) return durationSchema(zod);
      return durationSchema(zod).refine((value) => (parseDuration(value) ?? 0) >= minimum, { message: `at least ${minimum} seconds` });
    }
    case 'stringList':
      return listSchema(field, zod);
    case 'stringMap':
      return field.members ? membersSchema(field.members, zod) : zod.record(zod.string(), zod.string());
    case 'objectList':
      return zod.array(field.members ? membersSchema(field.members, zod) : zod.record(zod.string(), zod.unknown()));
  }
}

/** A string: one of the allowed values, else non-empty (unless allowed) and following the field's format rules. */
function stringSchema(field: Pick<FieldSpec, 'allowed' | 'format' | 'emptyAllowed'>, zod: typeof z): z.ZodType {
  if (field.allowed) return zod.enum(field.allowed as [string, ...string[]]);
  const base = field.emptyAllowed || field.format ? zod.string() : zod.string().min(1);
  const rules = field.format ?? [];
  if (rules.length === 0) return base;
  // The first rule that fails says what is allowed (later rules assume the earlier ones hold).
  return withProblems(base, (text) => {
    const failed = rules.find((rule) => !rule.test(text));
    return failed ? [failed.message] : [];
  });
}

function listSchema(field: FieldSpec, zod: typeof z): z.ZodType {
  let list = zod.array(stringSchema(field, zod) as z.ZodType<string>);
  if (field.nonEmpty) list = list.min(1);
  if (!field.unique) return list;
  const key = (value: string) => (field.matchesIgnoringCase ? value.toLowerCase() : value);
  return list.refine((values) => new Set(values.map(key)).size === values.length, { message: `each ${field.unique} at most once` });
}

/** The elements of an object list, or a map with known keys: an object of the members' props (camelCase). */
function membersSchema(members: readonly FieldSpec[], zod: typeof z): z.ZodObject {
  return zod.strictObject(Object.fromEntries(members.map((member) => [member.prop, fieldSchema(member, zod)])));
}

function withProblems(base: z.ZodString, problems: (text: string) => string[]): z.ZodType {
  return base.superRefine((text, context) => {
    for (const message of problems(text)) context.addIssue({ code: 'custom', message });
  });
}
