import type { Discovery } from '../../src/generate/discover';
import { renderApp } from '../../src/generate/render';
import { constructIdFrom, environmentVariableFor, UniqueNames, variableNameFor } from '../../src/generate/names';
import { readableDuration, renderValue, stringLiteral } from '../../src/generate/values';
import { getResourceType } from '../../src/resources';

describe('names in generated code', () => {
  test('construct ids keep letters, digits, "-" and "_" and turn other runs into "-"', () => {
    expect(constructIdFrom('team/svc-b', 'x')).toBe('team-svc-b');
    expect(constructIdFrom('a  b//c_d', 'x')).toBe('a-b-c_d');
    expect(constructIdFrom('///', 'fallback')).toBe('fallback');
  });

  test('unique names: the wanted one, then the qualified one, then numbered; case-insensitively when asked', () => {
    const names = new UniqueNames([], (name) => name.toLowerCase());
    const join = (base: string, n: number) => `${base}-${n}`;
    expect(names.claim('cloud', 'cloud-mount', join)).toBe('cloud');
    expect(names.claim('Cloud', 'cloud-mount', join)).toBe('cloud-mount');
    expect(names.claim('cloud', 'cloud-mount', join)).toBe('cloud-mount-2');
  });

  test('variable names are camelCase identifiers that are never reserved words or start with a digit', () => {
    expect(variableNameFor('payments-prod')).toBe('paymentsProd');
    expect(variableNameFor('1st-pool')).toBe('_1stPool');
    expect(variableNameFor('default')).toBe('defaultResource');
  });

  test('environment variables are upper snake case of the construct id and field', () => {
    expect(environmentVariableFor('ci-app', 'private_key')).toBe('CI_APP_PRIVATE_KEY');
    expect(environmentVariableFor('9-x', 'token')).toBe('_9_X_TOKEN');
  });
});

describe('values in generated code', () => {
  test('durations read as the largest whole unit', () => {
    expect(readableDuration(3600)).toBe('1h');
    expect(readableDuration(172800)).toBe('2d');
    expect(readableDuration(90)).toBe('90s');
    expect(readableDuration(120)).toBe('2m');
    expect(readableDuration(0)).toBe('0s');
  });

  test('strings are single-quoted with quotes, backslashes and newlines escaped', () => {
    expect(stringLiteral("it's a \"b\"\\\n")).toBe("'it\\'s a \"b\"\\\\\\n'");
    // eslint-disable-next-line @typescript-eslint/no-implied-eval
    expect(new Function(`return ${stringLiteral("it's a \"b\"\\\n")}`)()).toBe("it's a \"b\"\\\n");
  });

  test('object-list elements use the construct prop names of their members', () => {
    const role = getResourceType('cloud_secret_role');
    const cloudRoles = role.fields.find((field) => field.api === 'cloud_roles')!;
    expect(renderValue(cloudRoles, [{ scope: '/s', role_name: 'Reader' }])).toBe("[{ scope: '/s', roleName: 'Reader' }]");
    const ttl = role.fields.find((field) => field.api === 'ttl')!;
    expect(renderValue(ttl, 7200)).toBe("'2h'");
  });

  test('multi-line text is written as its lines joined with newlines', () => {
    const ldif = getResourceType('ldap_dynamic_role').fields.find((field) => field.api === 'creation_ldif')!;
    const text = 'dn: cn={{.Username}}\nobjectClass: person\n';
    const rendered = renderValue(ldif, text);
    expect(rendered).toBe("['dn: cn={{.Username}}', 'objectClass: person', ''].join('\\n')");
    // eslint-disable-next-line @typescript-eslint/no-implied-eval
    expect(new Function(`return ${rendered}`)()).toBe(text);
  });
});

describe('renderApp', () => {
  const mount = getResourceType('secrets_mount');
  const backend = getResourceType('ldap_secret_backend');
  const staticRole = getResourceType('ldap_static_role');
  const discovery: Discovery = {
    objects: [
      { resourceType: mount, id: 'sys/mounts/ldap', attributes: { path: 'ldap', type: 'ldap', description: '' }, secrets: [] },
      { resourceType: backend, id: 'ldap/config', attributes: { path: 'ldap', binddn: 'cn=admin', schema: 'openldap', request_timeout: 90, upndomain: '' }, secrets: ['bindpass'] },
      { resourceType: staticRole, id: 'ldap/static-role/team/svc', attributes: { mount: 'ldap', name: 'team/svc', username: 'svc', rotation_period: 86400 }, secrets: [] },
    ],
    unexpressed: ['sys/mounts/pki (mount type "pki" is not one secretform manages)'],
    warnings: [],
  };

  test('one construct per object, the mount made by its backend, references, no defaults, secrets from the environment', () => {
    const { source, variables, unexpressed } = renderApp(discovery, 'imported');
    expect(source).not.toContain('new SecretsMount(');
    expect(source).toContain("const ldap = new LdapSecretBackend(stack, 'ldap', { binddn: 'cn=admin', bindpass: SecretValue.fromEnv('LDAP_BINDPASS') });");
    expect(source).toContain("new LdapStaticRole(stack, 'team-svc', { backend: ldap, name: 'team/svc', username: 'svc', rotationPeriod: '1d' });");
    expect(variables).toEqual([{ name: 'LDAP_BINDPASS', description: 'bindpass of LdapSecretBackend ldap (ldap/config)' }]);
    expect(unexpressed).toEqual(['sys/mounts/pki (mount type "pki" is not one secretform manages)']);
    expect(source).toContain(' * - sys/mounts/pki (mount type "pki" is not one secretform manages)');
    expect(source).toContain(' * - LDAP_BINDPASS: bindpass of LdapSecretBackend ldap (ldap/config)');
  });

  test('a mount with settings of its own gets its own construct and the backend manageMount: false', () => {
    const described = { ...discovery, objects: [{ ...discovery.objects[0], attributes: { path: 'ldap', type: 'ldap', description: 'directory' } }, ...discovery.objects.slice(1)] };
    const { source } = renderApp(described, 'imported');
    expect(source).toContain("new SecretsMount(stack, 'ldap', { path: 'ldap', type: 'ldap', description: 'directory' });");
    expect(source).toContain("const ldapLdapSecretBackend = new LdapSecretBackend(stack, 'ldap-ldap-secret-backend', { manageMount: false,");
  });

  test('a role whose engine has no configuration names its mount by path', () => {
    const { source } = renderApp({ objects: [discovery.objects[2]], unexpressed: [] }, 's');
    expect(source).toContain("backend: 'ldap'");
  });

  test('an adopted KV mount is protected (its secrets are not in the code); an engine mount is not', () => {
    const kv = { resourceType: mount, id: 'sys/mounts/apps', attributes: { path: 'apps', type: 'kv', options: { version: '2' } }, secrets: [] };
    const described = { ...discovery.objects[0], attributes: { path: 'ldap', type: 'ldap', description: 'directory' } };
    const { source } = renderApp({ objects: [kv, described], unexpressed: [] }, 's');
    expect(source).toContain("new SecretsMount(stack, 'apps', { path: 'apps', type: 'kv', options: { version: '2' }, protect: true });");
    expect(source).toContain("new SecretsMount(stack, 'ldap', { path: 'ldap', type: 'ldap', description: 'directory' });");
  });

  test('the same discovery gives the same text', () => {
    expect(renderApp(discovery, 'imported').source).toBe(renderApp(discovery, 'imported').source);
  });
});
