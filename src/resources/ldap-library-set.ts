import { namedInMount } from './discovery';
import { defineResourceType, matchPath, samePathApi } from './define';
import { field, mountField } from './field';
import { HIERARCHICAL_NAME } from './formats';
import { ImportIdError } from './types';

/** A library set: service accounts checked out and in (`<mount>/library/<name>`). */
export const ldapLibrarySet = defineResourceType({
  type: 'ldap_library_set',
  construct: 'LdapLibrarySet',
  doc: 'Service accounts that can be checked out and in.',
  fields: [
    mountField('Mount path of the directory engine.'),
    field('name', 'string', 'Set name; may hold "/" (the service lower-cases it).', {
      identity: true, immutable: true, caseInsensitive: true, required: true, format: HIERARCHICAL_NAME, segment: 'hierarchical',
    }),
    // The directory finds accounts ignoring case, so `SVC-1` and `svc-1` are one account (stored as given).
    field('service_account_names', 'stringList', 'Accounts that can be checked out: at least one; each in at most one set of the mount.', {
      unordered: true, required: true, nonEmpty: true, unique: 'account', matchesIgnoringCase: true,
    }),
    field('ttl', 'duration', 'Maximum length of one check-out; 0 is unlimited; at most `maxTtl`.', { serviceDefault: 86400 }),
    field('max_ttl', 'duration', 'Maximum length of a check-out including renewals; 0 is unlimited.', { serviceDefault: 86400 }),
    field('disable_check_in_enforcement', 'bool', 'Allow check-in by anyone, not only the borrower.', { serviceDefault: false }),
  ],
  writeSemantics: 'merge',
  id: (spec) => `${String(spec.mount)}/library/${String(spec.name)}`,
  parseImportId(importId) {
    const match = matchPath(importId, /^(.+?)\/library\/(?!manage\/)(.+)$/);
    if (!match) throw new ImportIdError('ldap_library_set', importId, '<mount>/library/<name>');
    return { mount: match[1], name: match[2].toLowerCase() };
  },
  api: (spec) => samePathApi(`${String(spec.mount)}/library/${String(spec.name)}`),
  discover: namedInMount('ldap', 'library', 'name', true),
  operations: [
    {
      name: 'check-out',
      doc: 'Checks out an available account: its name and password, for the lease duration.',
      call: (spec, input) => ({
        method: 'POST',
        path: `${String(spec.mount)}/library/${String(spec.name)}/check-out`,
        body: input.ttl === undefined ? {} : { ttl: input.ttl },
      }),
      returnsCredentials: true,
      options: ['ttl'],
    },
    {
      name: 'check-in',
      doc: 'Checks accounts back in (only the borrower may, unless enforcement is off or --force takes the manage path).',
      call: (spec, input) => ({
        method: 'POST',
        path: input.force ? `${String(spec.mount)}/library/manage/${String(spec.name)}/check-in` : `${String(spec.mount)}/library/${String(spec.name)}/check-in`,
        body: input.accounts && input.accounts.length > 0 ? { service_account_names: [...input.accounts] } : {},
      }),
      returnsCredentials: false,
      options: ['account', 'force'],
    },
    {
      name: 'status',
      doc: 'Which accounts of the set are available and who borrowed the others.',
      call: (spec) => ({ method: 'GET', path: `${String(spec.mount)}/library/${String(spec.name)}/status` }),
      returnsCredentials: false,
      options: [],
    },
  ],
  dependsOn: (spec) => [`${String(spec.mount)}/config`, `sys/mounts/${String(spec.mount)}`],
  // Disabling the secrets engine deletes what is stored under it.
  livesIn: (identity) => [`sys/mounts/${String(identity.mount)}`],
});
