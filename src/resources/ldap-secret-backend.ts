import { configOfMount } from './discovery';
import { defineResourceType, matchPath, samePathApi } from './define';
import { field, mountPathFacts } from './field';
import { rotateRoot, rotateRootAfterCreateField } from './operation';
import { LDAP_URLS, PEM_CERTIFICATE_ONE, PEM_CERTIFICATES } from './formats';
import { ImportIdError } from './types';

export const LDAP_SCHEMAS = ['openldap', 'ad', 'racf'] as const;

/** The directory engine's connection settings (`<path>/config`). */
export const ldapSecretBackend = defineResourceType({
  type: 'ldap_secret_backend',
  construct: 'LdapSecretBackend',
  doc: "The directory engine's connection settings.",
  fields: [
    field('path', 'string', 'Mount path of the directory engine.', { identity: true, immutable: true, setByConstruct: true, ...mountPathFacts('secrets') }),
    field('binddn', 'string', 'DN used to bind for managing entries (needs rights to search and change passwords).', { required: true }),
    field('bindpass', 'string', 'Password of `binddn`.', { sensitive: true, rootCredential: true, required: true }),
    field('url', 'string', 'Server URL (`ldap://` or `ldaps://`), or a comma-separated list tried in order.', {
      serviceDefault: 'ldap://127.0.0.1', format: LDAP_URLS,
    }),
    field('password_policy', 'string', 'Name of the password policy that generates passwords; exclusive with `length`.', {
      defaultDoc: 'the default generation algorithm',
    }),
    field('schema', 'string', 'Directory schema: `openldap`, `ad` or `racf`.', { serviceDefault: 'openldap', allowed: LDAP_SCHEMAS }),
    field('userdn', 'string', 'Base DN for user search (static roles, library sets).'),
    // Its default depends on the schema, so no fixed service default.
    field('userattr', 'string', 'Attribute for user search.', { defaultDoc: 'by schema: `cn` (openldap), `userPrincipalName` (ad), `racfid` (racf)' }),
    field('upndomain', 'string', 'Domain of the UPN `<binddn>@<upndomain>` used to authenticate.'),
    field('request_timeout', 'duration', 'Timeout of requests to the server.', { serviceDefault: 90 }),
    field('connection_timeout', 'duration', 'Seconds before trying the next URL.', { serviceDefault: 30, deprecated: 'use `requestTimeout`' }),
    field('starttls', 'bool', 'Issue StartTLS after connecting unencrypted.', { serviceDefault: false }),
    field('insecure_tls', 'bool', 'Skip server certificate verification.', { serviceDefault: false }),
    field('certificate', 'string', 'CA certificate (PEM) that verifies the server.', { format: PEM_CERTIFICATES }),
    field('client_tls_cert', 'string', 'Client certificate (PEM); with `clientTlsKey`.', { writeOnly: true, format: PEM_CERTIFICATE_ONE }),
    field('client_tls_key', 'string', 'Client key (PEM); with `clientTlsCert`.', { sensitive: true }),
    field('skip_static_role_import_rotation', 'bool', 'Default of `skipImportRotation` for new static roles.', { serviceDefault: false }),
    // No serviceDefault: removed from code it must not be re-sent as 64 (it is exclusive with password_policy).
    field('length', 'int', 'Length of generated passwords; exclusive with `passwordPolicy`.', {
      deprecated: 'use `passwordPolicy`', minimum: 1, defaultDoc: '64 (the service generates passwords of that length when neither `length` nor `passwordPolicy` is set)',
    }),
    rotateRootAfterCreateField('bind password'),
  ],
  writeSemantics: 'merge',
  id: (spec) => `${String(spec.path)}/config`,
  parseImportId(importId) {
    const match = matchPath(importId, /^(.+)\/config$/);
    if (!match) throw new ImportIdError('ldap_secret_backend', importId, '<path>/config');
    return { path: match[1] };
  },
  api: (spec) => samePathApi(`${String(spec.path)}/config`),
  discover: configOfMount('ldap'),
  operations: [rotateRoot('directory engine', 'bind password')],
  dependsOn: (spec) => [`sys/mounts/${String(spec.path)}`],
  // The engine's configuration is stored under its mount.
  livesIn: (identity) => [`sys/mounts/${String(identity.path)}`],
});
