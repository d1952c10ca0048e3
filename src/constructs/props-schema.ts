/**
 * The zod schema of a construct's props, derived from its resource type's field declarations (kind, required,
 * allowed values, format, minimum, list rules, members). Constructs add only the props that are not fields
 * (references to other constructs, `manageMount`) and the rules that span props.
 */
import { z } from 'zod';
import { parseDuration } from '../resources/duration';
import { ldifProblems } from '../resources/ldif';
import { templateProblems } from '../resources/template';
import type { FieldSpec, ResourceType } from '../resources/types';
import { registerPropsCheck } from './props-check';
import { resourceOptionsShape } from './resource-options';
import { bool, durationSchema, secretSchema } from './validation';

/**
 * Props schema: the hand-written `extra` props first (in their order), then one entry per field the code sets,
 * then the options every construct takes (resource-options.ts: guardrails, policy waivers).
 */
export function propsSchema(resourceType: ResourceType, extra: z.ZodRawShape = {}): z.ZodObject {
  const shape: Record<string, z.core.$ZodType> = { ...extra };
  const fields: FieldSpec[] = [];
  for (const field of resourceType.fields) {
    if (field.computed || field.setByConstruct || field.prop in extra) continue;
    shape[field.prop] = fieldSchema(field);
    fields.push(field);
  }
  const schema = z.strictObject({ ...shape, ...resourceOptionsShape });
  // Most props are valid: a plain check says so without zod (props-check.ts).
  registerPropsCheck(schema, fields, { ...extra, ...resourceOptionsShape });
  return schema;
}

/** The schema of one field's prop (optional unless the field is required). */
export function fieldSchema(field: FieldSpec): z.ZodType {
  const schema = valueSchema(field);
  return field.required ? schema : schema.optional();
}

function valueSchema(field: FieldSpec): z.ZodType {
  if (field.sensitive) return secretSchema;
  switch (field.kind) {
    case 'string':
      return stringSchema(field);
    case 'template':
      return withProblems(field.emptyAllowed ? z.string() : z.string().min(1), (text) =>
        templateProblems(text, field.template ?? {}).map((problem) => `a template that parses: ${problem}`));
    case 'ldif':
      return withProblems(z.string().min(1), (text) => ldifProblems(text).map((problem) => `LDIF that parses: ${problem}`));
    case 'bool':
      return bool;
    case 'int':
      return field.minimum === undefined ? z.number().int() : z.number().int().min(field.minimum);
    case 'duration': {
      const minimum = field.minimum;
      if (minimum === undefined) return durationSchema;
      return durationSchema.refine((value) => (parseDuration(value) ?? 0) >= minimum, { message: `at least ${minimum} seconds` });
    }
    case 'stringList':
      return listSchema(field);
    case 'stringMap':
      return field.members ? membersSchema(field.members) : z.record(z.string(), z.string());
    case 'objectList':
      return z.array(field.members ? membersSchema(field.members) : z.record(z.string(), z.unknown()));
  }
}

/** A string: one of the allowed values, else non-empty (unless allowed) and following the field's format rules. */
function stringSchema(field: Pick<FieldSpec, 'allowed' | 'format' | 'emptyAllowed'>): z.ZodType {
  if (field.allowed) return z.enum(field.allowed as [string, ...string[]]);
  const base = field.emptyAllowed || field.format ? z.string() : z.string().min(1);
  const rules = field.format ?? [];
  if (rules.length === 0) return base;
  // The first rule that fails says what is allowed (later rules assume the earlier ones hold).
  return withProblems(base, (text) => {
    const failed = rules.find((rule) => !rule.test(text));
    return failed ? [failed.message] : [];
  });
}

function listSchema(field: FieldSpec): z.ZodType {
  let list = z.array(stringSchema(field) as z.ZodType<string>);
  if (field.nonEmpty) list = list.min(1);
  if (!field.unique) return list;
  const key = (value: string) => (field.matchesIgnoringCase ? value.toLowerCase() : value);
  return list.refine((values) => new Set(values.map(key)).size === values.length, { message: `each ${field.unique} at most once` });
}

/** The elements of an object list, or a map with known keys: an object of the members' props (camelCase). */
function membersSchema(members: readonly FieldSpec[]): z.ZodObject {
  return z.strictObject(Object.fromEntries(members.map((member) => [member.prop, fieldSchema(member)])));
}

function withProblems(base: z.ZodString, problems: (text: string) => string[]): z.ZodType {
  return base.superRefine((text, context) => {
    for (const message of problems(text)) context.addIssue({ code: 'custom', message });
  });
}
