import { deepFreeze } from '../../src/deep-freeze';
import { readCallOf } from '../../src/engine/refresh/read-call';
import { getResourceType } from '../../src/resources/registry';

const userpass = getResourceType('userpass_user');
const association = getResourceType('sync_association');

test("a frozen identity's read is made once and is its type's read", () => {
  const spec = deepFreeze({ mount: 'users', username: 'alice', token_policies: ['default'] });
  const first = readCallOf(userpass, spec);
  expect(first).toEqual(userpass.api(spec).read);
  // The plan's second ask (the refresh after the read-ahead) gets the same call, not a new one.
  expect(readCallOf(userpass, spec)).toBe(first);
});

test('an identity that is not frozen is asked of its type every time (it may change between asks)', () => {
  const spec: Record<string, unknown> = { mount: 'users', username: 'alice' };
  const first = readCallOf(userpass, spec);
  expect(readCallOf(userpass, spec)).not.toBe(first);
  spec.username = 'bob';
  expect(readCallOf(userpass, spec)).toEqual(userpass.api({ mount: 'users', username: 'bob' }).read);
});

test('the same frozen spec asked as another type gets that type\'s read', () => {
  const spec = deepFreeze({ mount: 'kv', secret_name: 'app', destination_name: 'dest', destination_type: 'cloud1-sm', username: 'alice' });
  const asUser = readCallOf(userpass, spec);
  const asAssociation = readCallOf(association, spec);
  expect(asAssociation).toEqual(association.api(spec).read);
  expect(asAssociation).not.toEqual(asUser);
});
