/**
 * The one check of a field's value against the facts of its `FieldSpec`: its kind (a string, a list of strings,
 * ...), allowed values and formats, path values (names.ts), lengths, templates, durations the service can hold,
 * minimums and safe integers. Constructs run it on every field of every type at synth (after their props
 * schema, which reports a wrong type first, in the construct's prop words); the engine runs it on every field of
 * a desired state it loads (a hand-edited or generated `cdk.tf.json`, a saved plan), before any request.
 */
import { durationProblem, parseDuration } from './duration';
import { ldifProblems } from './ldif';
import { pathValueProblems } from './names';
import { templateProblems } from './template';
import type { FieldSpec } from './types';

/**
 * The longest text of a field that sets no `maxLength` of its own: far above any template, LDIF or list
 * element in use, far below what would make a plan or a request body a burden.
 */
export const MAX_TEXT_LENGTH = 65_536;

/** The problems of one field's value, each a sentence saying what is allowed; empty when it is fine. */
export function fieldValueProblems(field: FieldSpec, value: unknown): readonly string[] {
  if (value === undefined || value === null) return [];
  switch (field.kind) {
    case 'string':
      if (typeof value !== 'string') return [expected('a string', value)];
      if (field.segment !== undefined) return pathValueProblems(field, value);
      return stringProblems(field, value);
    case 'template':
      if (typeof value !== 'string') return [expected('a string', value)];
      return lengthProblems(field, value) ?? (field.template ? templateProblems(value, field.template).map(parses) : []);
    case 'ldif':
      if (typeof value !== 'string') return [expected('a string', value)];
      return lengthProblems(field, value) ?? ldifProblems(value).map((problem) => `LDIF that parses: ${problem}`);
    case 'bool':
      return typeof value === 'boolean' ? [] : [expected('true or false', value)];
    case 'duration': {
      const problem = durationProblem(value);
      if (problem) return [problem];
      return field.minimum !== undefined && (parseDuration(value) ?? 0) < field.minimum ? [`at least ${field.minimum} seconds`] : [];
    }
    case 'int':
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) return [`a whole number from ${Number.MIN_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER}`];
      return field.minimum !== undefined && value < field.minimum ? [`must be >= ${field.minimum}`] : [];
    case 'stringList':
      return listProblems(field, value);
    case 'stringMap':
      return mapProblems(field, value);
    case 'objectList':
      return objectListProblems(field, value);
  }
}

function stringProblems(field: FieldSpec, value: string): string[] {
  if (field.allowed) return field.allowed.includes(value) ? [] : [`allowed values: ${field.allowed.map((allowed) => JSON.stringify(allowed)).join(', ')}`];
  const tooLong = lengthProblems(field, value);
  if (tooLong) return tooLong;
  if (value === '' && !field.emptyAllowed && !field.format) return ['must not be empty'];
  // The first rule that fails says what is allowed (later rules assume the earlier ones hold).
  const failed = field.format?.find((rule) => !rule.test(value));
  return failed ? [failed.message] : [];
}

function listProblems(field: FieldSpec, value: unknown): string[] {
  if (!Array.isArray(value)) return [expected('an array of strings', value)];
  if (field.nonEmpty && value.length === 0) return ['needs at least 1 element'];
  for (const [index, element] of value.entries()) {
    const problems = typeof element === 'string' ? stringProblems(field, element) : [expected('a string', element)];
    if (problems.length > 0) return problems.map((problem) => `[${index}]: ${problem}`);
  }
  if (field.unique) {
    const key = (text: string) => (field.matchesIgnoringCase ? text.toLowerCase() : text);
    if (new Set((value as string[]).map(key)).size !== value.length) return [`each ${field.unique} at most once`];
  }
  return [];
}

function mapProblems(field: FieldSpec, value: unknown): string[] {
  if (!isPlainObject(value)) return [expected('an object of strings', value)];
  const problems: string[] = [];
  for (const [key, inner] of Object.entries(value)) {
    const member = field.members?.find((candidate) => candidate.api === key || candidate.prop === key);
    if (field.members && !member) problems.push(`${key}: not a known key; keys: ${field.members.map((candidate) => candidate.api).join(', ')}`);
    else if (member) problems.push(...fieldValueProblems(member, inner).map((problem) => `${key}: ${problem}`));
    else if (typeof inner !== 'string') problems.push(`${key}: ${expected('a string', inner)}`);
    else problems.push(...(lengthProblems(field, inner) ?? []).map((problem) => `${key}: ${problem}`));
  }
  return problems;
}

function objectListProblems(field: FieldSpec, value: unknown): string[] {
  if (!Array.isArray(value)) return [expected('an array of objects', value)];
  const problems: string[] = [];
  for (const [index, element] of value.entries()) {
    if (!isPlainObject(element)) {
      problems.push(`[${index}]: ${expected('an object', element)}`);
      continue;
    }
    if (!field.members) continue;
    for (const key of Object.keys(element)) {
      if (!field.members.some((member) => member.api === key)) problems.push(`[${index}].${key}: not a known key; keys: ${field.members.map((member) => member.api).join(', ')}`);
    }
    for (const member of field.members) {
      const inner = element[member.api];
      if (inner === undefined && member.required) problems.push(`[${index}].${member.api}: required`);
      problems.push(...fieldValueProblems(member, inner).map((problem) => `[${index}].${member.api}: ${problem}`));
    }
  }
  return problems;
}

/** Too long for the field, or undefined; checked first, so nothing else scans a 10 MB value. */
function lengthProblems(field: FieldSpec, value: string): string[] | undefined {
  const maxLength = field.maxLength ?? MAX_TEXT_LENGTH;
  return value.length > maxLength ? [`at most ${maxLength} characters (received ${value.length})`] : undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function expected(what: string, value: unknown): string {
  const received = Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;
  return `expected ${what}, received ${received}`;
}

function parses(problem: string): string {
  return `a template that parses: ${problem}`;
}
