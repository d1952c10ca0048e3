import { namedInMount } from './discovery';
import { defineResourceType, matchPath, samePathApi } from './define';
import { field, mountField } from './field';
import { HIERARCHICAL_NAME } from './formats';
import { LDIF_TEMPLATE, USERNAME_TEMPLATE } from './template';
import { ImportIdError } from './types';

/** A dynamic role: entries created and deleted from templated LDIF (`<mount>/role/<name>`). */
export const ldapDynamicRole = defineResourceType({
  type: 'ldap_dynamic_role',
  construct: 'LdapDynamicRole',
  doc: 'Creates and deletes directory entries from templated LDIF.',
  fields: [
    mountField('Mount path of the directory engine.'),
    field('name', 'string', 'Role name; may hold "/" (the service lower-cases it).', {
      identity: true, immutable: true, caseInsensitive: true, required: true, format: HIERARCHICAL_NAME, segment: 'hierarchical',
    }),
    field('creation_ldif', 'ldif', 'Templated LDIF that creates the account (plain or base64-encoded).', { required: true, template: LDIF_TEMPLATE }),
    field('deletion_ldif', 'ldif', 'Templated LDIF run when the lease expires.', { required: true, template: LDIF_TEMPLATE }),
    field('rollback_ldif', 'ldif', 'Templated LDIF run if creation fails (recommended).', { serviceDefault: '', template: LDIF_TEMPLATE }),
    field('username_template', 'template', 'Template that produces `.Username` (fields `.RoleName`, `.DisplayName`).', {
      serviceDefault: '', template: USERNAME_TEMPLATE, defaultDoc: '"v_{{.DisplayName}}_{{.RoleName}}_{{random 10}}_{{unix_time}}" (the service\'s)',
    }),
    field('default_ttl', 'duration', 'Lease TTL; at most `maxTtl`.', { serviceDefault: 0, defaultDoc: "0 (the engine's default TTL)" }),
    field('max_ttl', 'duration', "Maximum lease TTL (never longer than the mount's).", { serviceDefault: 0, defaultDoc: "0 (the engine's maximum TTL)" }),
  ],
  // Only the keys sent change; a key sent as "" deletes that value.
  writeSemantics: 'partial-empty-deletes',
  id: (spec) => `${String(spec.mount)}/role/${String(spec.name)}`,
  parseImportId(importId) {
    const match = matchPath(importId, /^(.+?)\/role\/(.+)$/);
    if (!match) throw new ImportIdError('ldap_dynamic_role', importId, '<mount>/role/<name>');
    return { mount: match[1], name: match[2].toLowerCase() };
  },
  api: (spec) => samePathApi(`${String(spec.mount)}/role/${String(spec.name)}`),
  discover: namedInMount('ldap', 'role', 'name', true),
  operations: [
    {
      name: 'creds',
      doc: 'Creates a directory entry from the creation LDIF: username, password and distinguished names.',
      call: (spec) => ({ method: 'GET', path: `${String(spec.mount)}/creds/${String(spec.name)}` }),
      returnsCredentials: true,
      options: [],
    },
  ],
  dependsOn: (spec) => [`${String(spec.mount)}/config`, `sys/mounts/${String(spec.mount)}`],
  // Disabling the secrets engine deletes what is stored under it.
  livesIn: (identity) => [`sys/mounts/${String(identity.mount)}`],
});
