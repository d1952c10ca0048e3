/** Every resource type secretform manages, by type name and by construct name. */
import { authMount } from './auth-mount';
import { cloudSecretBackend } from './cloud-secret-backend';
import { cloudSecretRole } from './cloud-secret-role';
import { ldapDynamicRole } from './ldap-dynamic-role';
import { ldapLibrarySet } from './ldap-library-set';
import { ldapSecretBackend } from './ldap-secret-backend';
import { ldapStaticRole } from './ldap-static-role';
import { secretsMount } from './secrets-mount';
import { syncAssociation } from './sync-association';
import { syncConfig } from './sync-config';
import { syncDestinationCloud1Sm } from './sync-destination-cloud1-sm';
import { syncDestinationCloud2Kv } from './sync-destination-cloud2-kv';
import { syncDestinationCloud3Sm } from './sync-destination-cloud3-sm';
import { syncDestinationRepohost } from './sync-destination-repohost';
import { syncDestinationWebhostProject } from './sync-destination-webhost-project';
import { syncGithubApp } from './sync-github-app';
import { userpassUser } from './userpass-user';
import type { ResourceType } from './types';

export const RESOURCE_TYPES: readonly ResourceType[] = [
  secretsMount,
  authMount,
  cloudSecretBackend,
  cloudSecretRole,
  userpassUser,
  syncConfig,
  syncGithubApp,
  syncDestinationCloud1Sm,
  syncDestinationCloud2Kv,
  syncDestinationCloud3Sm,
  syncDestinationRepohost,
  syncDestinationWebhostProject,
  syncAssociation,
  ldapSecretBackend,
  ldapStaticRole,
  ldapDynamicRole,
  ldapLibrarySet,
];

const BY_TYPE = new Map(RESOURCE_TYPES.map((resourceType) => [resourceType.type, resourceType]));
const BY_CONSTRUCT = new Map(RESOURCE_TYPES.map((resourceType) => [resourceType.construct, resourceType]));

export function allResourceTypes(): readonly ResourceType[] {
  return RESOURCE_TYPES;
}

/** The resource type of that name; throws naming the known types when there is none. */
export function getResourceType(type: string): ResourceType {
  const found = BY_TYPE.get(type);
  if (!found) throw new Error(`unknown resource type "${type}"; known types: ${[...BY_TYPE.keys()].join(', ')}`);
  return found;
}

export function findResourceType(type: string): ResourceType | undefined {
  return BY_TYPE.get(type);
}

export function resourceTypeOfConstruct(constructName: string): ResourceType | undefined {
  return BY_CONSTRUCT.get(constructName);
}
