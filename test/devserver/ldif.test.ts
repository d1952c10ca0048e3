import { Directory, DirectoryError, type DirectoryEntry } from '../../src/devserver/directory/directory';
import { isLikelyBase64Ldif, LdifError, parseLdif } from '../../src/devserver/directory/ldif';
import { applyLdif } from '../../src/devserver/directory/ldif-apply';

const BASE: DirectoryEntry[] = [
  { dn: 'dc=example,dc=org', attributes: { objectClass: ['domain'], dc: ['example'] } },
  { dn: 'ou=users,dc=example,dc=org', attributes: { objectClass: ['organizationalUnit'], ou: ['users'] } },
  { dn: 'ou=groups,dc=example,dc=org', attributes: { objectClass: ['organizationalUnit'], ou: ['groups'] } },
  {
    dn: 'cn=devs,ou=groups,dc=example,dc=org',
    attributes: { objectClass: ['groupOfNames'], cn: ['devs'], member: ['cn=admin,dc=example,dc=org'] },
  },
];

function ldifErrorOf(text: string): LdifError {
  try {
    parseLdif(text);
  } catch (error) {
    expect(error).toBeInstanceOf(LdifError);
    return error as LdifError;
  }
  throw new Error('expected an LdifError');
}

describe('parseLdif', () => {
  it('parses an add record with changetype and repeated attributes', () => {
    const records = parseLdif(
      [
        'dn: cn=alice,ou=users,dc=example,dc=org',
        'changetype: add',
        'objectClass: inetOrgPerson',
        'objectClass: person',
        'cn: alice',
        'userPassword: s3cret',
      ].join('\n'),
    );
    expect(records).toEqual([
      {
        changetype: 'add',
        dn: 'cn=alice,ou=users,dc=example,dc=org',
        line: 1,
        attributes: { objectClass: ['inetOrgPerson', 'person'], cn: ['alice'], userPassword: ['s3cret'] },
      },
    ]);
  });

  it('treats a record without changetype as an add of its attributes', () => {
    expect(parseLdif('dn: cn=bob,dc=example,dc=org\ncn: bob\nsn: B\n')).toEqual([
      { changetype: 'add', dn: 'cn=bob,dc=example,dc=org', line: 1, attributes: { cn: ['bob'], sn: ['B'] } },
    ]);
  });

  it('parses modify records with add, replace and delete blocks closed by "-"', () => {
    const records = parseLdif(
      [
        'dn: cn=devs,ou=groups,dc=example,dc=org',
        'changetype: modify',
        'add: member',
        'member: cn=a,dc=example,dc=org',
        'member: cn=b,dc=example,dc=org',
        '-',
        'replace: description',
        'description: new',
        '-',
        'delete: seeAlso',
        '-',
        'delete: member',
        'member: cn=old,dc=example,dc=org',
        '-',
      ].join('\n'),
    );
    expect(records).toEqual([
      {
        changetype: 'modify',
        dn: 'cn=devs,ou=groups,dc=example,dc=org',
        line: 1,
        changes: [
          { op: 'add', attribute: 'member', values: ['cn=a,dc=example,dc=org', 'cn=b,dc=example,dc=org'] },
          { op: 'replace', attribute: 'description', values: ['new'] },
          { op: 'delete', attribute: 'seeAlso', values: [] },
          { op: 'delete', attribute: 'member', values: ['cn=old,dc=example,dc=org'] },
        ],
      },
    ]);
  });

  it('parses delete records', () => {
    expect(parseLdif('dn: cn=alice,ou=users,dc=example,dc=org\nchangetype: delete\n')).toEqual([
      { changetype: 'delete', dn: 'cn=alice,ou=users,dc=example,dc=org', line: 1 },
    ]);
  });

  it('splits records on blank lines, skips comments and a leading version line, and accepts CRLF', () => {
    const text = [
      'version: 1',
      '# the user',
      '#  continued comment',
      '',
      'dn: cn=a,dc=example,dc=org',
      '# comment inside a record',
      '#  folded comment line',
      'cn: a',
      '',
      '',
      'dn: cn=a,dc=example,dc=org',
      'changetype: delete',
    ].join('\r\n');
    const records = parseLdif(text);
    expect(records.map((r) => [r.changetype, r.dn, r.line])).toEqual([
      ['add', 'cn=a,dc=example,dc=org', 5],
      ['delete', 'cn=a,dc=example,dc=org', 11],
    ]);
    expect(records[0]).toMatchObject({ attributes: { cn: ['a'] } });
  });

  it('unfolds lines that start with one space', () => {
    const records = parseLdif('dn: cn=long,ou=us\n ers,dc=example,dc=org\ndescription: one \n two\n  three\n');
    expect(records).toEqual([
      { changetype: 'add', dn: 'cn=long,ou=users,dc=example,dc=org', line: 1, attributes: { description: ['one two three'] } },
    ]);
  });

  it('decodes base64 values given with "::", including the dn', () => {
    const dn = Buffer.from('cn=ünï,dc=example,dc=org').toString('base64');
    const records = parseLdif(`dn:: ${dn}\ndescription:: aGVsbG8gd29ybGQ=\nunicodePwd::IgBwAHcAIgA=\n`);
    expect(records).toEqual([
      {
        changetype: 'add',
        dn: 'cn=ünï,dc=example,dc=org',
        line: 1,
        attributes: { description: ['hello world'], unicodePwd: ['"\u0000p\u0000w\u0000"\u0000'] },
      },
    ]);
  });

  it('keeps the value after the separator spaces exactly, including inner and trailing spaces', () => {
    expect(parseLdif('dn: cn=x,dc=example,dc=org\ndescription:   a  b \n')[0]).toMatchObject({
      attributes: { description: ['a  b '] },
    });
  });

  it('names the line of each error', () => {
    expect(ldifErrorOf('cn: x\ndn: cn=x').message).toBe('LDIF line 1: record must start with "dn:", found "cn: x"');
    expect(ldifErrorOf('dn: cn=x,dc=org\ncn x\n').message).toBe('LDIF line 2: missing ":" in "cn x"');
    expect(ldifErrorOf('dn: cn=x,dc=org\n').message).toBe('LDIF line 1: record for "cn=x,dc=org" has only a dn: line');
    expect(ldifErrorOf('dn: cn=x,dc=org\ncn: x\n\ndn: cn=y,dc=org\nchangetype: delete\ncn: y\n').message).toBe(
      'LDIF line 6: no attributes allowed for changetype delete',
    );
    expect(ldifErrorOf('dn: cn=x,dc=org\nchangetype: modify\nreplace: cn\ncn: y\n').message).toBe(
      'LDIF line 4: modify block for "cn" does not end with a "-" line',
    );
    expect(ldifErrorOf('dn: cn=x,dc=org\nchangetype: modify\nreplace: cn\nsn: y\n-\n').message).toBe(
      'LDIF line 4: attribute "sn" in the replace block for "cn" (missing "-"?)',
    );
    expect(ldifErrorOf('dn: cn=x,dc=org\nchangetype: modify\nincrement: uid\n-\n').message).toBe(
      'LDIF line 3: invalid operation "increment" in modify record (expected add, replace or delete)',
    );
    expect(ldifErrorOf('dn: cn=x,dc=org\nchangetype: rename\n').message).toBe('LDIF line 2: invalid changetype "rename"');
    expect(ldifErrorOf('dn: cn=x,dc=org\nchangetype: modrdn\nnewrdn: cn=y\n').message).toBe(
      'LDIF line 2: unsupported changetype modrdn',
    );
    expect(ldifErrorOf('dn: cn=x,dc=org\nunicodePwd:: not*base64\n').message).toBe(
      'LDIF line 2: invalid base64 value "not*base64"',
    );
    expect(ldifErrorOf(' folded first\ndn: cn=x\n').message).toBe(
      'LDIF line 1: continuation line (starting with a space) without a line to continue',
    );
    expect(ldifErrorOf('version: 2\n\ndn: cn=x,dc=org\ncn: x\n').message).toBe('LDIF line 1: unsupported LDIF version "2"');
    expect(ldifErrorOf('dn: cn=x,dc=org\nbad_name: x\n').message).toBe('LDIF line 2: invalid attribute name "bad_name"');
    expect(ldifErrorOf('dn: cn=x,dc=org\ncn: x\n\ndn: cn=y,dc=org\nsn y\n').line).toBe(5);
  });

  it('reports the line of the physical line where a folded logical line starts', () => {
    expect(ldifErrorOf('dn: cn=x,dc=org\ncn: a\nbroken\n  value\nsn: b\n').message).toBe(
      'LDIF line 3: missing ":" in "broken value"',
    );
  });

  it('parses an empty or comment-only text as no records', () => {
    expect(parseLdif('')).toEqual([]);
    expect(parseLdif('# nothing\n\n')).toEqual([]);
  });
});

describe('applyLdif', () => {
  const creation = [
    'dn: cn=v_user,ou=users,dc=example,dc=org',
    'changetype: add',
    'objectClass: inetOrgPerson',
    'cn: v_user',
    'userPassword: pw1',
    '',
    'dn: cn=devs,ou=groups,dc=example,dc=org',
    'changetype: modify',
    'add: member',
    'member: cn=v_user,ou=users,dc=example,dc=org',
    '-',
  ].join('\n');

  it('applies records in order: the entry is created before it is added to a group', () => {
    const directory = new Directory(BASE);
    const result = applyLdif(directory, parseLdif(creation), { stopOnError: true });
    expect(result).toEqual({ applied: 2, errors: [] });
    expect(directory.get('cn=v_user,ou=users,dc=example,dc=org')?.attributes).toEqual({
      objectClass: ['inetOrgPerson'],
      cn: ['v_user'],
      userPassword: ['pw1'],
    });
    expect(directory.get('cn=devs,ou=groups,dc=example,dc=org')?.attributes.member).toEqual([
      'cn=admin,dc=example,dc=org',
      'cn=v_user,ou=users,dc=example,dc=org',
    ]);
    directory.bind('cn=v_user,ou=users,dc=example,dc=org', 'pw1');
  });

  it('with stopOnError stops at the first failing record and leaves later records unapplied', () => {
    const directory = new Directory(BASE);
    const records = parseLdif(
      [
        'dn: cn=first,ou=users,dc=example,dc=org',
        'cn: first',
        '',
        'dn: cn=child,ou=missing,dc=example,dc=org',
        'cn: child',
        '',
        'dn: cn=third,ou=users,dc=example,dc=org',
        'cn: third',
      ].join('\n'),
    );
    const result = applyLdif(directory, records, { stopOnError: true });
    expect(result.applied).toBe(1);
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toBeInstanceOf(DirectoryError);
    expect(result.errors[0].message).toBe(
      'LDAP Result Code 32 "No Such Object": parent ou=missing,dc=example,dc=org does not exist',
    );
    expect(directory.has('cn=first,ou=users,dc=example,dc=org')).toBe(true);
    expect(directory.has('cn=third,ou=users,dc=example,dc=org')).toBe(false);
  });

  it('without stopOnError runs every record and collects each error (deletion and rollback LDIF)', () => {
    const directory = new Directory(BASE);
    applyLdif(directory, parseLdif(creation), { stopOnError: true });
    const deletion = parseLdif(
      [
        'dn: cn=devs,ou=groups,dc=example,dc=org',
        'changetype: modify',
        'delete: member',
        'member: cn=not-a-member,dc=example,dc=org',
        '-',
        '',
        'dn: cn=ghost,ou=users,dc=example,dc=org',
        'changetype: delete',
        '',
        'dn: cn=v_user,ou=users,dc=example,dc=org',
        'changetype: delete',
      ].join('\n'),
    );
    const result = applyLdif(directory, deletion, { stopOnError: false });
    expect(result.applied).toBe(1);
    expect(result.errors.map((e) => (e as DirectoryError).resultCode)).toEqual([16, 32]);
    expect(result.errors[1].message).toBe('LDAP Result Code 32 "No Such Object": cn=ghost,ou=users,dc=example,dc=org');
    expect(directory.has('cn=v_user,ou=users,dc=example,dc=org')).toBe(false);
  });

  it('applies replace and whole-attribute delete modifications', () => {
    const directory = new Directory(BASE);
    const result = applyLdif(
      directory,
      parseLdif(
        [
          'dn: cn=devs,ou=groups,dc=example,dc=org',
          'changetype: modify',
          'replace: description',
          'description: developers',
          '-',
          'delete: member',
          '-',
        ].join('\n'),
      ),
      { stopOnError: true },
    );
    expect(result).toEqual({ applied: 1, errors: [] });
    expect(directory.get('cn=devs,ou=groups,dc=example,dc=org')?.attributes).toEqual({
      objectClass: ['groupOfNames'],
      cn: ['devs'],
      description: ['developers'],
    });
  });

  it('reports adding an entry that exists', () => {
    const directory = new Directory(BASE);
    const result = applyLdif(directory, parseLdif('dn: ou=users,dc=example,dc=org\nou: users\n'), { stopOnError: true });
    expect(result.applied).toBe(0);
    expect(result.errors[0].message).toBe('LDAP Result Code 68 "Entry Already Exists": ou=users,dc=example,dc=org');
  });
});

describe('isLikelyBase64Ldif', () => {
  const ldif = 'dn: cn={{.Username}},ou=users,dc=example,dc=org\nobjectClass: person\nuserPassword: {{.Password}}\n';

  it('returns the decoded text of base64-encoded LDIF', () => {
    expect(isLikelyBase64Ldif(Buffer.from(ldif).toString('base64'))).toBe(ldif);
  });

  it('accepts base64 broken over lines and surrounded by whitespace', () => {
    const encoded = Buffer.from(ldif).toString('base64');
    const wrapped = `\n${encoded.match(/.{1,20}/g)?.join('\n')}\n`;
    expect(isLikelyBase64Ldif(wrapped)).toBe(ldif);
  });

  it('accepts templated values that only become base64 once rendered', () => {
    const adLdif = 'dn: CN={{.Username}},CN=Users,DC=corp,DC=example\nchangetype: add\nunicodePwd::{{ printf "%q" .Password | utf16le | base64 }}\n';
    expect(isLikelyBase64Ldif(Buffer.from(adLdif).toString('base64'))).toBe(adLdif);
  });

  it('returns undefined for plain LDIF, base64 of something else, and invalid base64', () => {
    expect(isLikelyBase64Ldif(ldif)).toBeUndefined();
    expect(isLikelyBase64Ldif(Buffer.from('just some words').toString('base64'))).toBeUndefined();
    expect(isLikelyBase64Ldif('abc')).toBeUndefined();
    expect(isLikelyBase64Ldif('')).toBeUndefined();
    expect(isLikelyBase64Ldif(Buffer.from([0xff, 0xfe, 0x00, 0x01]).toString('base64'))).toBeUndefined();
  });
});
