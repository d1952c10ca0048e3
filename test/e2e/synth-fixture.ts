/**
 * A stack with every secretform construct, shared by the synth tests (in-process `app.synth()` and the real
 * `cdktf synth` command). Secrets come from environment variables and a file whose values the tests then look
 * for, and must not find, in cdktf.out.
 */
import type { Construct } from 'constructs';
import {
  AuthMount, CloudSecretBackend, CloudSecretRole, LdapDynamicRole, LdapLibrarySet, LdapSecretBackend, LdapStaticRole, SecretsMount,
  SecretValue, SyncAssociation, SyncCloud1SmDestination, SyncCloud2KvDestination, SyncCloud3SmDestination, SyncConfig, SyncGithubApp,
  SyncRepohostDestination, SyncWebhostProjectDestination, UserpassUser,
} from '../../src';

/** Secret values the environment of a synth holds: none may appear in the output. */
export const SECRET_ENV: Record<string, string> = {
  SF_CLOUD_CLIENT_SECRET: 'cloud-client-secret-value-7f3a91',
  SF_USER_PASSWORD: 'alice-password-value-c0ffee',
  SF_APP_PRIVATE_KEY: '-----BEGIN RSA PRIVATE KEY-----\nprivate-key-value-51de\n-----END RSA PRIVATE KEY-----',
  SF_CLOUD1_ACCESS_KEY: 'AKIA-access-key-value-9921',
  SF_CLOUD1_SECRET_KEY: 'cloud1-secret-access-key-value-e4e4',
  SF_CLOUD2_CLIENT_SECRET: 'cloud2-client-secret-value-1234',
  SF_REPOHOST_TOKEN: 'ghp_repohost-token-value-abcd',
  SF_WEBHOST_TOKEN: 'webhost-token-value-7777',
  SF_LDAP_BINDPASS: 'ldap-bindpass-value-2b2b',
  SF_LDAP_CLIENT_KEY: 'ldap-client-key-value-3c3c',
};

/** The value held in the file that `SecretValue.fromFile` points at. */
export const SECRET_FILE_VALUE = '{"type":"service_account","private_key":"cloud3-credentials-value-5a5a"}';
export const SECRET_FILE_NAME = 'cloud3-credentials.json';

export const CERTIFICATE = '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUfake\n-----END CERTIFICATE-----\n';

export const CREATION_LDIF = `dn: cn={{.Username}},ou=users,dc=example,dc=org
objectClass: person
objectClass: top
cn: {{.Username}}
sn: {{.Username | uppercase}}
userPassword: {{.Password}}
`;
export const DELETION_LDIF = 'dn: cn={{.Username}},ou=users,dc=example,dc=org\nchangetype: delete\n';

/** Adds every construct to `stack`; returns them by a short name. */
export function addEveryConstruct(stack: Construct) {
  const kv = new SecretsMount(stack, 'kv', { path: 'secret', type: 'kv', options: { version: '2' }, description: 'application secrets' });
  const userpass = new AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass' });
  const cloud = new CloudSecretBackend(stack, 'cloud', {
    subscriptionId: 'sub-1', tenantId: 'tenant-1', clientId: 'client-1', clientSecret: SecretValue.fromEnv('SF_CLOUD_CLIENT_SECRET'),
    rootPasswordTtl: '48d',
  });
  const cloudRole = new CloudSecretRole(stack, 'cloud-role', {
    backend: cloud, name: 'Deployer',
    cloudRoles: [{ scope: '/subscriptions/sub-1', roleName: 'Reader' }, { scope: '/subscriptions/sub-1/rg/x', roleId: '/roleDefinitions/abc' }],
    cloudGroups: [{ groupName: 'ops' }], ttl: '1h', maxTtl: '2h', tags: ['team:ops', 'env:prod'], signInAudience: 'CloudADMyOrg',
  });
  const user = new UserpassUser(stack, 'alice', {
    mount: userpass, username: 'alice', password: SecretValue.fromEnv('SF_USER_PASSWORD'),
    tokenTtl: '1h', tokenMaxTtl: 7200, tokenPolicies: ['default', 'readers'], tokenBoundCidrs: ['10.0.0.0/8', '192.168.1.7'], tokenType: 'batch',
  });
  const syncConfig = new SyncConfig(stack, 'sync-config', { disabled: false, queueCapacity: 5000 });
  const app = new SyncGithubApp(stack, 'gh-app', { name: 'ci-app', appId: '123456', privateKey: SecretValue.fromEnv('SF_APP_PRIVATE_KEY') });
  const cloud1 = new SyncCloud1SmDestination(stack, 'dest-cloud1', {
    name: 'c1', accessKeyId: SecretValue.fromEnv('SF_CLOUD1_ACCESS_KEY'), secretAccessKey: SecretValue.fromEnv('SF_CLOUD1_SECRET_KEY'),
    region: 'eu-west-1', customTags: { team: 'ops' }, granularity: 'secret-key',
  });
  const cloud2 = new SyncCloud2KvDestination(stack, 'dest-cloud2', {
    name: 'c2', keyVaultUri: 'https://vault.example.net/', clientId: 'c2-client', clientSecret: SecretValue.fromEnv('SF_CLOUD2_CLIENT_SECRET'),
    tenantId: 'c2-tenant',
  });
  const cloud3 = new SyncCloud3SmDestination(stack, 'dest-cloud3', {
    name: 'c3', credentials: SecretValue.fromFile(SECRET_FILE_NAME), projectId: 'project-3',
    secretNameTemplate: 'svc_{{ .MountAccessor | lowercase }}_{{ .SecretPath }}',
  });
  const repohost = new SyncRepohostDestination(stack, 'dest-repohost', {
    name: 'gh', app, installationId: '42', repositoryOwner: 'acme', repositoryName: 'web',
  });
  const repohostToken = new SyncRepohostDestination(stack, 'dest-repohost-token', {
    name: 'gh-token', accessToken: SecretValue.fromEnv('SF_REPOHOST_TOKEN'), repositoryOwner: 'acme', repositoryName: 'api',
  });
  const webhost = new SyncWebhostProjectDestination(stack, 'dest-webhost', {
    name: 'web', accessToken: SecretValue.fromEnv('SF_WEBHOST_TOKEN'), projectId: 'prj_1', deploymentEnvironments: ['production', 'preview'],
  });
  const association = new SyncAssociation(stack, 'assoc', { destination: cloud1, mount: kv, secretName: 'app/db' });
  const ldap = new LdapSecretBackend(stack, 'ldap', {
    binddn: 'cn=admin,dc=example,dc=org', bindpass: SecretValue.fromEnv('SF_LDAP_BINDPASS'), url: 'ldaps://ldap.example.org:636',
    userdn: 'ou=users,dc=example,dc=org', schema: 'openldap', requestTimeout: '90s', certificate: CERTIFICATE,
    clientTlsCert: CERTIFICATE, clientTlsKey: SecretValue.fromEnv('SF_LDAP_CLIENT_KEY'), passwordPolicy: 'ldap-policy',
  });
  const staticRole = new LdapStaticRole(stack, 'svc-role', { backend: ldap, name: 'svc', username: 'svc', rotationPeriod: '24h', skipImportRotation: true });
  const dynamicRole = new LdapDynamicRole(stack, 'dyn-role', {
    backend: 'ldap', name: 'temp', creationLdif: CREATION_LDIF, deletionLdif: DELETION_LDIF,
    usernameTemplate: 'v_{{.RoleName}}_{{random 8}}', defaultTtl: '1h', maxTtl: '24h',
  });
  const librarySet = new LdapLibrarySet(stack, 'library', { backend: ldap, name: 'pool', serviceAccountNames: ['svc-a', 'svc-b'], ttl: '10h', maxTtl: '20h' });
  return {
    kv, userpass, cloud, cloudRole, user, syncConfig, app, cloud1, cloud2, cloud3, repohost, repohostToken, webhost, association, ldap,
    staticRole, dynamicRole, librarySet,
  };
}
