// The directory answers searches and non-leaf checks from indexes: these tests change entries in every way the
// directory allows and check that the answers follow (a stale index would find old values or miss new ones).
import { Directory, DirectoryError } from '../../src/devserver/directory/directory';

const ROOT = 'dc=example,dc=org';
const USERS = `ou=users,${ROOT}`;

function directory(): Directory {
  return new Directory([
    { dn: ROOT, attributes: { objectClass: ['domain'], dc: ['example'] } },
    { dn: USERS, attributes: { objectClass: ['organizationalUnit'], ou: ['users'] } },
    { dn: `cn=alice,${USERS}`, attributes: { cn: ['alice'], uid: ['Alice'], userPassword: ['a'] } },
    { dn: `cn=bob,${USERS}`, attributes: { cn: ['bob'], uid: ['bob'], userPassword: ['b'] } },
  ]);
}

const dns = (d: Directory, base: string, attribute: string, value: string): string[] =>
  d.search(base, attribute, value).map((entry) => entry.dn);

function resultCodeOf(run: () => void): number {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(DirectoryError);
    return (error as DirectoryError).resultCode;
  }
  throw new Error('expected a DirectoryError');
}

describe('Directory search through its value index', () => {
  it('ignores the case of the attribute name and of the value', () => {
    expect(dns(directory(), USERS, 'UID', 'alice')).toEqual([`cn=alice,${USERS}`]);
  });

  it('no longer finds a deleted entry, and finds one added again under the same DN', () => {
    const d = directory();
    d.delete(`cn=alice,${USERS}`);
    expect(dns(d, USERS, 'cn', 'alice')).toEqual([]);
    d.add(`cn=alice,${USERS}`, { cn: ['alice2'] });
    expect(dns(d, USERS, 'cn', 'alice')).toEqual([]);
    expect(dns(d, USERS, 'cn', 'alice2')).toEqual([`cn=alice,${USERS}`]);
  });

  it('follows replace, add and delete modifications of the searched attribute', () => {
    const d = directory();
    d.modify(`cn=alice,${USERS}`, [{ op: 'replace', attribute: 'uid', values: ['carol'] }]);
    expect(dns(d, ROOT, 'uid', 'alice')).toEqual([]);
    expect(dns(d, ROOT, 'uid', 'carol')).toEqual([`cn=alice,${USERS}`]);

    d.modify(`cn=alice,${USERS}`, [{ op: 'add', attribute: 'UID', values: ['dave'] }]);
    expect(dns(d, ROOT, 'uid', 'dave')).toEqual([`cn=alice,${USERS}`]);
    expect(dns(d, ROOT, 'uid', 'carol')).toEqual([`cn=alice,${USERS}`]);

    d.modify(`cn=alice,${USERS}`, [{ op: 'delete', attribute: 'uid', values: ['carol'] }]);
    expect(dns(d, ROOT, 'uid', 'carol')).toEqual([]);
    d.modify(`cn=alice,${USERS}`, [{ op: 'delete', attribute: 'uid', values: [] }]);
    expect(dns(d, ROOT, 'uid', 'dave')).toEqual([]);
  });

  it('leaves the index as it was when a modification fails', () => {
    const d = directory();
    expect(
      resultCodeOf(() =>
        d.modify(`cn=alice,${USERS}`, [
          { op: 'replace', attribute: 'uid', values: ['zed'] },
          { op: 'delete', attribute: 'mail', values: [] },
        ]),
      ),
    ).toBe(16);
    expect(dns(d, ROOT, 'uid', 'zed')).toEqual([]);
    expect(dns(d, ROOT, 'uid', 'alice')).toEqual([`cn=alice,${USERS}`]);
  });

  it('keeps the order in which entries were added, whatever order their values were indexed in', () => {
    const d = directory();
    d.modify(`cn=bob,${USERS}`, [{ op: 'replace', attribute: 'sn', values: ['same'] }]);
    d.modify(`cn=alice,${USERS}`, [{ op: 'replace', attribute: 'sn', values: ['SAME'] }]);
    expect(dns(d, ROOT, 'sn', 'same')).toEqual([`cn=alice,${USERS}`, `cn=bob,${USERS}`]);
  });

  it('matches only the first of two attribute names that differ in case, as the unindexed search did', () => {
    const d = directory();
    d.add(`cn=twice,${USERS}`, { mail: ['first'], MAIL: ['second'] });
    expect(dns(d, ROOT, 'mail', 'first')).toEqual([`cn=twice,${USERS}`]);
    expect(dns(d, ROOT, 'mail', 'second')).toEqual([]);
  });

  it('restricts matches to the base and what lies below it', () => {
    const d = directory();
    d.add(`cn=alice,${ROOT}`, { uid: ['alice'] });
    expect(dns(d, USERS, 'uid', 'alice')).toEqual([`cn=alice,${USERS}`]);
    expect(dns(d, ROOT, 'uid', 'alice')).toEqual([`cn=alice,${USERS}`, `cn=alice,${ROOT}`]);
    expect(dns(d, '', 'uid', 'alice')).toHaveLength(2);
  });
});

describe('Directory non-leaf checks through its subtree index', () => {
  it('refuses to delete an entry with children until the last child is gone', () => {
    const d = directory();
    expect(resultCodeOf(() => d.delete(USERS))).toBe(66);
    d.delete(`cn=alice,${USERS}`);
    expect(resultCodeOf(() => d.delete(USERS))).toBe(66);
    d.delete(`cn=bob,${USERS}`);
    d.delete(USERS);
    expect(d.has(USERS)).toBe(false);
  });

  it('counts an entry below a naming context added after it, and takes DN spacing and case as the same DN', () => {
    const d = new Directory();
    d.add('cn=x,ou=loose,dc=other', { cn: ['x'] });
    d.add('dc=other', { dc: ['other'] });
    expect(resultCodeOf(() => d.delete('DC=Other'))).toBe(66);
    d.delete('cn=x, ou=loose, dc=other');
    d.delete('dc=other');
    expect(d.all()).toEqual([]);
  });

  it('requires the parent of a new entry under an existing one, also after the parent was deleted', () => {
    const d = directory();
    d.delete(`cn=bob,${USERS}`);
    expect(resultCodeOf(() => d.add(`cn=child,cn=bob,${USERS}`, { cn: ['child'] }))).toBe(32);
    d.add(`cn=bob,${USERS}`, { cn: ['bob'] });
    d.add(`cn=child,cn=bob,${USERS}`, { cn: ['child'] });
    expect(dns(d, `cn=bob,${USERS}`, 'cn', 'child')).toEqual([`cn=child,cn=bob,${USERS}`]);
  });
});
