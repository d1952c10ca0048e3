/**
 * Every ResourceType object has the same keys in the same order (define.ts builds them all, sync destinations
 * too): the engine reads a type for each resource, and one hidden class keeps V8's optimized code for that valid
 * when a destination comes after a user.
 */
import { withExtraFields } from '../../src/resources/define';
import { field } from '../../src/resources/field';
import { allResourceTypes, getResourceType } from '../../src/resources/registry';

test('every resource type has the keys of the first one, in its order', () => {
  const [first, ...rest] = allResourceTypes();
  const keys = Object.keys(first).join(',');
  const otherShapes = rest.filter((resourceType) => Object.keys(resourceType).join(',') !== keys).map((resourceType) => `${resourceType.type}: ${Object.keys(resourceType).join(',')}`);
  expect(otherShapes).toEqual([]);
});

test('a destination type says its destination type; the others have none', () => {
  expect(getResourceType('sync_destination_repohost').destinationType).toBe('repohost');
  expect(getResourceType('userpass_user').destinationType).toBeUndefined();
});

test('a destination type can have fields added like any other (it is the type defineResourceType made)', () => {
  const extended = withExtraFields(getResourceType('sync_destination_repohost'), [field('extra_setting', 'string', 'An extra setting.')]);
  expect(extended.fields.map((spec) => spec.api)).toContain('extra_setting');
  expect(extended.destinationType).toBe('repohost');
});
