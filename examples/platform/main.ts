/**
 * The platform team's secrets configuration, as code: one stack, `platform`, using every secretform construct.
 *
 * - a cloud credential engine (`cloud/`) and a role CI assumes to deploy;
 * - userpass logins for the CI system and the on-call engineer;
 * - secret sync: the global settings, a GitHub app, one destination of each of the five types, and the KV v2
 *   secrets (seeded in `secret/` by the teams that own them) each destination receives;
 * - a directory engine (`ldap/`) that rotates two service accounts' passwords, issues short-lived accounts, and
 *   lends a pool of batch accounts.
 *
 * Every credential is a `SecretValue.fromEnv`: secretform resolves it when it plans and applies, so no secret is
 * written to cdktf.out, the state file or a report. `npm start` sets demo values for these variables.
 *
 * In a project of your own the import is `from 'secretform'`; this example lives in the secretform repository
 * and imports the sources directly so that it always runs against the current code.
 */
import { App, TerraformStack } from 'cdktf';
import {
  AuthMount, CloudSecretBackend, CloudSecretRole, LdapDynamicRole, LdapLibrarySet, LdapSecretBackend, LdapStaticRole, SecretValue,
  SyncAssociation, SyncCloud1SmDestination, SyncCloud2KvDestination, SyncCloud3SmDestination, SyncConfig, SyncGithubApp,
  SyncRepohostDestination, SyncWebhostProjectDestination, UserpassUser,
} from '../../src';

const app = new App();
const stack = new TerraformStack(app, 'platform');

// --- Cloud credentials: CI gets short-lived cloud credentials with Contributor rights on the subscription.
const cloud = new CloudSecretBackend(stack, 'cloud', {
  subscriptionId: '6f1c2a9e-0d4b-4c55-9a7e-2b1f3c4d5e6f',
  tenantId: '0e3d9c8b-7a6f-4e5d-8c4b-3a2f1e0d9c8b',
  clientId: 'b1a2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d',
  clientSecret: SecretValue.fromEnv('PLATFORM_CLOUD_CLIENT_SECRET'),
  rootPasswordTtl: '90d',
});
new CloudSecretRole(stack, 'ci-deployer', {
  backend: cloud,
  name: 'ci-deployer',
  cloudRoles: [{ scope: '/subscriptions/6f1c2a9e-0d4b-4c55-9a7e-2b1f3c4d5e6f', roleName: 'Contributor' }],
  cloudGroups: [{ groupName: 'developers' }],
  ttl: '1h',
  maxTtl: '4h',
  tags: ['team:platform', 'purpose:ci'],
});

// --- Logins: the CI system and the on-call engineer.
const userpass = new AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass', description: 'machine and break-glass logins' });
new UserpassUser(stack, 'ci-bot', {
  mount: userpass,
  username: 'ci-bot',
  password: SecretValue.fromEnv('PLATFORM_CI_BOT_PASSWORD'),
  tokenPolicies: ['deployer'],
  tokenTtl: '30m',
  tokenMaxTtl: '1h',
  tokenBoundCidrs: ['10.20.0.0/16'],
});
new UserpassUser(stack, 'on-call', {
  mount: userpass,
  username: 'on-call',
  password: SecretValue.fromEnv('PLATFORM_ON_CALL_PASSWORD'),
  tokenPolicies: ['operator', 'reader'],
  tokenTtl: '8h',
});

// --- Secret sync: copies of KV secrets kept up to date in the places the applications read them from.
new SyncConfig(stack, 'sync-config', { disabled: false, queueCapacity: 10_000 });
const githubApp = new SyncGithubApp(stack, 'github-app', {
  name: 'platform-sync',
  appId: '318042',
  privateKey: SecretValue.fromEnv('PLATFORM_GITHUB_APP_KEY'),
});

const paymentsSecrets = new SyncCloud1SmDestination(stack, 'payments-secrets-manager', {
  name: 'payments-prod',
  accessKeyId: SecretValue.fromEnv('PLATFORM_CLOUD1_ACCESS_KEY_ID'),
  secretAccessKey: SecretValue.fromEnv('PLATFORM_CLOUD1_SECRET_ACCESS_KEY'),
  region: 'eu-west-1',
  customTags: { team: 'payments', 'managed-by': 'secretform' },
  granularity: 'secret-key',
});
const webKeyVault = new SyncCloud2KvDestination(stack, 'web-key-vault', {
  name: 'web-prod',
  keyVaultUri: 'https://web-prod.vault.example.net/',
  clientId: 'c7d8e9f0-1a2b-4c3d-8e4f-5a6b7c8d9e0f',
  clientSecret: SecretValue.fromEnv('PLATFORM_CLOUD2_CLIENT_SECRET'),
  tenantId: '0e3d9c8b-7a6f-4e5d-8c4b-3a2f1e0d9c8b',
  customTags: { team: 'web' },
});
const analyticsSecrets = new SyncCloud3SmDestination(stack, 'analytics-secret-manager', {
  name: 'analytics',
  credentials: SecretValue.fromEnv('PLATFORM_CLOUD3_CREDENTIALS'),
  projectId: 'analytics-prod-4711',
  secretNameTemplate: 'platform_{{ .SecretPath | replace "/" "_" }}',
});
const ciRepository = new SyncRepohostDestination(stack, 'deploy-repository', {
  name: 'deploy-tools',
  app: githubApp,
  installationId: '52731904',
  repositoryOwner: 'example-org',
  repositoryName: 'deploy-tools',
});
const webHosting = new SyncWebhostProjectDestination(stack, 'web-hosting', {
  name: 'storefront',
  accessToken: SecretValue.fromEnv('PLATFORM_WEBHOST_TOKEN'),
  projectId: 'prj_storefront',
  teamId: 'team_example',
  deploymentEnvironments: ['production', 'preview'],
});

new SyncAssociation(stack, 'payments-db-to-secrets-manager', { destination: paymentsSecrets, mount: 'secret', secretName: 'payments/db' });
new SyncAssociation(stack, 'card-api-to-secrets-manager', { destination: paymentsSecrets, mount: 'secret', secretName: 'payments/card-api' });
new SyncAssociation(stack, 'web-session-to-key-vault', { destination: webKeyVault, mount: 'secret', secretName: 'web/session' });
new SyncAssociation(stack, 'warehouse-to-secret-manager', { destination: analyticsSecrets, mount: 'secret', secretName: 'analytics/warehouse' });
new SyncAssociation(stack, 'deploy-key-to-repository', { destination: ciRepository, mount: 'secret', secretName: 'ci/deploy-key' });
new SyncAssociation(stack, 'web-session-to-hosting', { destination: webHosting, mount: 'secret', secretName: 'web/session' });

// --- Directory accounts: rotated service-account passwords, short-lived accounts, and a pool of batch accounts.
const ldap = new LdapSecretBackend(stack, 'ldap', {
  binddn: 'cn=secrets-engine,dc=example,dc=org',
  bindpass: SecretValue.fromEnv('PLATFORM_LDAP_BINDPASS'),
  url: 'ldaps://ldap.example.org:636',
  userdn: 'ou=service-accounts,dc=example,dc=org',
  userattr: 'cn',
  passwordPolicy: 'service-accounts',
  requestTimeout: '30s',
});
new LdapStaticRole(stack, 'svc-payments', { backend: ldap, name: 'svc-payments', username: 'svc-payments', rotationPeriod: '24h' });
new LdapStaticRole(stack, 'svc-web', { backend: ldap, name: 'svc-web', username: 'svc-web', rotationPeriod: '7d' });
new LdapDynamicRole(stack, 'incident-access', {
  backend: ldap,
  name: 'incident-access',
  creationLdif: [
    'dn: cn={{.Username}},ou=dynamic,dc=example,dc=org',
    'objectClass: person',
    'objectClass: top',
    'cn: {{.Username}}',
    'sn: {{.Username}}',
    'userPassword: {{.Password}}',
    '',
  ].join('\n'),
  deletionLdif: 'dn: cn={{.Username}},ou=dynamic,dc=example,dc=org\nchangetype: delete\n',
  usernameTemplate: 'incident_{{random 8}}',
  defaultTtl: '1h',
  maxTtl: '8h',
});
new LdapLibrarySet(stack, 'batch-pool', {
  backend: ldap,
  name: 'batch-pool',
  serviceAccountNames: ['batch-1', 'batch-2', 'batch-3'],
  ttl: '2h',
  maxTtl: '12h',
});

app.synth();
