/**
 * `secretform action` and `secretform exec` end to end: the real binary against the dev server, on a project with
 * every type that offers an operation. The tests run in order on one project and one server (each step builds on
 * the state the previous ones left), and the last one looks for every credential value the run saw in state,
 * the synth output, every stream and the server's request log.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ManualClock } from '../../src/devserver/clock';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { cliEnv, ROOT, runCli, startCli, transcript, waitFor, type CliResult } from './cli-harness';
import { tempDir } from '../support/temp-dir';

jest.setTimeout(180_000);

const BINDPASS = 'admin-password'; // the default directory's bind entry
const SECOND_BINDPASS = 'dave-password'; // the second directory engine binds as dave
const CLOUD_SECRET = 'cloud-root-secret-in-code-7f3a';
const SECOND_CLOUD_SECRET = 'cloud2-root-secret-in-code-1b9d';
const USER_PASSWORD = 'ops-user-password-4e8c';

const APP = `
const { App, TerraformStack } = require(${JSON.stringify(join(ROOT, 'node_modules', 'cdktf'))});
const sf = require(${JSON.stringify(join(ROOT, 'dist'))});
const app = new App();
const stack = new TerraformStack(app, 'ops');
const ldap = new sf.LdapSecretBackend(stack, 'ldap', {
  binddn: 'cn=admin,dc=example,dc=org', bindpass: sf.SecretValue.fromEnv('OPS_BINDPASS'),
  url: 'ldap://127.0.0.1', userdn: 'dc=example,dc=org', userattr: 'cn', requestTimeout: process.env.OPS_TIMEOUT || '90s',
});
new sf.LdapStaticRole(stack, 'static', { backend: ldap, name: 'carol', username: 'carol', rotationPeriod: '24h' });
new sf.LdapDynamicRole(stack, 'dynamic', {
  backend: ldap, name: 'temp', defaultTtl: '1h', maxTtl: '2h',
  creationLdif: 'dn: cn={{.Username}},ou=dynamic,dc=example,dc=org\\nobjectClass: person\\ncn: {{.Username}}\\nsn: {{.Username}}\\nuserPassword: {{.Password}}\\n',
  deletionLdif: 'dn: cn={{.Username}},ou=dynamic,dc=example,dc=org\\nchangetype: delete\\n',
});
new sf.LdapLibrarySet(stack, 'pool', { backend: ldap, name: 'pool', serviceAccountNames: ['svc-app-1', 'svc-app-2'], ttl: '2h', maxTtl: '4h' });
new sf.LdapLibrarySet(stack, 'open-pool', { backend: ldap, name: 'open-pool', serviceAccountNames: ['svc-app-3'], disableCheckInEnforcement: true });
new sf.LdapSecretBackend(stack, 'ldap2', {
  path: 'ldap2', binddn: 'cn=dave,ou=users,dc=example,dc=org', bindpass: sf.SecretValue.fromEnv('OPS_BINDPASS2'),
  url: 'ldap://127.0.0.1', userdn: 'dc=example,dc=org', rotateRootAfterCreate: true,
});
const sub = '6f1c2a9e-0d4b-4c55-9a7e-2b1f3c4d5e6f';
const cloud = new sf.CloudSecretBackend(stack, 'cloud', {
  subscriptionId: sub, tenantId: '0e3d9c8b-7a6f-4e5d-8c4b-3a2f1e0d9c8b', clientId: 'b1a2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d',
  clientSecret: sf.SecretValue.fromEnv('OPS_CLOUD_SECRET'),
});
new sf.CloudSecretRole(stack, 'deployer', { backend: cloud, name: 'deployer', cloudRoles: [{ scope: '/subscriptions/' + sub, roleName: 'Contributor' }], ttl: '1h' });
new sf.CloudSecretBackend(stack, 'cloud2', {
  path: 'cloud2', subscriptionId: sub, tenantId: '0e3d9c8b-7a6f-4e5d-8c4b-3a2f1e0d9c8b', clientId: 'c1a2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d',
  clientSecret: sf.SecretValue.fromEnv('OPS_CLOUD_SECRET2'), rotateRootAfterCreate: true,
});
const userpass = new sf.AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass' });
new sf.UserpassUser(stack, 'ci', { mount: userpass, username: 'ci', password: sf.SecretValue.fromEnv('OPS_USER_PASSWORD'), tokenTtl: '1h' });
app.synth();
`;

/** The fields of the answers that hold a credential (the others are names, ids and lease facts). */
const CREDENTIAL_FIELDS = ['password', 'client_secret', 'client_token'];

let server: DevServer;
let clock: ManualClock;
let project: string;
let env: NodeJS.ProcessEnv;
/** Every credential value an operation returned, with the run whose stdout may hold it. */
const returned: { value: string; stdout: string }[] = [];
/** Stdout of every run that returned credentials. */
const credentialStdouts = new Set<string>();
/** Outputs that must hold no credential: every stderr, and stdout of the runs that returned none. */
const quietOutputs: string[] = [];

async function cli(args: string[], extraEnv: Record<string, string | undefined> = {}): Promise<CliResult> {
  const result = await runCli(args, project, { ...env, ...extraEnv });
  quietOutputs.push(result.stderr);
  return result;
}

/** A run that returns credentials: its stdout is where they belong; they are remembered for the leak check. */
async function credentialRun(args: string[], extraEnv: Record<string, string | undefined> = {}): Promise<Record<string, any>> {
  const result = await cli([...args, '--no-synth', '--format', 'json'], extraEnv);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  const answer = JSON.parse(result.stdout);
  for (const key of CREDENTIAL_FIELDS) if (typeof answer[key] === 'string') returned.push({ value: answer[key], stdout: result.stdout });
  return answer;
}

async function quietRun(args: string[], extraEnv: Record<string, string | undefined> = {}): Promise<CliResult> {
  const result = await cli(args, extraEnv);
  quietOutputs.push(result.stdout);
  return result;
}

function state(): any {
  return JSON.parse(readFileSync(join(project, '.secretform', 'ops.state.json'), 'utf8'));
}

function logSince(count: number) {
  return server.requestLog.slice(count);
}

beforeAll(async () => {
  clock = new ManualClock(Date.UTC(2026, 0, 1));
  server = await startDevServer({ port: 0, rootToken: 'ops-root', clock });
  project = tempDir('secretform-ops-e2e-');
  writeFileSync(join(project, 'cdktf.json'), JSON.stringify({ language: 'typescript', app: 'node main.js' }));
  writeFileSync(join(project, 'main.js'), APP);
  env = cliEnv(server, {
    OPS_BINDPASS: BINDPASS, OPS_BINDPASS2: SECOND_BINDPASS, OPS_CLOUD_SECRET: CLOUD_SECRET, OPS_CLOUD_SECRET2: SECOND_CLOUD_SECRET, OPS_USER_PASSWORD: USER_PASSWORD,
  });
  const applied = await quietRun(['apply', '--auto-approve']);
  expect(applied.stderr).toBe('');
  expect(applied.code).toBe(0);
});

afterAll(async () => {
  await server?.close();
});

describe('rotateRootAfterCreate', () => {
  test('the root is rotated right after the first write: the value in code stops working, state records it, plans show no change', async () => {
    expect(() => server.directory.bind('cn=dave,ou=users,dc=example,dc=org', SECOND_BINDPASS)).toThrow();
    const cloud2 = server.inspectMount('cloud2') as { rotations: number; providerValidSecret?: string };
    expect(cloud2.rotations).toBe(1);
    expect(cloud2.providerValidSecret).not.toBe(SECOND_CLOUD_SECRET);
    expect(Object.keys(state().resources['ops/ldap2'].rotated_by_service)).toEqual(['bindpass']);
    expect(Object.keys(state().resources['ops/cloud2'].rotated_by_service)).toEqual(['client_secret']);
    expect(state().resources['ops/ldap'].rotated_by_service).toBeUndefined();

    const plan = await quietRun(['plan', '--no-synth', '--format', 'json', '--detailed-exitcode']);
    expect(plan.code).toBe(0);
    const changes = JSON.parse(plan.stdout).resource_changes;
    const ldap2 = changes.find((c: any) => c.address === 'ops/ldap2');
    expect(ldap2.actions).toEqual(['no-op']);
    expect(Object.keys(ldap2.managed_by_service)).toEqual(['bindpass']);
  });
});

describe('credentials', () => {
  test('creds of a cloud role, a dynamic role and a static role print the service\'s fields with the lease', async () => {
    const cloud = await credentialRun(['action', 'creds', 'ops/deployer']);
    expect(Object.keys(cloud).sort()).toEqual(['client_id', 'client_secret', 'lease_duration', 'lease_id', 'renewable']);
    expect(cloud.lease_duration).toBe(3600);
    const dynamic = await credentialRun(['action', 'creds', 'ops/dynamic']);
    expect(dynamic.username).toMatch(/^v_/);
    expect(() => server.directory.bind(dynamic.distinguished_names[0], dynamic.password)).not.toThrow();
    const stat = await credentialRun(['action', 'creds', 'ops/static']);
    expect(stat.username).toBe('carol');
    expect(() => server.directory.bind('cn=carol,ou=users,dc=example,dc=org', stat.password)).not.toThrow();
  });

  test('text and env formats: lease duration shown, env lines quoted for the shell', async () => {
    const text = await cli(['action', 'creds', 'ops/deployer', '--no-synth']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^client_id: .+$/m);
    expect(text.stdout).toMatch(/^lease_duration: 3600 s \(1h\)$/m);
    returned.push({ value: /^client_secret: (.+)$/m.exec(text.stdout)![1], stdout: text.stdout });
    const envOut = await cli(['action', 'creds', 'ops/static', '--no-synth', '--format', 'env']);
    expect(envOut.code).toBe(0);
    expect(envOut.stdout).toMatch(/^export USERNAME='carol'$/m);
    const password = /^export PASSWORD='(.+)'$/m.exec(envOut.stdout)![1];
    returned.push({ value: password, stdout: envOut.stdout });
    expect(() => server.directory.bind('cn=carol,ou=users,dc=example,dc=org', password)).not.toThrow();
  });

  test('rotate-role gives the static role a new password', async () => {
    const before = await credentialRun(['action', 'creds', 'ops/static']);
    const rotated = await quietRun(['action', 'rotate-role', 'ops/static', '--no-synth']);
    expect(rotated.code).toBe(0);
    expect(rotated.stdout).toContain('Rotated the password of ops/static');
    const after = await credentialRun(['action', 'creds', 'ops/static']);
    expect(after.password).not.toBe(before.password);
    const json = await quietRun(['action', 'rotate-role', 'ops/static', '--no-synth', '--format', 'json']);
    expect(JSON.parse(json.stdout)).toEqual({ rotated: true });
  });

  test('login uses the password from code and prints the token; the password is never sent elsewhere', async () => {
    const login = await credentialRun(['action', 'login', 'ops/ci']);
    expect(typeof login.client_token).toBe('string');
    expect(login.lease_duration).toBe(3600);
    const sent = server.requestLog.filter((entry) => entry.path.includes('/login/'));
    expect(sent.at(-1)).toMatchObject({ method: 'POST', path: 'auth/userpass/login/ci', fields: ['password'], status: 200 });
  });
});

describe('library', () => {
  test('check-out shows the lease; a --ttl above the set\'s is capped and says so; status hides borrower tokens', async () => {
    const out = await cli(['action', 'check-out', 'ops/pool', '--no-synth', '--format', 'json', '--ttl', '48h']);
    expect(out.code).toBe(0);
    const answer = JSON.parse(out.stdout);
    returned.push({ value: answer.password, stdout: out.stdout });
    expect(answer.service_account_name).toBe('svc-app-1');
    expect(answer.lease_duration).toBe(7200);
    expect(out.stderr).toContain('Note: --ttl 48h was capped: the set allows 7200 s');

    const status = await quietRun(['action', 'status', 'ops/pool', '--no-synth']);
    expect(status.stdout).toBe('svc-app-1: checked out\nsvc-app-2: available\n');
    const statusJson = await quietRun(['action', 'status', 'ops/pool', '--no-synth', '--format', 'json']);
    expect(JSON.parse(statusJson.stdout)['svc-app-1']).toEqual({ available: false, borrower_entity_id: '' });
    expect(statusJson.stdout).not.toContain('ops-root');
  });

  test('check-in by another token is refused; --force (the manage path) checks it in; an account already in succeeds with an empty list', async () => {
    const login = await credentialRun(['action', 'login', 'ops/ci']);
    const other = await quietRun(['action', 'check-in', 'ops/pool', '--no-synth', '--account', 'svc-app-1'], { SERVICE_TOKEN: login.client_token });
    expect(other.code).toBe(1);
    expect(other.stderr).toContain("wasn't checked out by the caller");
    const forced = await quietRun(['action', 'check-in', 'ops/pool', '--no-synth', '--account', 'svc-app-1', '--force']);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toBe('Checked in: svc-app-1\n');
    expect(server.requestLog.at(-1)).toMatchObject({ path: 'ldap/library/manage/pool/check-in', status: 200 });
    const again = await quietRun(['action', 'check-in', 'ops/pool', '--no-synth', '--account', 'svc-app-1', '--format', 'json']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({ check_ins: [] });
    expect(again.stderr).toContain('Note: nothing was checked in: svc-app-1 is already in');
  });

  test('a set without check-in enforcement takes a check-in from anyone', async () => {
    const out = await credentialRun(['action', 'check-out', 'ops/open-pool']);
    expect(out.service_account_name).toBe('svc-app-3');
    const login = await credentialRun(['action', 'login', 'ops/ci']);
    const checkIn = await quietRun(['action', 'check-in', 'ops/open-pool', '--no-synth'], { SERVICE_TOKEN: login.client_token });
    expect(checkIn.stdout).toBe('Checked in: svc-app-3\n');
  });

  test('with every account out, check-out exits 1 with "no account available in <set>"', async () => {
    await credentialRun(['action', 'check-out', 'ops/pool']);
    await credentialRun(['action', 'check-out', 'ops/pool']);
    const none = await quietRun(['action', 'check-out', 'ops/pool', '--no-synth']);
    expect(none.code).toBe(1);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain('no account available in pool');
    const back = await quietRun(['action', 'check-in', 'ops/pool', '--no-synth', '--account', 'svc-app-1', '--account', 'svc-app-2']);
    expect(back.stdout).toBe('Checked in: svc-app-1, svc-app-2\n');
  });
});

describe('errors send nothing', () => {
  test.each([
    [['action', 'status', 'ops/static'], 'ops/static is a LdapStaticRole (ldap_static_role), which does not offer status; it offers: rotate-role, creds'],
    [['action', 'rotate-root', 'ops/deployer'], 'which does not offer rotate-root; it offers: creds'],
    [['action', 'creds', 'ops/userpass'], 'it offers: none'],
    [['action', 'creds', 'ops/nowhere'], 'ops/nowhere is not in the state of stack ops (addresses in state: '],
    [['action', 'creds', 'ops/deployer', '--ttl', '1h'], '--ttl does not apply to creds of a CloudSecretRole (it takes no option)'],
    [['action', 'check-out', 'ops/pool', '--ttl', 'soon'], '--ttl must be a duration'],
    [['action', 'explode', 'ops/pool'], 'unknown operation "explode"; operations: rotate-root, '],
    [['action', 'rotate-root', 'ops/ldap', '--format', 'env'], '--format env is for operations that return credentials'],
    [['exec', 'ops/static-not-there', '--', 'true'], 'not in state'],
    [['exec', 'ops/ldap', '--', 'true'], 'returns no credentials (it offers: rotate-root)'],
  ])('%j fails with a clear message', async (args, message) => {
    const count = server.requestCount;
    const result = await quietRun([...args.slice(0, 2 + (args[0] === 'exec' ? 0 : 1)), '--no-synth', ...args.slice(2 + (args[0] === 'exec' ? 0 : 1))]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(message);
    expect(server.requestCount).toBe(count);
  });
});

describe('exec', () => {
  const probe = `const e = process.env; console.log('password:' + Boolean(e.PASSWORD) + ' token:' + ('SERVICE_TOKEN' in e) + ' key:' + ('SECRETFORM_STATE_KEY' in e) + ' state:' + ('SECRETFORM_STATE' in e) + ' stack secret:' + ('OPS_BINDPASS' in e)); process.exit(Number(process.argv[1]))`;

  test('runs the command with credentials (not secretform\'s settings nor the stack\'s secrets) and passes its exit code through', async () => {
    // A state URL may hold a database password: exec's child needs none of secretform's own settings.
    const stateFile = join(project, '.secretform', 'ops.state.json');
    const result = await quietRun(['exec', 'ops/dynamic', '--no-synth', '--', process.execPath, '-e', probe, '3'], { SECRETFORM_STATE: stateFile });
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('password:true token:false key:false state:false stack secret:false\n');
  });

  test('a userpass user: the command gets the login token from the password in code', async () => {
    const script = `const e = process.env; console.log('token:' + (e.CLIENT_TOKEN || '').length + ' policies:' + e.POLICIES)`;
    const result = await quietRun(['exec', 'ops/ci', '--no-synth', '--', process.execPath, '-e', script]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^token:[1-9]\d* policies:default\n$/);
  });

  test('checks a library account back in after the command failed', async () => {
    const result = await quietRun(['exec', 'ops/pool', '--no-synth', '--ttl', '10m', '--', process.execPath, '-e', probe, '5']);
    expect(result.code).toBe(5);
    expect(result.stdout).toBe('password:true token:false key:false state:false stack secret:false\n');
    expect(result.stderr).toContain('Checked svc-app-1 back in to ops/pool.');
    const status = await quietRun(['action', 'status', 'ops/pool', '--no-synth']);
    expect(status.stdout).toBe('svc-app-1: available\nsvc-app-2: available\n');
  });

  test('Ctrl-C goes to the command, and the account is checked back in', async () => {
    const script = `process.on('SIGINT', () => { console.log('child got SIGINT'); process.exit(7); }); console.log('ready'); setInterval(() => {}, 1000);`;
    const running = startCli(['exec', 'ops/pool', '--no-synth', '--', process.execPath, '-e', script], project, env);
    await waitFor(() => running.stdout().includes('ready'), 'the command to start');
    running.child.kill('SIGINT');
    const { code } = await running.exited;
    quietOutputs.push(running.stdout(), running.stderr());
    expect(code).toBe(7);
    expect(running.stdout()).toContain('child got SIGINT');
    expect(running.stderr()).toContain('Checked svc-app-1 back in');
    const status = await quietRun(['action', 'status', 'ops/pool', '--no-synth']);
    expect(status.stdout).toBe('svc-app-1: available\nsvc-app-2: available\n');
  });
});

describe('rotate-root', () => {
  test('state records it; a plan shows no change and says the service manages the root; an unrelated update does not re-send it', async () => {
    const rotated = await quietRun(['action', 'rotate-root', 'ops/ldap', '--no-synth']);
    expect(rotated.code).toBe(0);
    expect(rotated.stdout).toContain('Rotated the root credential of ops/ldap (ldap/config)');
    const at = state().resources['ops/ldap'].rotated_by_service.bindpass;
    expect(new Date(at).toISOString()).toBe(at);
    expect(() => server.directory.bind('cn=admin,dc=example,dc=org', BINDPASS)).toThrow();

    const plan = await quietRun(['plan', '--no-synth', '--detailed-exitcode']);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('Root credentials managed by the service now');
    expect(plan.stdout).toContain(`ops/ldap: bindpass (rotated by the service at ${at})`);
    const markdown = await quietRun(['plan', '--no-synth', '--format', 'markdown']);
    expect(markdown.stdout).toContain('Root credentials managed by the service now');
    const json = JSON.parse((await quietRun(['plan', '--no-synth', '--format', 'json'])).stdout);
    expect(json.resource_changes.find((c: any) => c.address === 'ops/ldap')).toMatchObject({ actions: ['no-op'], managed_by_service: { bindpass: at } });

    const count = server.requestCount;
    const update = await quietRun(['apply', '--auto-approve', '--synth-env', 'OPS_TIMEOUT'], { OPS_TIMEOUT: '60s' });
    expect(update.code).toBe(0);
    const writes = logSince(server.requestLog.length - (server.requestCount - count)).filter((entry) => entry.method === 'POST' && entry.path === 'ldap/config');
    expect(writes).toHaveLength(1);
    expect(writes[0].fields).toContain('request_timeout');
    expect(writes[0].fields).not.toContain('bindpass');
    // The engine still binds with the rotated password: the static role still works.
    expect((await credentialRun(['action', 'creds', 'ops/static'])).username).toBe('carol');
    expect(state().resources['ops/ldap'].rotated_by_service.bindpass).toBe(at);
  });

  test('a saved plan made after rotate-root can be shown and applied (its secret status managed_by_service is readable)', async () => {
    const at = state().resources['ops/ldap'].rotated_by_service.bindpass;
    const planFile = join(tempDir('secretform-ops-plan-'), 'rotated.plan.json');
    const made = await quietRun(['plan', '--synth-env', 'OPS_TIMEOUT', '--out', planFile], { OPS_TIMEOUT: '45s' });
    expect(made.code).toBe(0);
    expect(JSON.parse(readFileSync(planFile, 'utf8')).plan.changes.find((c: any) => c.address === 'ops/ldap').secrets).toEqual([
      { field: 'bindpass', status: 'managed_by_service', rotatedAt: at },
    ]);

    const shown = await quietRun(['show', planFile]);
    expect(shown.stderr).toBe('');
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`ops/ldap: bindpass (rotated by the service at ${at})`);

    const count = server.requestCount;
    const applied = await quietRun(['apply', planFile]);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    const writes = logSince(server.requestLog.length - (server.requestCount - count)).filter((entry) => entry.method === 'POST' && entry.path === 'ldap/config');
    expect(writes).toHaveLength(1);
    expect(writes[0].fields).toContain('request_timeout');
    expect(writes[0].fields).not.toContain('bindpass');
    expect(state().resources['ops/ldap'].rotated_by_service.bindpass).toBe(at);
    // Back to the timeout the next test starts from.
    expect((await quietRun(['apply', '--auto-approve', '--synth-env', 'OPS_TIMEOUT'], { OPS_TIMEOUT: '60s' })).code).toBe(0);
  });

  test('a new value in code is an intentional update, planned as a sensitive update with that reason, and hands the root back', async () => {
    const handBack = { OPS_TIMEOUT: '60s', OPS_BINDPASS: 'new-bindpass-from-code-3d1e' };
    const plan = JSON.parse((await quietRun(['plan', '--format', 'json', '--synth-env', 'OPS_TIMEOUT'], handBack)).stdout);
    const change = plan.resource_changes.find((c: any) => c.address === 'ops/ldap');
    expect(change.actions).toEqual(['update']);
    expect(change.sensitive).toEqual(['bindpass']);
    expect(change.action_reason).toContain('bindpass, rotated by the service, changed in code');
    expect(change.managed_by_service).toBeUndefined();

    const count = server.requestCount;
    expect((await quietRun(['apply', '--no-synth', '--auto-approve'], handBack)).code).toBe(0);
    const writes = logSince(server.requestLog.length - (server.requestCount - count)).filter((entry) => entry.method === 'POST' && entry.path === 'ldap/config');
    expect(writes.map((entry) => entry.fields.includes('bindpass'))).toEqual([true]);
    expect(state().resources['ops/ldap'].rotated_by_service).toBeUndefined();
    expect((await quietRun(['plan', '--no-synth', '--detailed-exitcode'], handBack)).code).toBe(0);
  });

  test('the eventual consistency after a rotation is retried, not reported: a second rotate-root right after the first succeeds once the service settles', async () => {
    const first = await quietRun(['action', 'rotate-root', 'ops/cloud', '--no-synth', '--format', 'json']);
    expect(first.code).toBe(0);
    expect(Object.keys(JSON.parse(first.stdout))).toEqual(['rotated_at']);
    // The server's clock stands still: the second rotation is refused as "still propagating" until it moves.
    const second = startCli(['action', 'rotate-root', 'ops/cloud', '--no-synth'], project, env);
    await waitFor(() => server.requestLog.some((entry) => entry.path === 'cloud/rotate-root' && entry.status === 500), 'a refused rotation');
    clock.advance(10_000);
    const { code } = await second.exited;
    quietOutputs.push(second.stdout(), second.stderr());
    expect(second.stderr()).toBe('');
    expect(code).toBe(0);
    expect((server.inspectMount('cloud') as { rotations: number }).rotations).toBe(2);
  });
});

describe('no credential is kept anywhere', () => {
  test('state, synth output, every stream and the request log hold no credential value, and each returned value only the stdout that returned it', () => {
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else files.push(path);
      }
    };
    walk(project);
    const fileTexts = files.filter((path) => !path.endsWith('main.js')).map((path) => ({ path, text: readFileSync(path, 'utf8') }));
    const secrets = [...new Set([...returned.map((entry) => entry.value), BINDPASS, SECOND_BINDPASS, CLOUD_SECRET, SECOND_CLOUD_SECRET, USER_PASSWORD, 'new-bindpass-from-code-3d1e'])];
    expect(returned.length).toBeGreaterThan(10);
    const log = JSON.stringify(server.requestLog);
    const leaks: string[] = [];
    for (const secret of secrets) {
      for (const file of fileTexts) if (file.text.includes(secret)) leaks.push(`${file.path}: ${secret}`);
      quietOutputs.forEach((text, index) => {
        if (text.includes(secret)) leaks.push(`quiet output #${index}: ${secret}`);
      });
      if (log.includes(secret)) leaks.push(`request log: ${secret}`);
    }
    // Every output the harness saw: a returned value is only in stdout of runs that returned credentials.
    for (const entry of returned) credentialStdouts.add(entry.stdout);
    for (const entry of returned) {
      const holders = transcript.filter((text) => text.includes(entry.value));
      expect(holders).toContain(entry.stdout);
      expect(holders.filter((text) => !credentialStdouts.has(text))).toEqual([]);
    }
    expect(leaks).toEqual([]);
  });
});
