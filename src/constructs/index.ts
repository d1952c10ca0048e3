/** The constructs of secretform, one file per area. */
export { SecretformResource } from './resource';
export type { ResourceOptions } from './resource-options';
export { desiredFromStack } from './desired-from-stack';
export { SecretsMount, AuthMount, SECRETS_ENGINE_TYPES, AUTH_METHOD_TYPES } from './mounts';
export type { SecretsMountProps, AuthMountProps } from './mounts';
export { CloudSecretBackend, CloudSecretRole, SIGN_IN_AUDIENCES } from './cloud';
export type { CloudSecretBackendProps, CloudSecretRoleProps, CloudRoleAssignment, CloudGroupMembership } from './cloud';
export { UserpassUser, TOKEN_TYPES } from './userpass';
export type { UserpassUserProps } from './userpass';
export { SyncConfig, SyncAssociation } from './sync';
export type { SyncConfigProps, SyncAssociationProps } from './sync';
export { SyncGithubApp } from './sync-github-app';
export type { SyncGithubAppProps } from './sync-github-app';
export {
  SyncDestination, SyncCloud1SmDestination, SyncCloud2KvDestination, SyncCloud3SmDestination, SyncRepohostDestination, SyncWebhostProjectDestination,
} from './sync-destinations';
export type {
  SyncDestinationBaseProps, SyncCloudDestinationProps, SyncCloud1SmDestinationProps, SyncCloud2KvDestinationProps, SyncCloud3SmDestinationProps,
  SyncRepohostDestinationProps, SyncWebhostProjectDestinationProps,
} from './sync-destinations';
export { LdapSecretBackend, LdapStaticRole, LdapDynamicRole, LdapLibrarySet } from './ldap';
export type { LdapSecretBackendProps, LdapStaticRoleProps, LdapDynamicRoleProps, LdapLibrarySetProps } from './ldap';
export { configureDeployBridge } from './stack';
export { BRIDGE_RESOURCE_TYPES, DEFAULT_BRIDGE_COMMAND } from './bridge';
export type { DeployBridgeOptions, BridgeResourceType } from './bridge';
export { ServiceConnection, DEFAULT_TOKEN_ENV } from './service-connection';
export type { ServiceConnectionProps } from './service-connection';
