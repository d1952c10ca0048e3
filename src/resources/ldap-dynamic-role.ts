import { defineResourceType, matchPath, samePathApi } from './define';
import { field, mountField } from './field';
import { LDIF_TEMPLATE, USERNAME_TEMPLATE } from './template';
import { ImportIdError } from './types';

/** A dynamic role: entries created and deleted from templated LDIF (`<mount>/role/<name>`). */
export const ldapDynamicRole = defineResourceType({
  type: 'ldap_dynamic_role',
  construct: 'LdapDynamicRole',
  doc: 'Creates and deletes directory entries from templated LDIF.',
  fields: [
    mountField('Mount path of the directory engine.'),
    field('name', 'string', 'Role name; may contain "/" (lower-cased by the server).', { identity: true, immutable: true, caseInsensitive: true, segment: 'hierarchical' }),
    field('creation_ldif', 'ldif', 'Templated LDIF that creates the account.', { template: LDIF_TEMPLATE }),
    field('deletion_ldif', 'ldif', 'Templated LDIF run when the lease expires.', { template: LDIF_TEMPLATE }),
    field('rollback_ldif', 'ldif', 'Templated LDIF run if creation fails.', { serviceDefault: '', template: LDIF_TEMPLATE }),
    field('username_template', 'template', 'Template that produces .Username.', { serviceDefault: '', template: USERNAME_TEMPLATE }),
    field('default_ttl', 'duration', 'Lease TTL (0: engine default).', { serviceDefault: 0 }),
    field('max_ttl', 'duration', 'Maximum lease TTL (0: engine default).', { serviceDefault: 0 }),
  ],
  // Only the keys sent change; a key sent as "" deletes that value.
  writeSemantics: 'partial-empty-deletes',
  id: (spec) => `${spec.mount}/role/${spec.name}`,
  parseImportId(importId) {
    const match = matchPath(importId, /^(.+?)\/role\/(.+)$/);
    if (!match) throw new ImportIdError('ldap_dynamic_role', importId, '<mount>/role/<name>');
    return { mount: match[1], name: match[2].toLowerCase() };
  },
  api: (spec) => samePathApi(`${spec.mount}/role/${spec.name}`, { credentials: { method: 'GET', path: `${spec.mount}/creds/${spec.name}` } }),
  dependsOn: (spec) => [`${spec.mount}/config`, `sys/mounts/${spec.mount}`],
});
