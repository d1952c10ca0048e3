import { defineResourceType, matchPath, samePathApi } from './define';
import { field, mountField } from './field';
import { ImportIdError } from './types';

/** A library set: service accounts checked out and in (`<mount>/library/<name>`). */
export const ldapLibrarySet = defineResourceType({
  type: 'ldap_library_set',
  construct: 'LdapLibrarySet',
  doc: 'Service accounts that can be checked out and in.',
  fields: [
    mountField('Mount path of the directory engine.'),
    field('name', 'string', 'Set name; may contain "/" (lower-cased by the server).', { identity: true, immutable: true, caseInsensitive: true, segment: 'hierarchical' }),
    field('service_account_names', 'stringList', 'Accounts that can be checked out; each in at most one set.', { unordered: true }),
    field('ttl', 'duration', 'Maximum length of one check-out; 0 is unlimited.', { serviceDefault: 86400 }),
    field('max_ttl', 'duration', 'Maximum length of a check-out with renewals; 0 is unlimited.', { serviceDefault: 86400 }),
    field('disable_check_in_enforcement', 'bool', 'Allow check-in by anyone, not only the borrower.', { serviceDefault: false }),
  ],
  writeSemantics: 'merge',
  id: (spec) => `${spec.mount}/library/${spec.name}`,
  parseImportId(importId) {
    const match = matchPath(importId, /^(.+?)\/library\/(?!manage\/)(.+)$/);
    if (!match) throw new ImportIdError('ldap_library_set', importId, '<mount>/library/<name>');
    return { mount: match[1], name: match[2].toLowerCase() };
  },
  api: (spec) => samePathApi(`${spec.mount}/library/${spec.name}`, {
    status: { method: 'GET', path: `${spec.mount}/library/${spec.name}/status` },
    checkOut: { method: 'POST', path: `${spec.mount}/library/${spec.name}/check-out` },
    checkIn: { method: 'POST', path: `${spec.mount}/library/${spec.name}/check-in` },
    manageCheckIn: { method: 'POST', path: `${spec.mount}/library/manage/${spec.name}/check-in` },
  }),
  dependsOn: (spec) => [`${spec.mount}/config`, `sys/mounts/${spec.mount}`],
});
