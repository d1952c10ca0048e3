import { namedInMount } from './discovery';
import { defineResourceType, matchPath, samePathApi } from './define';
import { field, mountField } from './field';
import { HIERARCHICAL_NAME } from './formats';
import { ImportIdError } from './types';

export const MINIMUM_ROTATION_PERIOD_SECONDS = 5;

/** A static role: an existing directory entry whose password the engine rotates (`<mount>/static-role/<name>`). */
export const ldapStaticRole = defineResourceType({
  type: 'ldap_static_role',
  construct: 'LdapStaticRole',
  doc: 'An existing directory entry whose password the engine rotates.',
  fields: [
    mountField('Mount path of the directory engine.'),
    field('name', 'string', 'Role name; may hold "/" to form a hierarchy (the service lower-cases it).', {
      identity: true, immutable: true, caseInsensitive: true, required: true, format: HIERARCHICAL_NAME, segment: 'hierarchical',
    }),
    field('username', 'string', 'Existing entry, searched under `userdn` with `userattr`.', { immutable: true, required: true }),
    field('dn', 'string', 'DN of the entry; takes precedence over `username` for the search.', { immutable: true, defaultDoc: 'found by `username`' }),
    field('rotation_period', 'duration', 'How often the password rotates; at least 5 seconds.', { required: true, minimum: MINIMUM_ROTATION_PERIOD_SECONDS }),
    field('skip_import_rotation', 'bool', "On creation, do not rotate the entry's existing password (sent on creation only).", {
      createOnly: true, defaultDoc: "the backend's `skipStaticRoleImportRotation`",
    }),
  ],
  writeSemantics: 'merge',
  id: (spec) => `${String(spec.mount)}/static-role/${String(spec.name)}`,
  parseImportId(importId) {
    const match = matchPath(importId, /^(.+?)\/static-role\/(.+)$/);
    if (!match) throw new ImportIdError('ldap_static_role', importId, '<mount>/static-role/<name>');
    return { mount: match[1], name: match[2].toLowerCase() };
  },
  api: (spec) => samePathApi(`${String(spec.mount)}/static-role/${String(spec.name)}`),
  discover: { ...namedInMount('ldap', 'static-role', 'name', true), readOnlyKeys: ['last_service_rotation'] },
  operations: [
    {
      name: 'rotate-role',
      doc: "Rotates the entry's password now.",
      call: (spec) => ({ method: 'POST', path: `${String(spec.mount)}/rotate-role/${String(spec.name)}` }),
      returnsCredentials: false,
      options: [],
    },
    {
      name: 'creds',
      doc: "The entry's current password (static credential).",
      call: (spec) => ({ method: 'GET', path: `${String(spec.mount)}/static-cred/${String(spec.name)}` }),
      returnsCredentials: true,
      options: [],
    },
  ],
  dependsOn: (spec) => [`${String(spec.mount)}/config`, `sys/mounts/${String(spec.mount)}`],
  // Disabling the secrets engine deletes what is stored under it.
  livesIn: (identity) => [`sys/mounts/${String(identity.mount)}`],
});
