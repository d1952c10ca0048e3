/**
 * The one check of a field's value against the facts of its `FieldSpec`: path values (names.ts), lengths,
 * templates, durations the service can hold and safe integers. Constructs run it on every field of every
 * type; it reports what the facts forbid, and leaves a value of the wrong type to the type check.
 */
import { durationProblem } from './duration';
import { ldifProblems } from './ldif';
import { pathValueProblems } from './names';
import { templateProblems } from './template';
import type { FieldSpec } from './types';

/** The problems of one field's value, each a sentence saying what is allowed; empty when it is fine. */
export function fieldValueProblems(field: FieldSpec, value: unknown): string[] {
  if (value === undefined || value === null) return [];
  switch (field.kind) {
    case 'string':
      if (typeof value !== 'string') return [];
      if (field.segment !== undefined) return pathValueProblems(field, value);
      return lengthProblems(field, value);
    case 'template':
      if (typeof value !== 'string') return [];
      return [...lengthProblems(field, value), ...(field.template ? templateProblems(value, field.template).map(parses) : [])];
    case 'ldif':
      if (typeof value !== 'string') return [];
      return [...lengthProblems(field, value), ...ldifProblems(value).map((problem) => `LDIF that parses: ${problem}`)];
    case 'duration': {
      if (typeof value !== 'string' && typeof value !== 'number') return [];
      const problem = durationProblem(value);
      return problem ? [problem] : [];
    }
    case 'int':
      if (typeof value !== 'number') return [];
      return Number.isSafeInteger(value) ? [] : [`a whole number from ${Number.MIN_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER}`];
    default:
      return [];
  }
}

function lengthProblems(field: FieldSpec, value: string): string[] {
  return field.maxLength !== undefined && value.length > field.maxLength ? [`at most ${field.maxLength} characters (received ${value.length})`] : [];
}

function parses(problem: string): string {
  return `a template that parses: ${problem}`;
}
