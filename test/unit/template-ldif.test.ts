import { canonicalLdif, decodeLdif, ldifProblems, LDIF_TEMPLATE, SECRET_NAME_TEMPLATE, templateProblems, USERNAME_TEMPLATE } from '../../src/resources';

describe('template syntax check', () => {
  test('accepts the service\'s documented templates', () => {
    expect(templateProblems('v_{{.DisplayName}}_{{.RoleName}}_{{random 10}}_{{unix_time}}', USERNAME_TEMPLATE)).toEqual([]);
    expect(templateProblems('{{ .RoleName | truncate 10 | lowercase }}-{{ printf "%s" .DisplayName | replace "-" "_" }}', USERNAME_TEMPLATE)).toEqual([]);
    expect(templateProblems('svc/{{ .MountAccessor }}/{{ .SecretPath }}', SECRET_NAME_TEMPLATE)).toEqual([]);
    expect(templateProblems('{{- if .RoleName -}}{{ .RoleName }}{{ else }}x{{ end -}}', USERNAME_TEMPLATE)).toEqual([]);
    expect(templateProblems('{{ .Password | utf16le | base64 }}', LDIF_TEMPLATE)).toEqual([]);
    expect(templateProblems('{{/* a comment */}}plain', USERNAME_TEMPLATE)).toEqual([]);
    expect(templateProblems('{{ "}}" }}', SECRET_NAME_TEMPLATE)).toEqual([]);
  });

  test('names what does not parse', () => {
    expect(templateProblems('a {{ .RoleName', USERNAME_TEMPLATE)).toEqual(['unclosed action starting at character 3 ("{{" without "}}")']);
    expect(templateProblems('{{ .Password }}', USERNAME_TEMPLATE)[0]).toMatch(/^unknown field "\.Password" in \{\{\.Password\}\}; available: \.RoleName, \.DisplayName$/);
    expect(templateProblems('{{ .Password | utf16le }}', USERNAME_TEMPLATE).join()).toContain('unknown function "utf16le"');
    expect(templateProblems('{{ end }}', USERNAME_TEMPLATE)).toEqual(['{{end}} without an opening {{if}}, {{range}} or {{with}}']);
    expect(templateProblems('{{ if .RoleName }}x', USERNAME_TEMPLATE)).toEqual(['{{if}} without a matching {{end}}']);
    expect(templateProblems('{{ .RoleName | }}', USERNAME_TEMPLATE).join()).toContain('empty pipeline stage');
    expect(templateProblems('{{ (lowercase .RoleName }}', USERNAME_TEMPLATE).join()).toContain('unbalanced "("');
    expect(templateProblems('{{ "abc }}', USERNAME_TEMPLATE).join()).toContain('unclosed action');
    expect(templateProblems('{{}}', USERNAME_TEMPLATE)).toEqual(['empty action {{}}']);
  });
});

describe('LDIF', () => {
  const ldif = 'dn: cn={{.Username}},ou=users,dc=example,dc=org\nobjectClass: person\ncn: {{.Username}}\nuserPassword:: {{ .Password | base64 }}\n';

  test('accepts add, delete and modify entries, continuation lines, comments and version', () => {
    expect(ldifProblems(ldif)).toEqual([]);
    expect(ldifProblems('version: 1\n# remove the user\ndn: cn={{.Username}},dc=x\nchangetype: delete\n')).toEqual([]);
    expect(ldifProblems('dn: cn=group,dc=x\nchangetype: modify\nadd: member\nmember: cn={{.Username}},\n dc=x\n-\nreplace: description\ndescription: d\n-\n')).toEqual([]);
    expect(ldifProblems(`${ldif}\n\ndn: cn=group,dc=x\nchangetype: modify\nadd: member\nmember: cn={{.Username}}\n-\n`)).toEqual([]);
  });

  test('accepts and decodes LDIF that is base64-encoded as a whole', () => {
    const encoded = Buffer.from(ldif).toString('base64');
    expect(decodeLdif(encoded)).toBe(ldif);
    expect(ldifProblems(encoded)).toEqual([]);
    expect(canonicalLdif(encoded)).toBe(canonicalLdif(ldif.replace(/\n/g, '\r\n')));
  });

  test('names what does not parse', () => {
    expect(ldifProblems('')).toEqual(['holds no LDIF entry (each entry starts with a "dn:" line)']);
    expect(ldifProblems('cn: x\n')).toEqual(['entry 1 does not start with a "dn:" line (got "cn: x")']);
    expect(ldifProblems('dn: cn=x\nchangetype: rename\n')).toEqual(['entry 1 has changetype "rename"; allowed: add, delete, modify, modrdn, moddn']);
    expect(ldifProblems('dn: cn=x\nnot an attribute line\n')).toEqual(['entry 1: line "not an attribute line" is not "attribute: value"']);
    expect(ldifProblems('dn: cn=x\nchangetype: modify\nmember: y\n')[0]).toContain('a modify entry needs "add:", "delete:", "replace:" or "increment:" before "member:"');
    expect(ldifProblems('dn: cn=x\ncn:: not base64!\n')).toEqual(['entry 1: the value of "cn::" is not base64']);
    expect(ldifProblems('dn: cn=x\n')).toEqual(['entry 1 adds an entry without attributes']);
    expect(ldifProblems('dn: cn={{.Login}}\ncn: x')[0]).toContain('unknown field ".Login"');
  });

  test('a text checked again gets the same problems, in a list of its own', () => {
    const broken = 'dn: cn=x\nnot an attribute line\n';
    const first = ldifProblems(broken);
    first.push('changed by a caller');
    expect(ldifProblems(broken)).toEqual(['entry 1: line "not an attribute line" is not "attribute: value"']);
    // More texts than the memory keeps: each still gets its own problems.
    for (let index = 0; index < 100; index++) expect(ldifProblems(`dn: cn=x${index}\n`)).toEqual(['entry 1 adds an entry without attributes']);
    expect(ldifProblems(broken)).toEqual(['entry 1: line "not an attribute line" is not "attribute: value"']);
    expect(ldifProblems(ldif)).toEqual([]);
  });
});
