import { defineResourceType, matchPath, samePathApi } from './define';
import { field, mountPathFacts } from './field';
import { ImportIdError } from './types';

export const LDAP_SCHEMAS = ['openldap', 'ad', 'racf'] as const;

/** The directory engine's connection settings (`<path>/config`). */
export const ldapSecretBackend = defineResourceType({
  type: 'ldap_secret_backend',
  construct: 'LdapSecretBackend',
  doc: "The directory engine's connection settings.",
  fields: [
    field('path', 'string', 'Mount path of the directory engine.', { identity: true, immutable: true, ...mountPathFacts('secrets') }),
    field('binddn', 'string', 'DN used to bind for managing entries.'),
    field('bindpass', 'string', 'Password of binddn.', { sensitive: true, rootCredential: true }),
    field('url', 'string', 'Server URL, or a comma-separated list tried in order.', { serviceDefault: 'ldap://127.0.0.1' }),
    field('password_policy', 'string', 'Name of the password policy that generates passwords; exclusive with length.'),
    field('schema', 'string', 'Directory schema: openldap, ad or racf.', { serviceDefault: 'openldap' }),
    field('userdn', 'string', 'Base DN for user search.'),
    // Its default depends on the schema (cn, userPrincipalName, racfid), so no fixed service default.
    field('userattr', 'string', 'Attribute for user search; default by schema.'),
    field('upndomain', 'string', 'Domain of the UPN <binddn>@<upndomain>.'),
    field('request_timeout', 'duration', 'Timeout of requests to the server.', { serviceDefault: 90 }),
    field('connection_timeout', 'duration', 'Deprecated: seconds before trying the next URL.', { serviceDefault: 30, deprecated: true }),
    field('starttls', 'bool', 'Issue StartTLS after connecting.', { serviceDefault: false }),
    field('insecure_tls', 'bool', 'Skip server certificate verification.', { serviceDefault: false }),
    field('certificate', 'string', 'CA certificate (PEM) that verifies the server.'),
    field('client_tls_cert', 'string', 'Client certificate (PEM).', { writeOnly: true }),
    field('client_tls_key', 'string', 'Client key (PEM).', { sensitive: true }),
    field('skip_static_role_import_rotation', 'bool', 'Default of skip_import_rotation for new static roles.', { serviceDefault: false }),
    field('length', 'int', 'Deprecated: generated password length; exclusive with password_policy.', { deprecated: true }),
  ],
  writeSemantics: 'merge',
  id: (spec) => `${spec.path}/config`,
  parseImportId(importId) {
    const match = matchPath(importId, /^(.+)\/config$/);
    if (!match) throw new ImportIdError('ldap_secret_backend', importId, '<path>/config');
    return { path: match[1] };
  },
  api: (spec) => samePathApi(`${spec.path}/config`, { rotateRoot: { method: 'POST', path: `${spec.path}/rotate-root` } }),
  dependsOn: (spec) => [`sys/mounts/${spec.path}`],
});
