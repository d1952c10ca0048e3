import { namedInMount } from './discovery';
import { compareJson, defineResourceType, isPlainObject, matchPath, samePathApi } from './define';
import { field, mountField } from './field';
import { NO_COMMA, SEGMENT_NAME } from './formats';
import { ImportIdError, type Attributes } from './types';

export const SIGN_IN_AUDIENCES = ['CloudADMyOrg', 'CloudADMultipleOrgs', 'CloudADandPersonalAccount', 'PersonalAccount'] as const;

/** A role of the cloud credential engine (`<mount>/roles/<name>`). */
export const cloudSecretRole = defineResourceType({
  type: 'cloud_secret_role',
  construct: 'CloudSecretRole',
  doc: 'A role that issues cloud service principals.',
  fields: [
    mountField('Mount path of the cloud engine.'),
    field('name', 'string', 'Role name (the service lower-cases it).', {
      identity: true, immutable: true, caseInsensitive: true, required: true, format: SEGMENT_NAME, segment: 'single',
    }),
    field('cloud_roles', 'objectList', 'Roles assigned to generated principals. A role needs `cloudRoles` or `applicationObjectId`.', {
      wire: 'json-string', unordered: true, elementKeys: ['role_id', 'role_name', 'scope'], serviceDefault: [],
      elementName: 'CloudRoleAssignment',
      members: [
        field('scope', 'string', 'Scope of the assignment, e.g. `/subscriptions/<id>/resourceGroups/<group>`.', { required: true }),
        field('role_name', 'string', 'Role name; exactly one of `roleName` and `roleId`.'),
        field('role_id', 'string', 'Full role-definition identifier; exactly one of `roleName` and `roleId`.'),
      ],
    }),
    field('cloud_groups', 'objectList', 'Groups generated principals join.', {
      wire: 'json-string', unordered: true, elementKeys: ['group_name', 'object_id'], serviceDefault: [],
      elementName: 'CloudGroupMembership',
      members: [field('group_name', 'string', 'Name of the group generated principals join.', { required: true })],
    }),
    field('application_object_id', 'string', 'Object id of an existing principal to use instead of dynamic ones (then `cloudRoles` is ignored).', {
      serviceDefault: '',
    }),
    field('persist_app', 'bool', 'Keep the created principal and application for the lifetime of the role.', { serviceDefault: false }),
    field('ttl', 'duration', 'Default TTL of generated principals; at most `maxTtl`.', { serviceDefault: 0, defaultDoc: "0 (the engine's default TTL)" }),
    field('max_ttl', 'duration', 'Maximum TTL of generated principals.', { serviceDefault: 0, defaultDoc: "0 (the engine's maximum TTL)" }),
    field('explicit_max_ttl', 'duration', 'Hard cap on the lifetime of generated principals.', { serviceDefault: 0, defaultDoc: '0 (none)' }),
    field('permanently_delete', 'bool', 'Permanently delete dynamically created applications; must be false with `applicationObjectId`.', {
      serviceDefault: false,
    }),
    field('sign_in_audience', 'string', 'Principal types allowed to sign in.', {
      serviceDefault: '', allowed: SIGN_IN_AUDIENCES, defaultDoc: "none (the service's default)",
    }),
    field('tags', 'stringList', 'Tags attached to the application (no commas: the service takes them comma-separated).', {
      wire: 'comma-string', unordered: true, serviceDefault: [], format: NO_COMMA,
    }),
  ],
  writeSemantics: 'merge',
  id: (spec) => `${String(spec.mount)}/roles/${String(spec.name)}`,
  parseImportId(importId) {
    const match = matchPath(importId, /^(.+)\/roles\/([^/]+)$/);
    if (!match) throw new ImportIdError('cloud_secret_role', importId, '<mount>/roles/<name>');
    return { mount: match[1], name: match[2].toLowerCase() };
  },
  api: (spec) => samePathApi(`${String(spec.mount)}/roles/${String(spec.name)}`),
  discover: {
    ...namedInMount('cloud', 'roles', 'name', false),
    // A role assignment holds a role name or a role id; the server reports both when given the name.
    asWritten: (live) => ({ ...live, cloud_roles: Array.isArray(live.cloud_roles) ? live.cloud_roles.map(oneRoleKey) : live.cloud_roles }),
  },
  operations: [
    {
      name: 'creds',
      doc: 'Generates a service principal of the role: client_id and client_secret.',
      call: (spec) => ({ method: 'GET', path: `${String(spec.mount)}/creds/${String(spec.name)}` }),
      returnsCredentials: true,
      options: [],
    },
  ],
  dependsOn: (spec) => [`${String(spec.mount)}/config`, `sys/mounts/${String(spec.mount)}`],
  // Disabling the secrets engine deletes what is stored under it.
  livesIn: (identity) => [`sys/mounts/${String(identity.mount)}`],
  alignWithDesired(read, desired) {
    const aligned = { ...read };
    aligned.cloud_roles = projectElements(read.cloud_roles, desired.cloud_roles, ['role_name', 'role_id']);
    aligned.cloud_groups = projectElements(read.cloud_groups, desired.cloud_groups, ['group_name', 'object_id']);
    if (aligned.cloud_roles === undefined) delete aligned.cloud_roles;
    if (aligned.cloud_groups === undefined) delete aligned.cloud_groups;
    return aligned;
  },
});

/**
 * The server fills in the equivalent key a list element was not given (a role given by name is read back with
 * its id too). Keep, of each read element that matches a desired one, only the keys the desired one has.
 */
function projectElements(read: unknown, desired: unknown, alternatives: string[]): unknown {
  if (!Array.isArray(read) || !Array.isArray(desired)) return read;
  const projected = read.map((element: unknown) => {
    if (!isPlainObject(element)) return element;
    const match = desired.find(
      (wanted) => isPlainObject(wanted) && alternatives.some((key) => wanted[key] !== undefined && wanted[key] === element[key])
        && (wanted.scope === undefined || wanted.scope === element.scope),
    ) as Attributes | undefined;
    if (!match) return element;
    const kept: Attributes = {};
    for (const key of Object.keys(element)) {
      if (!alternatives.includes(key) || match[key] !== undefined) kept[key] = element[key];
    }
    return kept;
  });
  return projected.sort(compareJson);
}

function oneRoleKey(element: unknown): unknown {
  if (!isPlainObject(element) || element.role_name === undefined || element.role_id === undefined) return element;
  const { role_id: _roleId, ...named } = element;
  return named;
}
