/**
 * Adopting a server: objects of every resource type are created over HTTP (not through secretform), then the
 * real CLI runs `generate`, `synth`, `import --all` and `plan --detailed-exitcode`, which must find nothing to
 * change. The generated file type-checks under `tsc --strict`, generating twice gives the same bytes, and
 * import sends nothing but reads.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { allResourceTypes } from '../../src/resources';
import { cliEnv, createProject, ROOT, runCli } from './cli-harness';
import { ACCOUNTS, ADMIN_DN, ADMIN_PASSWORD, startHarness, USERS_DN, type Harness } from './engine-harness';

const APP_KEY = '-----BEGIN RSA PRIVATE KEY-----\ngenerate-roundtrip-app-key\n-----END RSA PRIVATE KEY-----';
const LDIF_CREATE = 'dn: cn={{.Username}},ou=users,dc=engine,dc=test\nobjectClass: person\ncn: {{.Username}}\nsn: {{.Username}}\nuserPassword: {{.Password}}\n';
const LDIF_DELETE = 'dn: cn={{.Username}},ou=users,dc=engine,dc=test\nchangetype: delete\n';

/** The secret each object was created with, by object id and field: the generated code's variables get these. */
const SECRETS: Record<string, Record<string, string>> = {
  'cloud/config': { client_secret: 'cloud-root-secret-rt' },
  'auth/userpass/users/alice': { password: 'alice-password-rt' },
  'sys/sync/github-apps/ci-app': { private_key: APP_KEY },
  'sys/sync/destinations/cloud1-sm/payments': { access_key_id: 'AKIA-rt', secret_access_key: 'cloud1-secret-rt' },
  'sys/sync/destinations/cloud2-kv/web': { client_secret: 'cloud2-secret-rt' },
  'sys/sync/destinations/cloud3-sm/analytics': { credentials: '{"type":"service_account"}' },
  'sys/sync/destinations/webhost-project/storefront': { access_token: 'webhost-token-rt' },
  'ldap/config': { bindpass: ADMIN_PASSWORD },
};

async function createEverything(h: Harness): Promise<void> {
  const calls: [string, string, unknown][] = [
    ['POST', 'sys/mounts/cloud', { type: 'cloud' }],
    ['POST', 'cloud/config', { subscription_id: 'sub-1', tenant_id: 'tenant-1', client_id: 'client-1', client_secret: 'cloud-root-secret-rt', root_password_ttl: '48h' }],
    ['POST', 'cloud/roles/deployer', { cloud_roles: JSON.stringify([{ scope: '/subscriptions/sub-1', role_name: 'Reader' }]), ttl: 3600, max_ttl: '2h', tags: 'team:ops' }],
    ['POST', 'sys/mounts/team/kv', { type: 'kv', options: { version: '2' }, description: 'team secrets' }],
    ['POST', 'sys/auth/userpass', { type: 'userpass', description: 'logins' }],
    ['POST', 'auth/userpass/users/alice', { password: 'alice-password-rt', token_ttl: '30m', token_policies: ['default', 'readers'] }],
    ['PATCH', 'sys/sync/config', { queue_capacity: 5000 }],
    ['POST', 'sys/sync/github-apps/ci-app', { app_id: '123456', private_key: APP_KEY }],
    ['POST', 'sys/sync/destinations/cloud1-sm/payments', { access_key_id: 'AKIA-rt', secret_access_key: 'cloud1-secret-rt', region: 'eu-west-1', custom_tags: { team: 'payments' } }],
    ['POST', 'sys/sync/destinations/cloud2-kv/web', { key_vault_uri: 'https://vault.example.net/', client_id: 'c2-client', client_secret: 'cloud2-secret-rt', tenant_id: 'c2-tenant' }],
    ['POST', 'sys/sync/destinations/cloud3-sm/analytics', { credentials: '{"type":"service_account"}', project_id: 'project-3', secret_name_template: 'a_{{ .SecretPath }}' }],
    ['POST', 'sys/sync/destinations/repohost/deploy', { app_name: 'ci-app', installation_id: '42', repository_owner: 'acme', repository_name: 'deploy', granularity: 'secret-path' }],
    ['POST', 'sys/sync/destinations/webhost-project/storefront', { access_token: 'webhost-token-rt', project_id: 'prj_1', deployment_environments: ['production'] }],
    ['POST', 'secret/data/app/db', { data: { password: 'kv-value' } }],
    ['POST', 'sys/sync/destinations/cloud1-sm/payments/associations/set', { mount: 'secret', secret_name: 'app/db' }],
    ['POST', 'sys/sync/destinations/repohost/deploy/associations/set', { mount: 'secret', secret_name: 'app/db' }],
    ['POST', 'sys/mounts/ldap', { type: 'ldap' }],
    ['POST', 'ldap/config', { binddn: ADMIN_DN, bindpass: ADMIN_PASSWORD, userdn: USERS_DN, url: 'ldap://directory', request_timeout: '60s' }],
    ['POST', 'ldap/static-role/svc-a', { username: ACCOUNTS[0], rotation_period: '24h' }],
    ['POST', 'ldap/static-role/team/svc-b', { username: ACCOUNTS[1], rotation_period: 600 }],
    ['POST', 'ldap/role/team/temp', { creation_ldif: LDIF_CREATE, deletion_ldif: LDIF_DELETE, default_ttl: '1h', max_ttl: '8h' }],
    ['POST', 'ldap/library/pools/batch', { service_account_names: [ACCOUNTS[2], ACCOUNTS[3]], ttl: '2h' }],
  ];
  for (const [method, path, body] of calls) {
    const answer = await h.call(method, path, body, method === 'PATCH' ? 'application/merge-patch+json' : undefined);
    if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
  }
}

/** `NAME: field of Construct id (object id)` lines of generate's report -> the values the objects were made with. */
function secretEnvironment(report: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const match of report.matchAll(/^ {2}([A-Z0-9_]+): (\w+) of \w+ \S+ \((.+)\)$/gm)) {
    const value = SECRETS[match[3]]?.[match[2]];
    if (value === undefined) throw new Error(`generate asked for a secret the test did not create: ${match[0]}`);
    env[match[1]] = value;
  }
  return env;
}

/** A project whose `secretform` and `cdktf` imports resolve to this repository (dist/ is built by global setup). */
function adoptingProject(): string {
  const dir = createProject();
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(ROOT, join(dir, 'node_modules', 'secretform'), 'dir');
  for (const name of ['cdktf', 'constructs', '@types']) symlinkSync(join(ROOT, 'node_modules', name), join(dir, 'node_modules', name), 'dir');
  writeFileSync(join(dir, 'cdktf.json'), JSON.stringify({ language: 'typescript', app: `node ${join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs')} main.ts` }));
  return dir;
}

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  await createEverything(h);
});
afterAll(async () => h?.close());

test('generate, synth, import --all and plan: every resource type round-trips with no change, reading only', async () => {
  const dir = adoptingProject();
  const env = cliEnv({ url: h.server.url, rootToken: h.server.rootToken });

  const generated = await runCli(['generate', '--out-file', 'main.ts'], dir, env);
  expect(generated.stderr).toBe('');
  expect(generated.code).toBe(0);
  const source = readFileSync(join(dir, 'main.ts'), 'utf8');

  // Every resource type of the model appears, each object as one construct.
  for (const resourceType of allResourceTypes()) expect(source).toContain(`new ${resourceType.construct}(`);
  expect(source).toContain("ttl: '1h'");
  expect(source).toContain('backend: ldap');
  expect(source).toContain("name: 'team/svc-b'");
  expect(source).toContain("name: 'pools/batch'");
  expect(source).toContain('app: ciApp');
  expect(source).toMatch(/destination: payments,\s+mount: secret,/);
  // No secret value is ever in the file; each is read from a variable the header lists.
  for (const values of Object.values(SECRETS)) for (const value of Object.values(values)) expect(source).not.toContain(value);
  // Fields the model lacks are listed in the file and in the command's output, not dropped silently.
  const lacking = 'ldap/config: field "tls_min_version" (not in secretform\'s model of ldap_secret_backend)';
  expect(generated.stdout).toContain(`  ${lacking}\n`);
  expect(source).toContain(` * - ${lacking}\n`);
  const secretEnv = secretEnvironment(generated.stdout);
  expect(Object.keys(secretEnv)).toHaveLength(9);
  for (const name of Object.keys(secretEnv)) expect(source).toContain(` * - ${name}: `);

  // The same server gives the same bytes.
  const again = await runCli(['generate'], dir, env);
  expect(again.code).toBe(0);
  expect(again.stdout).toBe(source);

  const typeCheck = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '--strict', '--noEmit', '--skipLibCheck', '--target', 'ES2022', '--module', 'commonjs', '--moduleResolution', 'node', '--esModuleInterop', 'main.ts'], { cwd: dir, encoding: 'utf8' });
  expect(typeCheck.stdout + typeCheck.stderr).toBe('');
  expect(typeCheck.status).toBe(0);

  const runEnv = { ...env, ...secretEnv };
  const synth = await runCli(['synth'], dir, runEnv);
  expect(synth.stderr).toBe('');
  expect(synth.code).toBe(0);

  const before = h.server.requestLog.length;
  const imported = await runCli(['import', '--all', '--no-synth'], dir, runEnv);
  expect(imported.stderr).toBe('');
  expect(imported.code).toBe(0);
  const requests = h.server.requestLog.slice(before);
  expect(requests.length).toBeGreaterThan(0);
  expect(requests.filter((entry) => entry.method !== 'GET' && entry.method !== 'LIST')).toEqual([]);
  expect(imported.stdout).toMatch(/ 0 not found, 0 already in state/);

  const plan = await runCli(['plan', '--detailed-exitcode', '--no-synth'], dir, runEnv);
  expect(plan.stderr).toBe('');
  if (plan.code !== 0) throw new Error(plan.stdout);
  expect(plan.stdout).not.toMatch(/will be (created|updated|replaced|destroyed)/);
  expect(plan.code).toBe(0);

  // Adopted KV mounts hold secrets no code describes: generated with protect, a destroy of the stack refuses
  // before any write (engine mounts, whose objects the code manages, are not protected).
  const constructOf = (id: string) => source.slice(source.indexOf(`new SecretsMount(stack, '${id}'`)).split('});')[0];
  expect(constructOf('team-kv')).toContain('protect: true');
  expect(source.match(/protect: true/g)).toHaveLength(2); // team/kv and secret, the two KV mounts
  const destroyFrom = h.server.requestLog.length;
  const destroy = await runCli(['destroy', '--auto-approve', '--no-synth'], dir, runEnv);
  expect(destroy.code).toBe(1);
  expect(destroy.stderr).toContain('(sys/mounts/team/kv): `secretform destroy` would delete it');
  expect(h.server.requestLog.slice(destroyFrom).filter((entry) => entry.method !== 'GET' && entry.method !== 'LIST')).toEqual([]);

  // A resource of the code that the service does not have is reported, not imported.
  writeFileSync(join(dir, 'main.ts'), source.replace('app.synth();', "new SecretsMount(stack, 'not-there', { path: 'not-there', type: 'kv' });\napp.synth();"));
  const again2 = await runCli(['import', '--all'], dir, runEnv);
  expect(again2.stderr).toBe('');
  expect(again2.code).toBe(0);
  expect(again2.stdout).toContain('Not found on the service: sys/mounts/not-there (imported/not-there); apply would create it.');
  expect(again2.stdout).toMatch(/^0 imported, 1 not found, \d+ already in state\./m);
}, 120_000);

test('import refuses --all with an address, and an address without an id; generate refuses a bad stack name', async () => {
  const dir = createProject();
  const env = cliEnv({ url: h.server.url, rootToken: h.server.rootToken });
  const both = await runCli(['import', '--all', 'e2e/alice', 'auth/userpass/users/alice'], dir, env);
  expect(both.code).toBe(1);
  expect(both.stderr).toContain('import --all takes no ADDRESS or ID');
  const half = await runCli(['import', 'e2e/alice'], dir, env);
  expect(half.code).toBe(1);
  expect(half.stderr).toContain('import needs ADDRESS and ID (or --all)');
  const stack = await runCli(['generate', '--stack', 'a b'], dir, env);
  expect(stack.code).toBe(1);
  expect(stack.stderr).toContain('--stack must be letters, digits, "-" or "_"');
});
