import { readOrder } from '../../src/engine/refresh/read-order';

const resource = (address: string, type: string) => ({ address, type });

test('the first object of each type goes first, in address order, then every other object by address', () => {
  const resources = [
    resource('s/user-b', 'userpass_user'),
    resource('s/role-b', 'ldap_static_role'),
    resource('s/mount', 'auth_mount'),
    resource('s/user-a', 'userpass_user'),
    resource('s/role-a', 'ldap_static_role'),
    resource('s/user-c', 'userpass_user'),
  ];
  expect(readOrder(resources, (r) => r.type).map((r) => r.address)).toEqual(['s/mount', 's/role-a', 's/user-a', 's/role-b', 's/user-b', 's/user-c']);
});

test('each object is in the order once, and the input is left as it was', () => {
  const resources = Array.from({ length: 50 }, (_, i) => resource(`s/r-${String(i).padStart(2, '0')}`, `type_${i % 7}`)).reverse();
  const before = [...resources];
  const ordered = readOrder(resources, (r) => r.type);
  expect(resources).toEqual(before);
  expect(ordered).toHaveLength(50);
  expect(new Set(ordered).size).toBe(50);
  expect(new Set(ordered.slice(0, 7).map((r) => r.type)).size).toBe(7);
});
