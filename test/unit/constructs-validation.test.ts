import * as fs from 'node:fs';
import { App, TerraformStack } from 'cdktf';
import {
  AuthMount, CloudSecretBackend, CloudSecretRole, LdapDynamicRole, LdapLibrarySet, LdapSecretBackend, LdapStaticRole, SecretsMount, SecretValue,
  SyncAssociation, SyncCloud1SmDestination, SyncCloud2KvDestination, SyncCloud3SmDestination, SyncConfig, SyncGithubApp, SyncRepohostDestination,
  SyncWebhostProjectDestination, UserpassUser,
} from '../../src';
import { validateStack } from '../../src/testing';
import { tempDir } from '../support/temp-dir';

const tempDirs: string[] = [];
afterAll(() => tempDirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

/** Builds a stack, runs the real app.synth() and returns the validation error message (fails if synth passes). */
function synthError(build: (stack: TerraformStack, app: App) => void): string {
  const outdir = tempDir('secretform-validation-');
  tempDirs.push(outdir);
  const app = new App({ outdir });
  const stack = new TerraformStack(app, 'prod');
  build(stack, app);
  try {
    app.synth();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('synth succeeded, but a validation error was expected');
}

const secret = (name = 'SECRET') => SecretValue.fromEnv(name);
const ldapBackend = (stack: TerraformStack, extra: Record<string, unknown> = {}) =>
  new LdapSecretBackend(stack, 'ldap', { binddn: 'cn=admin,dc=example,dc=org', bindpass: secret('BINDPASS'), ...extra });
const cloudBackend = (stack: TerraformStack) =>
  new CloudSecretBackend(stack, 'cloud', { subscriptionId: 's', tenantId: 't', clientId: 'c', clientSecret: secret('CLIENT_SECRET') });
const user = (stack: TerraformStack, props: Record<string, unknown>) =>
  new UserpassUser(stack, 'alice', { username: 'alice', password: secret('PW'), ...props });
const role = (stack: TerraformStack, props: Record<string, unknown>) =>
  new CloudSecretRole(stack, 'role', { backend: 'cloud', name: 'r', cloudRoles: [{ scope: '/s', roleName: 'Reader' }], ...props });
const ldif = 'dn: cn={{.Username}},dc=example,dc=org\nobjectClass: person\ncn: {{.Username}}\n';
const dynamicRole = (stack: TerraformStack, props: Record<string, unknown>) =>
  new LdapDynamicRole(stack, 'dyn', { backend: 'ldap', name: 'd', creationLdif: ldif, deletionLdif: ldif, ...props });

/** [rule, build, the message's expected start (path and prop), a fragment of "what is allowed"] */
const cases: Array<[string, (stack: TerraformStack) => void, string, string | RegExp]> = [
  // userpass
  ['username with a character outside the allowed set', (s) => user(s, { username: 'al ice' }), 'prod/alice: username: received "al ice"', 'letters, digits, "_", "-" and "." only'],
  ['username starting with "-"', (s) => user(s, { username: '-alice' }), 'prod/alice: username: received "-alice"', 'must not begin with "-"'],
  ['username starting with "."', (s) => user(s, { username: '.alice' }), 'prod/alice: username: received ".alice"', 'must not begin or end with "."'],
  ['username ending with "."', (s) => user(s, { username: 'alice.' }), 'prod/alice: username: received "alice."', 'must not begin or end with "."'],
  ['both password and passwordHash', (s) => user(s, { passwordHash: secret('HASH') }), 'prod/alice: password, passwordHash: received', 'exactly one of password, passwordHash'],
  ['neither password nor passwordHash', (s) => user(s, { password: undefined }), 'prod/alice: password | passwordHash: received nothing', 'exactly one of password, passwordHash'],
  ['password given as a plain string', (s) => user(s, { password: 'hunter2' }), 'prod/alice: password: received (sensitive)', 'a SecretValue'],
  ['tokenType outside service/batch/default', (s) => user(s, { tokenType: 'default-batch' }), 'prod/alice: tokenType: received "default-batch"', 'allowed values: "service", "batch", "default"'],
  ['a CIDR with a prefix beyond 32', (s) => user(s, { tokenBoundCidrs: ['10.0.0.0/33'] }), 'prod/alice: tokenBoundCidrs[0]: received "10.0.0.0/33"', 'a CIDR block'],
  ['a CIDR that is no address', (s) => user(s, { tokenBoundCidrs: ['10.0.0.0/8', 'office'] }), 'prod/alice: tokenBoundCidrs[1]: received "office"', 'a CIDR block'],
  ['a duration that does not parse', (s) => user(s, { tokenTtl: 'soon' }), 'prod/alice: tokenTtl: received "soon"', 'a duration'],
  ['a negative duration', (s) => user(s, { tokenPeriod: -5 }), 'prod/alice: tokenPeriod: received -5', 'a duration'],
  ['tokenTtl above tokenMaxTtl', (s) => user(s, { tokenTtl: '2h', tokenMaxTtl: '1h' }), 'prod/alice: tokenTtl: received "2h"', 'must not exceed tokenMaxTtl'],
  ['tokenNumUses negative', (s) => user(s, { tokenNumUses: -1 }), 'prod/alice: tokenNumUses: received -1', 'must be >= 0'],
  // cloud engine
  ['clientSecret together with identityTokenAudience', (s) => new CloudSecretBackend(s, 'cloud', { subscriptionId: 's', tenantId: 't', clientId: 'c', clientSecret: secret(), identityTokenAudience: 'aud' }),
    'prod/cloud: clientSecret, identityTokenAudience: received', 'exactly one of clientSecret, identityTokenAudience'],
  ['neither clientSecret nor identityTokenAudience', (s) => new CloudSecretBackend(s, 'cloud', { subscriptionId: 's', tenantId: 't' }),
    'prod/cloud: clientSecret | identityTokenAudience: received nothing', 'exactly one of clientSecret, identityTokenAudience'],
  ['clientSecret without clientId', (s) => new CloudSecretBackend(s, 'cloud', { subscriptionId: 's', tenantId: 't', clientSecret: secret() }),
    'prod/cloud: clientId: received nothing', 'required with clientSecret'],
  ['a missing subscriptionId', (s) => new CloudSecretBackend(s, 'cloud', { tenantId: 't', identityTokenAudience: 'a' } as never),
    'prod/cloud: subscriptionId: received nothing', 'required: expected a string'],
  ['rootPasswordTtl that is no duration', (s) => new CloudSecretBackend(s, 'cloud', { subscriptionId: 's', tenantId: 't', identityTokenAudience: 'a', rootPasswordTtl: '6 months' }),
    'prod/cloud: rootPasswordTtl: received "6 months"', 'a duration'],
  ['a role without cloudRoles or applicationObjectId', (s) => role(s, { cloudRoles: undefined }), 'prod/role: cloudRoles | applicationObjectId: received nothing', 'a role needs cloudRoles'],
  ['a role with an empty cloudRoles list', (s) => role(s, { cloudRoles: [] }), 'prod/role: cloudRoles | applicationObjectId: received []', 'a role needs cloudRoles'],
  ['a role element without scope', (s) => role(s, { cloudRoles: [{ roleName: 'Reader' }] }), 'prod/role: cloudRoles[0].scope: received nothing', 'required'],
  ['a role element with both roleName and roleId', (s) => role(s, { cloudRoles: [{ scope: '/s', roleName: 'Reader', roleId: '/r/1' }] }),
    'prod/role: cloudRoles[0]: received', 'exactly one of roleName and roleId'],
  ['a role element with neither roleName nor roleId', (s) => role(s, { cloudRoles: [{ scope: '/s' }] }), 'prod/role: cloudRoles[0]: received {"scope":"/s"}', 'exactly one of roleName and roleId'],
  ['permanentlyDelete with applicationObjectId', (s) => role(s, { applicationObjectId: 'obj', permanentlyDelete: true }), 'prod/role: permanentlyDelete: received true', 'must be false when applicationObjectId is set'],
  ['a signInAudience outside the allowed values', (s) => role(s, { signInAudience: 'Everyone' }), 'prod/role: signInAudience: received "Everyone"', 'allowed values: "CloudADMyOrg"'],
  ['a role ttl above maxTtl', (s) => role(s, { ttl: '3h', maxTtl: 3600 }), 'prod/role: ttl: received "3h"', 'must not exceed maxTtl'],
  ['a tag holding a comma', (s) => role(s, { tags: ['a,b'] }), 'prod/role: tags[0]: received "a,b"', 'without ","'],
  ['a backend that is neither a construct nor a path', (s) => role(s, { backend: 42 }), 'prod/role: backend: received 42', 'a CloudSecretBackend construct, or its mount path'],
  ['a role name with "/"', (s) => role(s, { name: 'a/b' }), 'prod/role: name: received "a/b"', 'no "/"'],
  // sync
  ['queueCapacity of 0', (s) => new SyncConfig(s, 'sync', { queueCapacity: 0 }), 'prod/sync: queueCapacity: received 0', 'must be >= 1'],
  ['an appId that is not digits', (s) => new SyncGithubApp(s, 'app', { name: 'a', appId: 'abc', privateKey: secret() }), 'prod/app: appId: received "abc"', 'digits'],
  ['customTags on a repohost destination', (s) => new SyncRepohostDestination(s, 'gh', { name: 'gh', accessToken: secret(), repositoryOwner: 'o', repositoryName: 'r', customTags: { a: 'b' } } as never),
    'prod/gh: customTags: received {"a":"b"}', 'accepted by cloud1-sm, cloud2-kv and cloud3-sm destinations only'],
  ['customTags on a webhost-project destination', (s) => new SyncWebhostProjectDestination(s, 'web', { name: 'w', accessToken: secret(), projectId: 'p', deploymentEnvironments: ['preview'], customTags: { a: 'b' } } as never),
    'prod/web: customTags: received {"a":"b"}', 'accepted by cloud1-sm, cloud2-kv and cloud3-sm destinations only'],
  ['a granularity other than secret-path or secret-key', (s) => new SyncCloud3SmDestination(s, 'c3', { name: 'c3', credentials: secret(), granularity: 'secret-everything' as never }),
    'prod/c3: granularity: received "secret-everything"', 'allowed values: "secret-path", "secret-key"'],
  ['empty deploymentEnvironments', (s) => new SyncWebhostProjectDestination(s, 'web', { name: 'w', accessToken: secret(), projectId: 'p', deploymentEnvironments: [] }),
    'prod/web: deploymentEnvironments: received []', 'needs at least 1 element'],
  ['a deployment environment outside development/preview/production', (s) => new SyncWebhostProjectDestination(s, 'web', { name: 'w', accessToken: secret(), projectId: 'p', deploymentEnvironments: ['staging' as never] }),
    'prod/web: deploymentEnvironments[0]: received "staging"', 'allowed values: "development", "preview", "production"'],
  ['a repohost destination without accessToken or app', (s) => new SyncRepohostDestination(s, 'gh', { name: 'gh', repositoryOwner: 'o', repositoryName: 'r' }),
    'prod/gh: accessToken | app: received nothing', 'exactly one of accessToken and app'],
  ['a repohost destination with both accessToken and app', (s) => new SyncRepohostDestination(s, 'gh', { name: 'gh', accessToken: secret(), app: 'ci', installationId: '1', repositoryOwner: 'o', repositoryName: 'r' }),
    'prod/gh: accessToken | app: received', 'exactly one of accessToken and app'],
  ['a repohost app without installationId', (s) => new SyncRepohostDestination(s, 'gh', { name: 'gh', app: 'ci', repositoryOwner: 'o', repositoryName: 'r' }),
    'prod/gh: installationId: received nothing', 'required when app is set'],
  ['a repohost destination without repositoryName', (s) => new SyncRepohostDestination(s, 'gh', { name: 'gh', accessToken: secret(), repositoryOwner: 'o' } as never),
    'prod/gh: repositoryName: received nothing', 'required'],
  ['a cloud2-kv destination without keyVaultUri', (s) => new SyncCloud2KvDestination(s, 'c2', { name: 'c2', clientId: 'c', clientSecret: secret(), tenantId: 't' } as never),
    'prod/c2: keyVaultUri: received nothing', 'required'],
  ['a cloud2-kv destination with a non-https keyVaultUri', (s) => new SyncCloud2KvDestination(s, 'c2', { name: 'c2', keyVaultUri: 'vault', clientId: 'c', clientSecret: secret(), tenantId: 't' }),
    'prod/c2: keyVaultUri: received "vault"', 'an https URI'],
  ['a cloud1-sm access key without its secret', (s) => new SyncCloud1SmDestination(s, 'c1', { name: 'c1', accessKeyId: secret() }),
    'prod/c1: secretAccessKey: received nothing', 'accessKeyId and secretAccessKey go together'],
  ['a secret name template that does not parse', (s) => new SyncCloud1SmDestination(s, 'c1', { name: 'c1', secretNameTemplate: 'svc/{{ .SecretPath ' }),
    'prod/c1: secretNameTemplate: received "svc/{{ .SecretPath "', 'a template that parses: unclosed action'],
  ['a secret name template with an unknown function', (s) => new SyncCloud1SmDestination(s, 'c1', { name: 'c1', secretNameTemplate: '{{ .SecretPath | shout }}' }),
    'prod/c1: secretNameTemplate: received', 'unknown function "shout"'],
  ['an association whose destination is not a destination', (s) => new SyncAssociation(s, 'assoc', { destination: 'c1' as never, mount: 'secret', secretName: 'x' }),
    'prod/assoc: destination: received "c1"', 'a sync destination construct'],
  ['an association with an empty secretName', (s) => new SyncAssociation(s, 'assoc', { destination: new SyncCloud1SmDestination(s, 'c1', { name: 'c1' }), mount: 'secret', secretName: '/x/' }),
    'prod/assoc: secretName: received "/x/"', 'a secret path without leading, trailing or double "/"'],
  // directory engine
  ['length together with passwordPolicy', (s) => ldapBackend(s, { length: 20, passwordPolicy: 'p' }), 'prod/ldap: length, passwordPolicy: received {"length":20,"passwordPolicy":"p"}', 'mutually exclusive'],
  ['a schema outside openldap/ad/racf', (s) => ldapBackend(s, { schema: 'novell' }), 'prod/ldap: schema: received "novell"', 'allowed values: "openldap", "ad", "racf"'],
  ['a url that is not ldap:// or ldaps://', (s) => ldapBackend(s, { url: 'ldap://a, http://b' }), 'prod/ldap: url: received "ldap://a, http://b"', 'an ldap:// or ldaps:// URL'],
  ['a certificate that is not PEM', (s) => ldapBackend(s, { certificate: 'not a certificate' }), 'prod/ldap: certificate: received "not a certificate"', 'PEM certificates'],
  ['clientTlsCert without clientTlsKey', (s) => ldapBackend(s, { clientTlsCert: '-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----' }),
    'prod/ldap: clientTlsKey: received nothing', 'clientTlsCert and clientTlsKey go together'],
  ['a missing bindpass', (s) => new LdapSecretBackend(s, 'ldap', { binddn: 'cn=admin' } as never), 'prod/ldap: bindpass: received nothing', 'a SecretValue'],
  ['requestTimeout that is no duration', (s) => ldapBackend(s, { requestTimeout: '90 seconds' }), 'prod/ldap: requestTimeout: received "90 seconds"', 'a duration'],
  ['rotationPeriod under 5 seconds', (s) => new LdapStaticRole(s, 'svc', { backend: 'ldap', name: 'svc', username: 'svc', rotationPeriod: '4s' }),
    'prod/svc: rotationPeriod: received "4s"', 'at least 5 seconds'],
  ['rotationPeriod that is no duration', (s) => new LdapStaticRole(s, 'svc', { backend: 'ldap', name: 'svc', username: 'svc', rotationPeriod: 'daily' }),
    'prod/svc: rotationPeriod: received "daily"', 'a duration'],
  ['a static role without username', (s) => new LdapStaticRole(s, 'svc', { backend: 'ldap', name: 'svc', rotationPeriod: '1h' } as never),
    'prod/svc: username: received nothing', 'required'],
  ['a static role name with a trailing "/"', (s) => new LdapStaticRole(s, 'svc', { backend: 'ldap', name: 'team/', username: 'svc', rotationPeriod: '1h' }),
    'prod/svc: name: received "team/"', 'no leading, trailing or double "/"'],
  ['LDIF without a dn line', (s) => dynamicRole(s, { creationLdif: 'objectClass: person\ncn: x\n' }), 'prod/dyn: creationLdif: received', 'LDIF that parses: entry 1 does not start with a "dn:" line'],
  ['LDIF with a line that is not attribute: value', (s) => dynamicRole(s, { deletionLdif: 'dn: cn=x\nchangetype: delete\nthis is not ldif' }), 'prod/dyn: deletionLdif: received', 'is not "attribute: value"'],
  ['LDIF with an unknown template field', (s) => dynamicRole(s, { creationLdif: 'dn: cn={{.Login}},dc=x\ncn: x\n' }), 'prod/dyn: creationLdif: received', 'unknown field ".Login"'],
  ['LDIF with an unclosed template action', (s) => dynamicRole(s, { rollbackLdif: 'dn: cn={{.Username,dc=x\nchangetype: delete\n' }), 'prod/dyn: rollbackLdif: received', 'unclosed action'],
  ['a username template with a field of LDIF templates only', (s) => dynamicRole(s, { usernameTemplate: 'v_{{.Username}}' }), 'prod/dyn: usernameTemplate: received "v_{{.Username}}"', 'unknown field ".Username"'],
  ['a username template with an unbalanced if', (s) => dynamicRole(s, { usernameTemplate: '{{if .RoleName}}x' }), 'prod/dyn: usernameTemplate: received', 'without a matching {{end}}'],
  ['a dynamic role defaultTtl above maxTtl', (s) => dynamicRole(s, { defaultTtl: '2d', maxTtl: '1d' }), 'prod/dyn: defaultTtl: received "2d"', 'must not exceed maxTtl'],
  ['a library set without accounts', (s) => new LdapLibrarySet(s, 'lib', { backend: 'ldap', name: 'pool', serviceAccountNames: [] }),
    'prod/lib: serviceAccountNames: received []', 'needs at least 1 element'],
  ['a library set naming an account twice', (s) => new LdapLibrarySet(s, 'lib', { backend: 'ldap', name: 'pool', serviceAccountNames: ['a', 'A'] }),
    'prod/lib: serviceAccountNames: received ["a","A"]', 'each account at most once'],
  ['a library set ttl above maxTtl', (s) => new LdapLibrarySet(s, 'lib', { backend: 'ldap', name: 'pool', serviceAccountNames: ['a'], ttl: '2h', maxTtl: '1h' }),
    'prod/lib: ttl: received "2h"', 'must not exceed maxTtl'],
  ['a library set ttl above the default maxTtl', (s) => new LdapLibrarySet(s, 'lib', { backend: 'ldap', name: 'pool', serviceAccountNames: ['a'], ttl: '48h' }),
    'prod/lib: ttl: received "48h"', 'must not exceed the default maxTtl of 24h'],
  // mounts
  ['a mount path with a leading "/"', (s) => new SecretsMount(s, 'kv', { path: '/secret', type: 'kv' }), 'prod/kv: path: received "/secret"', 'without a leading or trailing "/"'],
  ['a secrets engine type outside kv/cloud/ldap', (s) => new SecretsMount(s, 'kv', { path: 'x', type: 'transit' as never }), 'prod/kv: type: received "transit"', 'allowed values: "kv", "cloud", "ldap"'],
  ['options on a non-kv mount', (s) => new SecretsMount(s, 'm', { path: 'x', type: 'ldap', options: { version: '2' } }), 'prod/m: options: received {"version":"2"}', 'taken by type "kv" only'],
  ['an auth method type other than userpass', (s) => new AuthMount(s, 'auth', { path: 'x', type: 'ldap' as never }), 'prod/auth: type: received "ldap"', 'allowed values: "userpass"'],
  ['an unknown prop (a typo from JavaScript)', (s) => new LdapStaticRole(s, 'svc', { backend: 'ldap', name: 'svc', username: 'svc', rotationPeriod: '1h', rotationPeriodd: '2h' } as never),
    'prod/svc: rotationPeriodd: received (sensitive)', 'not a known prop; known props: backend, name, username, dn, rotationPeriod, skipImportRotation, protect, retainOnDelete, ignoreChanges, policyWaivers'],
  // names that become API path segments (issue 9: dot segments reached the wire)
  ['a static role name "../config" (a dot segment)', (s) => new LdapStaticRole(s, 'svc', { backend: 'ldap', name: '../config', username: 'svc', rotationPeriod: '1h' }),
    'prod/svc: name: received "../config"', 'no "." or ".." segment'],
  ['a dynamic role name "a/../b"', (s) => dynamicRole(s, { name: 'a/../b' }), 'prod/dyn: name: received "a/../b"', 'no "." or ".." segment'],
  ['a library set name "./pool"', (s) => new LdapLibrarySet(s, 'lib', { backend: 'ldap', name: './pool', serviceAccountNames: ['a'] }),
    'prod/lib: name: received "./pool"', 'no "." or ".." segment'],
  ['a backend path with a dot segment', (s) => new LdapStaticRole(s, 'svc', { backend: 'ldap/..', name: 'svc', username: 'svc', rotationPeriod: '1h' }),
    'prod/svc: backend: received "ldap/.."', 'no "." or ".." segment'],
  ['a cloud role name ".."', (s) => role(s, { name: '..' }), 'prod/role: name: received ".."', 'not "." or ".."'],
  ['a destination name ".."', (s) => new SyncCloud1SmDestination(s, 'c1', { name: '..' }), 'prod/c1: name: received ".."', 'not "." or ".."'],
  ['a destination name "a/../b"', (s) => new SyncCloud1SmDestination(s, 'c1', { name: 'a/../b' }), 'prod/c1: name: received "a/../b"', 'no "/"'],
  ['a github app name "."', (s) => new SyncGithubApp(s, 'app', { name: '.', appId: '1', privateKey: secret() }), 'prod/app: name: received "."', 'not "." or ".."'],
  ['a repohost app named ".."', (s) => new SyncRepohostDestination(s, 'gh', { name: 'gh', app: '..', installationId: '1', repositoryOwner: 'o', repositoryName: 'r' }),
    'prod/gh: app: received ".."', 'not "." or ".."'],
  ['a username ".."', (s) => user(s, { username: '..' }), 'prod/alice: username: received ".."', 'must not begin or end with "."'],
  ['an association secret path with a dot segment', (s) => new SyncAssociation(s, 'assoc', { destination: new SyncCloud1SmDestination(s, 'c1', { name: 'c1' }), mount: 'secret', secretName: 'app/../db' }),
    'prod/assoc: secretName: received "app/../db"', 'no "." or ".." segment'],
  ['a role name with a newline', (s) => new LdapStaticRole(s, 'svc', { backend: 'ldap', name: 'svc\nx', username: 'svc', rotationPeriod: '1h' }),
    'prod/svc: name: received "svc\\nx"', /no leading, trailing or double "\/"|no control characters/],
  ['a 200,000-character role name', (s) => new LdapStaticRole(s, 'svc', { backend: 'ldap', name: 'a'.repeat(200_000), username: 'svc', rotationPeriod: '1h' }),
    'prod/svc: name: received "aaaa', 'at most 256 characters (received 200000)'],
  ['a 200,000-character destination name', (s) => new SyncCloud1SmDestination(s, 'c1', { name: 'b'.repeat(200_000) }), 'prod/c1: name: received "bbbb', 'at most 256 characters'],
  ['a 257-character user name', (s) => user(s, { username: 'u'.repeat(257) }), 'prod/alice: username: received "uuu', 'at most 256 characters (received 257)'],
  // reserved and malformed mount paths
  ['a secrets mount at "sys"', (s) => new SecretsMount(s, 'kv', { path: 'sys', type: 'kv' }), 'prod/kv: path: received "sys"', 'must not be or start with "sys", "auth", "cubbyhole", "identity", "audit"'],
  ['a secrets mount at "auth"', (s) => new SecretsMount(s, 'kv', { path: 'auth', type: 'kv' }), 'prod/kv: path: received "auth"', 'reserved by the service'],
  ['a secrets mount under "sys/"', (s) => new SecretsMount(s, 'kv', { path: 'sys/kv', type: 'kv' }), 'prod/kv: path: received "sys/kv"', 'reserved by the service'],
  ['a secrets mount at "cubbyhole"', (s) => new SecretsMount(s, 'kv', { path: 'cubbyhole', type: 'kv' }), 'prod/kv: path: received "cubbyhole"', 'reserved by the service'],
  ['a secrets mount at "identity"', (s) => new SecretsMount(s, 'kv', { path: 'identity', type: 'kv' }), 'prod/kv: path: received "identity"', 'reserved by the service'],
  ['a secrets mount at "a/../b"', (s) => new SecretsMount(s, 'kv', { path: 'a/../b', type: 'kv' }), 'prod/kv: path: received "a/../b"', 'no "." or ".." segment'],
  ['an auth method at "token"', (s) => new AuthMount(s, 'auth', { path: 'token', type: 'userpass' }), 'prod/auth: path: received "token"', 'must not be or start with "token"'],
  ['a user of an auth mount at "token"', (s) => user(s, { mount: 'token' }), 'prod/alice: mount: received "token"', 'must not be or start with "token"'],
  ['an engine configuration at "sys"', (s) => new LdapSecretBackend(s, 'ldap', { path: 'sys', manageMount: false, binddn: 'cn=admin', bindpass: secret() }),
    'prod/ldap: path: received "sys"', 'reserved by the service'],
  ['a role of an engine at "sys"', (s) => role(s, { backend: 'sys' }), 'prod/role: backend: received "sys"', 'reserved by the service'],
  ['an association with a mount at "identity"', (s) => new SyncAssociation(s, 'assoc', { destination: new SyncCloud1SmDestination(s, 'c1', { name: 'c1' }), mount: 'identity', secretName: 'x' }),
    'prod/assoc: mount: received "identity"', 'reserved by the service'],
  // templates, durations and numbers the server cannot take
  ['a secret name template with an unknown field', (s) => new SyncCloud1SmDestination(s, 'c1', { name: 'c1', secretNameTemplate: 'svc/{{ .Unknown }}' }),
    'prod/c1: secretNameTemplate: received "svc/{{ .Unknown }}"', /unknown field "\.Unknown" .*; available: \.MountAccessor, \.SecretPath, \.SecretKey/],
  ['a username template with random 100000000', (s) => dynamicRole(s, { usernameTemplate: 'v_{{random 100000000}}' }),
    'prod/dyn: usernameTemplate: received "v_{{random 100000000}}"', '"random N" takes an integer N from 0 to 1024'],
  ['an LDIF template with a piped random 100000000', (s) => dynamicRole(s, { creationLdif: 'dn: cn={{ 100000000 | random }},dc=x\ncn: x\n' }),
    'prod/dyn: creationLdif: received', '"random N" takes an integer N from 0 to 1024'],
  ['a duration beyond what the service holds (string)', (s) => user(s, { tokenTtl: '9223372037s' }), 'prod/alice: tokenTtl: received "9223372037s"', 'at most 9223372036 seconds'],
  ['a duration beyond 2^53 seconds (number)', (s) => user(s, { tokenMaxTtl: 2 ** 60 }), 'prod/alice: tokenMaxTtl: received 1152921504606847000', 'at most 9223372036 seconds'],
  ['a duration of 1e300 seconds', (s) => ldapBackend(s, { requestTimeout: 1e300 }), 'prod/ldap: requestTimeout: received 1e+300', 'at most 9223372036 seconds'],
  ['a duration of 10^6 days', (s) => new LdapLibrarySet(s, 'lib', { backend: 'ldap', name: 'pool', serviceAccountNames: ['a'], maxTtl: '1000000000d' }),
    'prod/lib: maxTtl: received "1000000000d"', 'at most 9223372036 seconds'],
  ['an integer beyond 2^53', (s) => user(s, { tokenNumUses: 2 ** 60 }), 'prod/alice: tokenNumUses: received 1152921504606847000', 'must be <= 9007199254740991'],
  // stack-level rules
  ['two constructs managing the same static role', (s) => {
    const ldap = ldapBackend(s);
    new LdapStaticRole(s, 'one', { backend: ldap, name: 'svc', username: 'a', rotationPeriod: '1h' });
    new LdapStaticRole(s, 'two', { backend: 'ldap', name: 'SVC', username: 'b', rotationPeriod: '1h' });
  }, 'prod/two: mount, name: received "ldap/static-role/svc"', 'prod/one already manages ldap/static-role/svc'],
  ['a backend mounting a path another mount construct manages', (s) => {
    new SecretsMount(s, 'kv', { path: 'cloud', type: 'kv', options: { version: '2' } });
    cloudBackend(s);
  }, 'prod/cloud/mount: path: received "sys/mounts/cloud"', 'prod/kv already manages sys/mounts/cloud'],
  ['a second SyncConfig', (s) => {
    new SyncConfig(s, 'a', { disabled: true });
    new SyncConfig(s, 'b', { disabled: false });
  }, 'prod/b: id: received "sys/sync/config"', 'prod/a already manages sys/sync/config'],
  ['one account in two library sets of a mount', (s) => {
    new LdapLibrarySet(s, 'lib-a', { backend: 'ldap', name: 'a', serviceAccountNames: ['svc-1', 'svc-2'] });
    new LdapLibrarySet(s, 'lib-b', { backend: 'ldap', name: 'b', serviceAccountNames: ['SVC-2'] });
  }, 'prod/lib-b: serviceAccountNames: received "SVC-2"', 'already in library set prod/lib-a'],
  ['an association with a mount that is not KV version 2', (s) => {
    const kv = new SecretsMount(s, 'kv1', { path: 'old', type: 'kv' });
    new SyncAssociation(s, 'assoc', { destination: new SyncCloud1SmDestination(s, 'c1', { name: 'c1' }), mount: kv, secretName: 'x' });
  }, 'prod/assoc: mount: received "old"', 'a KV version 2 mount'],
];

describe('validation at synth (real app.synth())', () => {
  test.each(cases)('rejects %s', (_rule, build, start, allowed) => {
    const message = synthError(build);
    const line = message.split('\n').find((candidate) => candidate.includes(start));
    if (!line) throw new Error(`no error line contains ${JSON.stringify(start)}; the error was:\n${message}`);
    if (typeof allowed === 'string') expect(line).toContain(allowed);
    else expect(line).toMatch(allowed);
  });

  test('a message has the form "<path>: <prop>: received <value>; <what is allowed>"', () => {
    const message = synthError((s) => user(s, { username: '-alice' }));
    expect(message).toContain('prod/alice: username: received "-alice"; must not begin with "-"');
  });

  test('reports every error of every construct of the synth together', () => {
    const message = synthError((s) => {
      user(s, { username: '.x', tokenType: 'x' });
      new LdapStaticRole(s, 'svc', { backend: 'ldap', name: 'svc', username: 'svc', rotationPeriod: '1s' });
      new SyncWebhostProjectDestination(s, 'web', { name: 'w', accessToken: secret(), projectId: 'p', deploymentEnvironments: [] });
      new SyncConfig(s, 'a');
      new SyncConfig(s, 'b');
    });
    for (const expected of ['prod/alice: username:', 'prod/alice: tokenType:', 'prod/svc: rotationPeriod:', 'prod/web: deploymentEnvironments:', 'prod/b: id:']) {
      expect(message).toContain(expected);
    }
  });

  test('the stack-level problems a synth found are not reused once the stack holds other constructs', () => {
    // Validation takes the problems the synth pass just found for the same constructs (stack.ts); a construct
    // added after that synth must be checked against the others.
    const outdir = tempDir('secretform-validation-');
    tempDirs.push(outdir);
    const app = new App({ outdir });
    const stack = new TerraformStack(app, 'prod');
    new SyncConfig(stack, 'a', { disabled: true });
    app.synth();
    expect(validateStack(stack)).toEqual([]);
    new SyncConfig(stack, 'b', { disabled: false });
    expect(validateStack(stack)).toEqual([expect.stringContaining('prod/a already manages sys/sync/config')]);
  });

  test('never prints the value of a secret, even one given where a SecretValue belongs', () => {
    const message = synthError((s) => {
      user(s, { password: 'hunter2-plain' });
      new SyncGithubApp(s, 'app', { name: 'a', appId: '1', privateKey: '-----BEGIN KEY----- k3y-material' as never });
      new LdapStaticRole(s, 'svc', { backend: 'ldap', name: 'svc', username: 'svc', rotationPeriod: '1h', bindpass: 'typo-secret' } as never);
    });
    expect(message).toContain('prod/alice: password: received (sensitive)');
    expect(message).toContain('prod/app: privateKey: received (sensitive)');
    for (const value of ['hunter2-plain', 'k3y-material', 'typo-secret']) expect(message).not.toContain(value);
  });

  test('never prints a plain-string secret through a rule that spans props (exactly one of, go together)', () => {
    const message = synthError((s) => {
      user(s, { password: 'hunter2-plain', passwordHash: 'bcrypt-plain' });
      new CloudSecretBackend(s, 'cloud', { subscriptionId: 's', tenantId: 't', clientId: 'c', clientSecret: 'client-plain', identityTokenAudience: 'aud' } as never);
      new SyncRepohostDestination(s, 'gh', { name: 'gh', accessToken: 'token-plain', app: 'ci', installationId: '1', repositoryOwner: 'o', repositoryName: 'r' } as never);
    });
    expect(message).toContain('prod/alice: password, passwordHash: received (sensitive); exactly one of password, passwordHash');
    expect(message).toContain('prod/cloud: clientSecret, identityTokenAudience: received (sensitive); exactly one of');
    expect(message).toContain('prod/gh: accessToken | app: received (sensitive); exactly one of accessToken and app');
    for (const value of ['hunter2-plain', 'bcrypt-plain', 'client-plain', 'token-plain']) expect(message).not.toContain(value);
  });

  test('rejects a reference to a construct of another stack', () => {
    const message = synthError((s, app) => {
      const other = new TerraformStack(app, 'other');
      const ldap = ldapBackend(other);
      new LdapStaticRole(s, 'svc', { backend: ldap, name: 'svc', username: 'svc', rotationPeriod: '1h' });
    });
    expect(message).toContain('prod/svc: backend: received construct other/ldap; a construct of the same stack (prod)');
  });

  test('accepts every construct with valid props', () => {
    const outdir = tempDir('secretform-validation-');
    tempDirs.push(outdir);
    const app = new App({ outdir });
    const stack = new TerraformStack(app, 'prod');
    ldapBackend(stack);
    user(stack, { tokenBoundCidrs: ['2001:db8::/32', '10.1.2.3'], tokenTtl: 60, tokenMaxTtl: '1m' });
    role(stack, { applicationObjectId: 'obj', cloudRoles: undefined, permanentlyDelete: false });
    expect(() => app.synth()).not.toThrow();
  });
});

describe('a text repeated across constructs', () => {
  // The checks remember the last text each field accepted (the LDIF of every dynamic role is often the same):
  // a repeated good text passes, and a bad one is reported for every construct that holds it, before or after.
  test('a bad LDIF or text is reported for every construct holding it, between constructs holding good ones', () => {
    const badLdif = 'dn: cn={{.Username}},dc=example,dc=org\nobjectClass person\n';
    // Longer than any text a field takes (field-rules.ts): only the check of the field's facts refuses it.
    const tooLong = 'x'.repeat(70_000);
    const message = synthError((s) => {
      for (const [id, creationLdif, description] of [['a', ldif, 'fine'], ['b', badLdif, tooLong], ['c', badLdif, tooLong], ['d', ldif, 'fine'], ['e', badLdif, tooLong]]) {
        new LdapDynamicRole(s, `dynamic-${id}`, { backend: 'ldap', name: `dynamic-${id}`, creationLdif, deletionLdif: ldif });
        new SecretsMount(s, `mount-${id}`, { path: `kv-${id}`, type: 'kv', description });
      }
    });
    const lines = message.split('\n');
    for (const id of ['b', 'c', 'e']) {
      expect(lines.some((line) => line.includes(`prod/dynamic-${id}: creationLdif:`))).toBe(true);
      expect(lines.some((line) => line.includes(`prod/mount-${id}: description: received`) && line.includes('65536'))).toBe(true);
    }
    for (const id of ['a', 'd']) expect(message).not.toMatch(new RegExp(`prod/(mount|dynamic)-${id}: `));
  });
});

describe('values secretform cannot read', () => {
  test('rejects a cdktf token inside a longer text', () => {
    const message = synthError((s) => {
      const { TerraformVariable } = jest.requireActual<typeof import('cdktf')>('cdktf');
      const variable = new TerraformVariable(s, 'team', { type: 'string' });
      new LdapStaticRole(s, 'svc', { backend: 'ldap', name: 'svc', username: `svc-${variable.stringValue}-x`, rotationPeriod: '1h' });
    });
    expect(message).toContain('prod/svc: username: received');
    expect(message).toContain('cdktf tokens (terraform references, variables, functions) cannot be resolved by secretform');
  });

  test('rejects a cdktf token (a terraform variable) as a prop value', () => {
    const message = synthError((s) => {
      const { TerraformVariable } = jest.requireActual<typeof import('cdktf')>('cdktf');
      const variable = new TerraformVariable(s, 'period', { type: 'string' });
      new LdapStaticRole(s, 'svc', { backend: 'ldap', name: 'svc', username: variable.stringValue, rotationPeriod: '1h' });
    });
    expect(message).toContain('prod/svc: username: received');
    expect(message).toContain('cdktf tokens (terraform references, variables, functions) cannot be resolved by secretform');
  });
});

describe('secrets never come from secretform\'s own variables', () => {
  test('SecretValue.fromEnv of a SERVICE_* or SECRETFORM_* variable fails synth naming the construct and the prop', () => {
    const message = synthError((stack) => {
      user(stack, { password: SecretValue.fromEnv('SERVICE_TOKEN') });
      ldapBackend(stack, { bindpass: SecretValue.fromEnv('SECRETFORM_STATE_KEY') });
    });
    expect(message).toContain('prod/alice: password: received (sensitive); SERVICE_TOKEN is a variable of secretform\'s own');
    expect(message).toContain('prod/ldap: bindpass: received (sensitive); SECRETFORM_STATE_KEY is a variable of secretform\'s own');
  });

  test('a variable that merely contains SERVICE is accepted', () => {
    const outdir = tempDir('secretform-validation-');
    tempDirs.push(outdir);
    const app = new App({ outdir });
    user(new TerraformStack(app, 'prod'), { password: SecretValue.fromEnv('MY_SERVICE_PASSWORD') });
    expect(() => app.synth()).not.toThrow();
  });
});
