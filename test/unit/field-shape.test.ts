/**
 * Every FieldSpec of the model has the same keys in the same order (field.ts): the checks, normalisation and diff
 * read the fields of every resource type, and one hidden class keeps V8's optimized code for them valid across
 * types. A field made another way (a literal, a spread) would show here.
 */
import { field } from '../../src/resources/field';
import { allResourceTypes } from '../../src/resources/registry';
import type { FieldSpec } from '../../src/resources/types';

function everyField(fields: readonly FieldSpec[]): FieldSpec[] {
  return fields.flatMap((spec) => [spec, ...everyField(spec.members ?? [])]);
}

test('every field of every resource type, members too, has the keys of field() in its order', () => {
  const keys = Object.keys(field('name', 'string', 'A name.')).join(',');
  const fields = allResourceTypes().flatMap((resourceType) => everyField(resourceType.fields));
  expect(fields.length).toBeGreaterThan(100);
  const otherShapes = fields.filter((spec) => Object.keys(spec).join(',') !== keys).map((spec) => `${spec.api}: ${Object.keys(spec).join(',')}`);
  expect(otherShapes).toEqual([]);
});

test('a flag not given is undefined, and the flags given are kept', () => {
  const spec = field('token_ttl', 'duration', 'TTL.', { minimum: 0, serviceDefault: 0, prop: 'ttl' });
  expect(spec).toMatchObject({ api: 'token_ttl', prop: 'ttl', kind: 'duration', doc: 'TTL.', minimum: 0, serviceDefault: 0 });
  expect(spec.required).toBeUndefined();
  expect(field('a_b', 'string', 'x').prop).toBe('aB');
});
