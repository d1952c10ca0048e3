import * as fs from 'node:fs';
import * as path from 'node:path';
import { GENERATED_FIELDS_PATH, generatedFieldsSource } from '../../src/constructs/codegen/fields-source';
import { RESOURCE_TYPES } from '../../src/resources/registry';

test('the checked-in construct field props are what the resource model generates (else: npm run generate:constructs)', () => {
  const checkedIn = fs.readFileSync(path.resolve(__dirname, '../..', GENERATED_FIELDS_PATH), 'utf8');
  expect(checkedIn).toBe(generatedFieldsSource(RESOURCE_TYPES));
});

test('each field prop carries its doc, default, and its secret, root-credential, immutability and deprecation notes', () => {
  const source = generatedFieldsSource(RESOURCE_TYPES);
  const block = (iface: string, prop: string) => {
    const body = source.slice(source.indexOf(`export interface ${iface} extends ResourceOptions {`));
    const end = body.indexOf(`readonly ${prop}`);
    return body.slice(body.lastIndexOf('/**', end), body.indexOf(';', end) + 1);
  };
  expect(block('LdapSecretBackendFields', 'bindpass')).toContain('A root credential: sent only when its value in code changes');
  expect(block('LdapSecretBackendFields', 'bindpass')).toContain('readonly bindpass: SecretValue;');
  expect(block('LdapSecretBackendFields', 'requestTimeout')).toContain('@default "90s" (90 seconds)');
  expect(block('LdapSecretBackendFields', 'length')).toContain('@deprecated use `passwordPolicy`');
  expect(block('LdapSecretBackendFields', 'length')).toContain('@default 64 (the service generates');
  expect(block('LdapLibrarySetFields', 'maxTtl')).toContain('@default "24h" (86400 seconds)');
  expect(block('LdapStaticRoleFields', 'username')).toContain('Cannot change after creation: a change replaces the object.');
  expect(block('LdapStaticRoleFields', 'name')).toContain("Part of the object's identity");
  expect(block('UserpassUserFields', 'tokenType')).toContain("readonly tokenType?: 'service' | 'batch' | 'default';");
  expect(block('CloudSecretRoleFields', 'cloudRoles')).toContain('readonly cloudRoles?: readonly CloudRoleAssignment[];');
});
