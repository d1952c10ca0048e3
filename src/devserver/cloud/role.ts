import { optionalDurationSeconds } from '../duration';
import { badRequest } from '../respond';
import type { CloudConfig } from './config';
import { optionalBool, optionalString, optionalStringList } from '../body-fields';
import type { EmulatedCloudProvider } from './provider';

export const SIGN_IN_AUDIENCES = ['CloudADMyOrg', 'CloudADMultipleOrgs', 'CloudADandPersonalAccount', 'PersonalAccount'];

export interface RoleAssignment {
  role_name: string;
  role_id: string;
  scope: string;
}

export interface GroupMembership {
  group_name: string;
  object_id: string;
}

export interface CloudRole {
  ttlSeconds: number;
  maxTtlSeconds: number;
  explicitMaxTtlSeconds: number;
  cloudRoles: RoleAssignment[];
  cloudGroups: GroupMembership[];
  applicationObjectId: string;
  /** The existing application's client id, looked up when `application_object_id` is written. */
  applicationClientId: string;
  permanentlyDelete: boolean;
  persistApp: boolean;
  signInAudience: string;
  tags: string[];
}

const EMPTY_ROLE: CloudRole = {
  ttlSeconds: 0,
  maxTtlSeconds: 0,
  explicitMaxTtlSeconds: 0,
  cloudRoles: [],
  cloudGroups: [],
  applicationObjectId: '',
  applicationClientId: '',
  permanentlyDelete: false,
  persistApp: false,
  signInAudience: '',
  tags: [],
};

/**
 * Applies a `POST roles/:name` body to the stored role (undefined when creating). The update is partial, like
 * the plugin's: fields not sent keep their values. Role definitions and groups are resolved at the provider
 * (the one of name/id not given is filled in); what does not exist there is a 400.
 */
export function applyRoleWrite(
  existing: CloudRole | undefined,
  body: Record<string, unknown>,
  requireConfig: () => CloudConfig,
  provider: EmulatedCloudProvider,
): CloudRole {
  // Every field's type is checked before the configuration is needed: like the service's request framework,
  // a body of the wrong types is a 400 whether or not the engine is configured yet.
  const role: CloudRole = { ...(existing ?? EMPTY_ROLE) };
  role.ttlSeconds = optionalDurationSeconds(body.ttl, 'ttl') ?? role.ttlSeconds;
  role.maxTtlSeconds = optionalDurationSeconds(body.max_ttl, 'max_ttl') ?? role.maxTtlSeconds;
  role.explicitMaxTtlSeconds = optionalDurationSeconds(body.explicit_max_ttl, 'explicit_max_ttl') ?? role.explicitMaxTtlSeconds;
  role.permanentlyDelete = optionalBool(body, 'permanently_delete') ?? role.permanentlyDelete;
  role.persistApp = optionalBool(body, 'persist_app') ?? role.persistApp;
  role.signInAudience = optionalString(body, 'sign_in_audience') ?? role.signInAudience;
  role.tags = optionalStringList(body, 'tags') ?? role.tags;
  const cloudRoles = parseJsonList(body, 'cloud_roles');
  const cloudGroups = parseJsonList(body, 'cloud_groups');
  const applicationObjectId = optionalString(body, 'application_object_id');

  const config = requireConfig();
  if (cloudRoles !== undefined) role.cloudRoles = resolveRoleAssignments(cloudRoles, config, provider);
  if (cloudGroups !== undefined) role.cloudGroups = resolveGroupMemberships(cloudGroups, provider);
  if (applicationObjectId !== undefined) {
    role.applicationObjectId = applicationObjectId.trim();
    role.applicationClientId = '';
    if (role.applicationObjectId !== '') {
      const app = provider.existingApplication(role.applicationObjectId);
      if (!app) throw badRequest(`unable to find application with object id "${role.applicationObjectId}"`);
      role.applicationClientId = app.clientId;
    }
  }

  validateRole(role);
  return role;
}

function validateRole(role: CloudRole): void {
  if (role.applicationObjectId === '' && role.cloudRoles.length === 0 && role.cloudGroups.length === 0) {
    throw badRequest('either cloud_roles, cloud_groups or application_object_id must be provided');
  }
  if (role.applicationObjectId !== '' && role.permanentlyDelete) {
    throw badRequest('permanently_delete must be false if application_object_id is provided');
  }
  if (role.ttlSeconds > 0 && role.maxTtlSeconds > 0 && role.ttlSeconds > role.maxTtlSeconds) {
    throw badRequest('ttl cannot be greater than max_ttl');
  }
  if (role.explicitMaxTtlSeconds > 0 && role.ttlSeconds > role.explicitMaxTtlSeconds) {
    throw badRequest('ttl cannot be greater than explicit_max_ttl');
  }
  if (role.explicitMaxTtlSeconds > 0 && role.maxTtlSeconds > role.explicitMaxTtlSeconds) {
    throw badRequest('max_ttl cannot be greater than explicit_max_ttl');
  }
  if (role.signInAudience !== '' && !SIGN_IN_AUDIENCES.includes(role.signInAudience)) {
    throw badRequest(
      `invalid sign_in_audience ${JSON.stringify(role.signInAudience)}: allowed are ${SIGN_IN_AUDIENCES.join(', ')}`,
    );
  }
}

/** `cloud_roles` / `cloud_groups`: a JSON array serialized as a string (`""` = empty), or a real array. */
function parseJsonList(body: Record<string, unknown>, field: string): Record<string, unknown>[] | undefined {
  const raw = body[field];
  if (raw === undefined || raw === null) return undefined;
  let value: unknown = raw;
  if (typeof raw === 'string') {
    if (raw.trim() === '') return [];
    try {
      value = JSON.parse(raw);
    } catch (error) {
      throw badRequest(`invalid ${field}: not a JSON array (${(error as Error).message})`);
    }
  }
  if (!Array.isArray(value)) throw badRequest(`invalid ${field}: expected a JSON array of objects`);
  value.forEach((element, index) => {
    if (typeof element !== 'object' || element === null || Array.isArray(element)) {
      throw badRequest(`invalid ${field}: element ${index} is not an object`);
    }
  });
  return value as Record<string, unknown>[];
}

function elementString(element: Record<string, unknown>, key: string, where: string): string {
  const value = element[key];
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw badRequest(`invalid ${where}: "${key}" must be a string`);
  return value.trim();
}

function resolveRoleAssignments(
  elements: Record<string, unknown>[],
  config: CloudConfig,
  provider: EmulatedCloudProvider,
): RoleAssignment[] {
  const seen = new Set<string>();
  return elements.map((element, index) => {
    const where = `cloud_roles[${index}]`;
    const scope = elementString(element, 'scope', where);
    const roleId = elementString(element, 'role_id', where);
    const roleName = elementString(element, 'role_name', where);
    if (scope === '') throw badRequest(`invalid ${where}: "scope" is required`);
    if (roleId === '' && roleName === '') throw badRequest(`invalid ${where}: "role_name" or "role_id" is required`);
    // As in the plugin, an id wins over a name: the name is then replaced by the definition's own.
    const definition =
      roleId !== '' ? provider.roleDefinitionById(roleId) : provider.roleDefinitionByName(config.subscriptionId, roleName);
    if (!definition) {
      throw badRequest(roleId !== '' ? `unable to find role with id "${roleId}"` : `unable to find role "${roleName}"`);
    }
    const key = `${definition.roleId.toLowerCase()} ${scope}`;
    if (seen.has(key)) throw badRequest(`duplicate role_id and scope: ${definition.roleId}, ${scope}`);
    seen.add(key);
    return { role_name: definition.roleName, role_id: definition.roleId, scope };
  });
}

function resolveGroupMemberships(elements: Record<string, unknown>[], provider: EmulatedCloudProvider): GroupMembership[] {
  const seen = new Set<string>();
  return elements.map((element, index) => {
    const where = `cloud_groups[${index}]`;
    const objectId = elementString(element, 'object_id', where);
    const groupName = elementString(element, 'group_name', where);
    if (objectId === '' && groupName === '') throw badRequest(`invalid ${where}: "group_name" or "object_id" is required`);
    const group = objectId !== '' ? provider.groupByObjectId(objectId) : provider.groupByName(groupName);
    if (!group) {
      throw badRequest(objectId !== '' ? `unable to find group with object id "${objectId}"` : `unable to find group "${groupName}"`);
    }
    if (seen.has(group.objectId)) throw badRequest(`duplicate object_id: ${group.objectId}`);
    seen.add(group.objectId);
    return { group_name: group.groupName, object_id: group.objectId };
  });
}

/** `GET roles/:name` data: durations in int seconds, roles and groups as arrays, tags as an array. */
export function roleReadData(role: CloudRole): Record<string, unknown> {
  return {
    ttl: role.ttlSeconds,
    max_ttl: role.maxTtlSeconds,
    explicit_max_ttl: role.explicitMaxTtlSeconds,
    cloud_roles: role.cloudRoles,
    cloud_groups: role.cloudGroups,
    application_object_id: role.applicationObjectId,
    permanently_delete: role.permanentlyDelete,
    persist_app: role.persistApp,
    sign_in_audience: role.signInAudience,
    tags: role.tags,
  };
}
