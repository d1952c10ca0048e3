/**
 * The whole stack (every construct) synthesized with `app.synth()`, applied from the synth output with secrets
 * from environment variables and a file: no secret value appears in the state file, any plan, the apply
 * results or the progress events. Also: a replaced destination takes its associations with it, and they are
 * re-created.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { App, TerraformStack } from 'cdktf';
import type { Construct } from 'constructs';
import {
  AuthMount, CloudSecretBackend, CloudSecretRole, LdapDynamicRole, LdapLibrarySet, LdapSecretBackend, LdapStaticRole, SecretsMount,
  SecretValue, SyncAssociation, SyncCloud1SmDestination, SyncCloud2KvDestination, SyncCloud3SmDestination, SyncConfig, SyncGithubApp,
  SyncRepohostDestination, SyncWebhostProjectDestination, UserpassUser,
} from '../../src';
import { apply, destroy, plan, type EngineOptions, type ProgressEvent } from '../../src';
import { actions, ADMIN_DN, ADMIN_PASSWORD, newStack, startHarness, unwrap, USERS_DN, type Harness } from './engine-harness';
import { tempDir } from '../support/temp-dir';

/** Secret values the environment holds; the directory's admin password is the real bind password. */
const SECRET_ENV: Record<string, string> = {
  SF_CLOUD_CLIENT_SECRET: 'cloud-client-secret-value-7f3a91',
  SF_USER_PASSWORD: 'alice-password-value-c0ffee',
  SF_APP_PRIVATE_KEY: '-----BEGIN RSA PRIVATE KEY-----\nprivate-key-value-51de\n-----END RSA PRIVATE KEY-----',
  SF_CLOUD1_ACCESS_KEY: 'AKIA-access-key-value-9921',
  SF_CLOUD1_SECRET_KEY: 'cloud1-secret-access-key-value-e4e4',
  SF_CLOUD2_CLIENT_SECRET: 'cloud2-client-secret-value-1234',
  SF_REPOHOST_TOKEN: 'ghp_repohost-token-value-abcd',
  SF_WEBHOST_TOKEN: 'webhost-token-value-7777',
  SF_LDAP_BINDPASS: ADMIN_PASSWORD,
};
const SECRET_FILE_NAME = 'cloud3-credentials.json';
const SECRET_FILE_VALUE = '{"type":"service_account","private_key":"cloud3-credentials-value-5a5a"}';
const LDIF_CREATE = 'dn: cn={{.Username}},ou=users,dc=engine,dc=test\nobjectClass: person\ncn: {{.Username}}\nsn: {{.Username}}\nuserPassword: {{.Password}}\n';
const LDIF_DELETE = 'dn: cn={{.Username}},ou=users,dc=engine,dc=test\nchangetype: delete\n';

function addEveryConstruct(stack: Construct): void {
  const kv = new SecretsMount(stack, 'kv', { path: 'secret', type: 'kv', options: { version: '2' }, description: 'application secrets' });
  const userpass = new AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass' });
  const cloud = new CloudSecretBackend(stack, 'cloud', { subscriptionId: 'sub-1', tenantId: 'tenant-1', clientId: 'client-1', clientSecret: SecretValue.fromEnv('SF_CLOUD_CLIENT_SECRET') });
  new CloudSecretRole(stack, 'cloud-role', { backend: cloud, name: 'Deployer', cloudRoles: [{ scope: '/subscriptions/sub-1', roleName: 'Reader' }], ttl: '1h', tags: ['team:ops'] });
  new UserpassUser(stack, 'alice', { mount: userpass, username: 'alice', password: SecretValue.fromEnv('SF_USER_PASSWORD'), tokenPolicies: ['default', 'readers'] });
  new SyncConfig(stack, 'sync-config', { queueCapacity: 5000 });
  const app = new SyncGithubApp(stack, 'gh-app', { name: 'ci-app', appId: '123456', privateKey: SecretValue.fromEnv('SF_APP_PRIVATE_KEY') });
  const cloud1 = new SyncCloud1SmDestination(stack, 'dest-cloud1', {
    name: 'c1', accessKeyId: SecretValue.fromEnv('SF_CLOUD1_ACCESS_KEY'), secretAccessKey: SecretValue.fromEnv('SF_CLOUD1_SECRET_KEY'), region: 'eu-west-1', customTags: { team: 'ops' },
  });
  new SyncCloud2KvDestination(stack, 'dest-cloud2', {
    name: 'c2', keyVaultUri: 'https://vault.example.net/', clientId: 'c2-client', clientSecret: SecretValue.fromEnv('SF_CLOUD2_CLIENT_SECRET'), tenantId: 'c2-tenant',
  });
  new SyncCloud3SmDestination(stack, 'dest-cloud3', { name: 'c3', credentials: SecretValue.fromFile(SECRET_FILE_NAME), projectId: 'project-3' });
  new SyncRepohostDestination(stack, 'dest-repohost', { name: 'gh', app, installationId: '42', repositoryOwner: 'acme', repositoryName: 'web' });
  new SyncRepohostDestination(stack, 'dest-repohost-token', { name: 'gh-token', accessToken: SecretValue.fromEnv('SF_REPOHOST_TOKEN'), repositoryOwner: 'acme', repositoryName: 'api' });
  new SyncWebhostProjectDestination(stack, 'dest-webhost', { name: 'web', accessToken: SecretValue.fromEnv('SF_WEBHOST_TOKEN'), projectId: 'prj_1', deploymentEnvironments: ['production'] });
  new SyncAssociation(stack, 'assoc', { destination: cloud1, mount: kv, secretName: 'app/db' });
  const ldap = new LdapSecretBackend(stack, 'ldap', { binddn: ADMIN_DN, bindpass: SecretValue.fromEnv('SF_LDAP_BINDPASS'), userdn: USERS_DN, url: 'ldap://directory' });
  new LdapStaticRole(stack, 'svc-role', { backend: ldap, name: 'svc', username: 'svc-a', rotationPeriod: '24h' });
  new LdapDynamicRole(stack, 'dyn-role', { backend: ldap, name: 'temp', creationLdif: LDIF_CREATE, deletionLdif: LDIF_DELETE, defaultTtl: '1h' });
  new LdapLibrarySet(stack, 'library', { backend: ldap, name: 'pool', serviceAccountNames: ['svc-b', 'svc-c'], ttl: '10h' });
}

let h: Harness;
let outdir: string;
beforeEach(async () => {
  h = await startHarness(SECRET_ENV, { kvMount: false });
  outdir = tempDir('secretform-engine-synth-');
  fs.writeFileSync(path.join(h.dir, SECRET_FILE_NAME), `${SECRET_FILE_VALUE}\n`);
});
afterEach(async () => {
  await h.close();
  fs.rmSync(outdir, { recursive: true, force: true });
});

function synthesize(): void {
  const app = new App({ outdir });
  addEveryConstruct(new TerraformStack(app, 'prod'));
  app.synth();
}

test('no secret value reaches the state file, a plan, an apply result or a progress event', async () => {
  synthesize();
  const events: ProgressEvent[] = [];
  const options: EngineOptions = { desired: { kind: 'synth-output', outdir }, cwd: h.dir, env: h.env, onProgress: (e) => events.push(e) };
  const outputs: unknown[] = [];

  outputs.push(unwrap(await plan(options)));
  // The association needs its KV secret, which needs the mount: apply the mount first.
  outputs.push(unwrap(await apply({ ...options, targets: ['prod/kv'] })));
  expect((await h.call('POST', 'secret/data/app/db', { data: { password: 'kv-value' } })).status).toBeLessThan(300);
  const applied = unwrap(await apply(options));
  outputs.push(applied);
  expect(applied.outcomes.filter((o) => o.status !== 'succeeded')).toEqual([]);
  const stateText = fs.readFileSync(path.join(h.dir, '.secretform', 'prod.state.json'), 'utf8');
  expect(stateText).toContain('"bindpass": "hmac-sha256:');
  const again = unwrap(await plan(options));
  outputs.push(again);
  expect(actions(again)).toEqual({});
  expect(again.drift).toEqual([]);
  outputs.push(unwrap(await plan({ ...options, refreshOnly: true })));
  outputs.push(unwrap(await destroy(options)));

  const texts = [stateText, ...outputs.map((o) => JSON.stringify(o)), JSON.stringify(events)];
  for (const secret of [...Object.values(SECRET_ENV), SECRET_FILE_VALUE, 'private-key-value-51de', 'cloud3-credentials-value-5a5a']) {
    expect(texts.every((text) => text.length > 0)).toBe(true);
    for (const text of texts) expect(text.includes(secret)).toBe(false);
  }
  // The secrets did reach the service: the state holds their fingerprints.
  expect(JSON.stringify(applied.plan)).toContain('"sensitive":["client_secret"]');
});

test('a replaced destination takes its association with it, and the association is re-created', async () => {
  await h.call('POST', 'sys/mounts/secret', { type: 'kv', options: { version: '2' } });
  await h.call('POST', 'secret/data/app/db', { data: { password: 'kv-value' } });
  const stack = (region: string) => {
    const s = newStack();
    const destination = new SyncCloud1SmDestination(s, 'c1', { name: 'c1', region });
    new SyncAssociation(s, 'assoc', { destination, mount: 'secret', secretName: 'app/db' });
    return s;
  };
  const options = (region: string): EngineOptions => h.options(stack(region));
  unwrap(await apply(options('eu-west-1')));
  const planned = unwrap(await plan(options('us-east-1')));
  expect(actions(planned)).toEqual({ 'test/assoc': 'replace', 'test/c1': 'replace' });
  expect(planned.changes.find((c) => c.address === 'test/assoc')!.reasons).toEqual([{ kind: 'container_replaced', replaced: ['test/c1'] }]);
  const result = unwrap(await apply(options('us-east-1')));
  expect(result.outcomes.map((o) => `${o.action} ${o.address}`)).toEqual(
    expect.arrayContaining(['replace:delete test/assoc', 'replace:delete test/c1', 'replace:create test/c1', 'replace:create test/assoc']),
  );
  expect(result.succeeded).toBe(true);
  expect(actions(unwrap(await plan(options('us-east-1'))))).toEqual({});
  const read = await h.call('GET', 'sys/sync/destinations/cloud1-sm/c1');
  expect(read.body.data.connection_details.region).toBe('us-east-1');
});
