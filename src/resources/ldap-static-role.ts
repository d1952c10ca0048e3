import { defineResourceType, matchPath, samePathApi } from './define';
import { field, mountField } from './field';
import { ImportIdError } from './types';

export const MINIMUM_ROTATION_PERIOD_SECONDS = 5;

/** A static role: an existing directory entry whose password the engine rotates (`<mount>/static-role/<name>`). */
export const ldapStaticRole = defineResourceType({
  type: 'ldap_static_role',
  construct: 'LdapStaticRole',
  doc: 'An existing directory entry whose password the engine rotates.',
  fields: [
    mountField('Mount path of the directory engine.'),
    field('name', 'string', 'Role name; may contain "/" (lower-cased by the server).', { identity: true, immutable: true, caseInsensitive: true, segment: 'hierarchical' }),
    field('username', 'string', 'Existing entry, searched under userdn with userattr.', { immutable: true }),
    field('dn', 'string', 'DN of the entry; takes precedence over username for the search.', { immutable: true }),
    field('rotation_period', 'duration', 'How often the password rotates; at least 5 seconds.'),
    field('skip_import_rotation', 'bool', 'On creation, do not rotate the existing password.', { createOnly: true }),
  ],
  writeSemantics: 'merge',
  id: (spec) => `${spec.mount}/static-role/${spec.name}`,
  parseImportId(importId) {
    const match = matchPath(importId, /^(.+?)\/static-role\/(.+)$/);
    if (!match) throw new ImportIdError('ldap_static_role', importId, '<mount>/static-role/<name>');
    return { mount: match[1], name: match[2].toLowerCase() };
  },
  api: (spec) => samePathApi(`${spec.mount}/static-role/${spec.name}`, {
    rotate: { method: 'POST', path: `${spec.mount}/rotate-role/${spec.name}` },
    credentials: { method: 'GET', path: `${spec.mount}/static-cred/${spec.name}` },
  }),
  dependsOn: (spec) => [`${spec.mount}/config`, `sys/mounts/${spec.mount}`],
});
