/**
 * pathValueProblems checks a value of one segment without splitting it (it runs on every name of a stack); this
 * property holds it to the plain rule it replaced, kept here as the reference: split on "/", then every check on
 * the segments, in the same order and words.
 */
import fc from 'fast-check';
import { NAME_MAX_LENGTH, pathValueProblems } from '../../src/resources/names';
import type { FieldSpec } from '../../src/resources/types';

type PathField = Pick<FieldSpec, 'segment' | 'reservedFirstSegments' | 'maxLength'>;

// eslint-disable-next-line no-control-regex -- the reference names control characters as the rule does
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

function referenceIsDotSegment(segment: string): boolean {
  const decoded = segment.replace(/%2e/gi, '.');
  return decoded === '.' || decoded === '..';
}

function referenceProblems(field: PathField, value: unknown): string[] {
  if (typeof value !== 'string' || field.segment === undefined) return [];
  const maxLength = field.maxLength ?? NAME_MAX_LENGTH;
  if (value.length > maxLength) return [`at most ${maxLength} characters (received ${value.length})`];
  if (value === '') return ['must not be empty'];
  const problems: string[] = [];
  if (CONTROL_CHARACTER.test(value)) problems.push('no control characters (newline, tab, NUL, ...)');
  if (value.includes('\\')) problems.push('no "\\" (a proxy may read it as "/")');
  const segments = value.split('/');
  if (field.segment === 'single') {
    if (segments.length > 1) problems.push('a single path segment: no "/"');
    else if (referenceIsDotSegment(value)) problems.push('not "." or ".." (a dot segment changes the API path)');
  } else {
    if (segments.some((segment) => segment === '')) problems.push('no empty segment: no leading, trailing or double "/"');
    if (segments.some(referenceIsDotSegment)) problems.push('no "." or ".." segment (a dot segment changes the API path)');
  }
  const reserved = field.reservedFirstSegments ?? [];
  if (reserved.includes(segments[0])) {
    problems.push(`must not be or start with ${reserved.map((name) => `"${name}"`).join(', ')} (reserved by the service)`);
  }
  return problems;
}

const pieces = ['a', 'kv', 'team', '.', '..', '%2e', '%2E', '%2e%2e', '/', '//', '\\', '\u0000', '\u0085', 'sys', 'auth', 'token', '%', 'x.y'];
const values = fc.array(fc.constantFrom(...pieces), { maxLength: 6 }).map((parts) => parts.join(''));
const fields = fc.record({
  segment: fc.constantFrom<PathField['segment']>('single', 'hierarchical', undefined),
  reservedFirstSegments: fc.constantFrom<PathField['reservedFirstSegments']>(undefined, ['sys', 'auth'], ['token']),
  maxLength: fc.constantFrom<PathField['maxLength']>(undefined, 4, 12),
});

test('pathValueProblems says what the split-every-value rule says, in the same order, for any value and field', () => {
  fc.assert(
    fc.property(fields, fc.oneof(values, fc.string({ maxLength: 12 }), fc.constant(42)), (field, value) => {
      expect([...pathValueProblems(field, value)]).toEqual(referenceProblems(field, value));
    }),
    { numRuns: 5000 },
  );
});
