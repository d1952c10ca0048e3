/**
 * The guardrails end to end (docs/guardrails.md): the real binary against a dev server, from a project whose
 * app is rewritten between steps as a user edits code. The tests run in order over one server and one project:
 * protect (removed from code, needing replacement, destroy), ignoreChanges, the consequences of a delete in
 * every format, retainOnDelete (removed from code, destroy). The dev server's request log proves what was sent.
 * The counts a service cannot give have a server and project of their own, so each of those tests runs alone.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { call } from '../devserver/http';
import { startServiceProxy } from '../support/service-proxy';
import { ALICE_PASSWORD, ROOT, cliEnv, runCli, transcript } from './cli-harness';
import { envelopeOf, type RawReply, type RawServer } from './client-raw-server';
import { tempDir } from '../support/temp-dir';

jest.setTimeout(120_000);

let server: DevServer;
let project: string;
let env: NodeJS.ProcessEnv;
const proxies: RawServer[] = [];
const writes = (from: number) => server.requestLog.slice(from).filter((entry) => entry.method !== 'GET' && entry.method !== 'LIST');
const state = () => JSON.parse(readFileSync(join(project, '.secretform', 'guard.state.json'), 'utf8')) as { resources: Record<string, { protect?: boolean; retain_on_delete?: boolean }> };

/** KV secret values written by "applications"; no report may show them. */
const APP_SECRET = 'kv-application-secret-value-77aa';

interface AppOptions {
  /** The protected KV mount `apps`: in code, protected, and its KV version. */
  apps?: { protect?: boolean; version?: '1' | '2' } | null;
  /** The unprotected KV mount `scratch`, in code or not. */
  scratch?: boolean;
  /** alice: in code or not; its token TTL in code. */
  alice?: { tokenTtl: string } | null;
}

/** Writes the app: a userpass mount (retained), alice (retained, tokenTtl and tokenPolicies ignored), KV mounts. */
function writeApp(options: AppOptions, into = project): void {
  const apps = options.apps === undefined ? { protect: true, version: '2' } : options.apps;
  const alice = options.alice === undefined ? { tokenTtl: '1h' } : options.alice;
  const lines = [
    `const { App, TerraformStack } = require(${JSON.stringify(join(ROOT, 'node_modules', 'cdktf'))});`,
    `const sf = require(${JSON.stringify(join(ROOT, 'dist'))});`,
    'const app = new App();',
    "const stack = new TerraformStack(app, 'guard');",
    "const userpass = new sf.AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass', retainOnDelete: true });",
  ];
  if (alice) {
    lines.push(`new sf.UserpassUser(stack, 'alice', { mount: userpass, username: 'alice', password: sf.SecretValue.fromEnv('SF_E2E_ALICE_PASSWORD'), tokenTtl: ${JSON.stringify(alice.tokenTtl)}, tokenPolicies: ['default'], retainOnDelete: true, ignoreChanges: ['tokenTtl', 'tokenPolicies'] });`);
  }
  if (apps) {
    lines.push(`new sf.SecretsMount(stack, 'apps', { path: 'apps', type: 'kv', options: { version: ${JSON.stringify(apps.version ?? '2')} }, protect: ${apps.protect === true} });`);
  }
  if (options.scratch !== false) lines.push("new sf.SecretsMount(stack, 'scratch', { path: 'scratch', type: 'kv', options: { version: '2' } });");
  lines.push('app.synth();');
  writeFileSync(join(into, 'main.js'), `${lines.join('\n')}\n`);
}

/** A project directory with its cdktf.json; the app is written by writeApp. */
function newProject(): string {
  const dir = tempDir('secretform-guard-e2e-');
  writeFileSync(join(dir, 'cdktf.json'), JSON.stringify({ language: 'typescript', app: 'node main.js' }));
  return dir;
}

beforeAll(async () => {
  server = await startDevServer({ port: 0, rootToken: 'guard-e2e-root' });
  project = newProject();
  env = cliEnv(server);
  writeApp({});
});

afterAll(async () => {
  await Promise.all(proxies.map((proxy) => proxy.close()));
  await server?.close();
});

describe('guardrails through the CLI', () => {
  test('apply records protect and retainOnDelete in state', async () => {
    const applied = await runCli(['apply', '--auto-approve'], project, env);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    const resources = state().resources;
    expect(resources['guard/apps'].protect).toBe(true);
    expect(resources['guard/userpass'].retain_on_delete).toBe(true);
    expect(resources['guard/alice'].retain_on_delete).toBe(true);
    expect(resources['guard/scratch'].protect).toBeUndefined();
    for (const [mount, name] of [['apps', 'team/db'], ['apps', 'team/api'], ['apps', 'web'], ['scratch', 'one'], ['scratch', 'nested/two']]) {
      expect((await call(server, 'POST', `${mount}/data/${name}`, { data: { value: APP_SECRET } })).status).toBe(200);
    }
  });

  test('removing protect, then adding it back: apply says the protection is what it recorded', async () => {
    writeApp({ apps: { protect: false } });
    const removed = await runCli(['apply', '--auto-approve'], project, env);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain('guard/apps: protect removed from state: it can be deleted or replaced again; nothing changed on the service\n');
    expect(removed.stdout).not.toContain('refreshed state recorded');
    expect(state().resources['guard/apps'].protect).toBeUndefined();
    writeApp({});
    const added = await runCli(['apply', '--auto-approve'], project, env);
    expect(added.code).toBe(0);
    expect(added.stdout).toContain('guard/apps: protect recorded in state: a plan that deletes or replaces it fails; nothing changed on the service\n');
    expect(state().resources['guard/apps'].protect).toBe(true);
  });

  test('a plan with no delete sends no request besides the refresh reads', async () => {
    const from = server.requestLog.length;
    const plan = await runCli(['plan', '--no-synth', '--detailed-exitcode'], project, env);
    expect(plan.code).toBe(0);
    const sent = server.requestLog.slice(from);
    expect(sent.filter((entry) => entry.method === 'LIST' || entry.path.includes('metadata'))).toEqual([]);
    // One read per object (the mounts from their listings, each sent once).
    expect(sent.map((entry) => `${entry.method} ${entry.path}`).sort()).toEqual(
      ['GET auth/userpass/users/alice', 'GET sys/auth', 'GET sys/mounts'].sort(),
    );
  });

  test('a protected object removed from code: plan and apply exit 1, name it, and send nothing', async () => {
    writeApp({ apps: null });
    const from = server.requestLog.length;
    const plan = await runCli(['plan'], project, env);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('guard/apps (sys/mounts/apps): its construct was removed from the code');
    expect(plan.stderr).toContain('protect: true');
    const apply = await runCli(['apply', '--auto-approve', '--no-synth'], project, env);
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('guard/apps (sys/mounts/apps)');
    expect(apply.stderr).toContain('nothing was changed');
    expect(writes(from)).toEqual([]);
    expect((await call(server, 'GET', 'apps/data/team/db')).status).toBe(200);
  });

  test('a protected object needing replacement: plan and apply exit 1 naming the field, nothing sent', async () => {
    writeApp({ apps: { protect: true, version: '1' } });
    const from = server.requestLog.length;
    const plan = await runCli(['plan', '--format', 'json'], project, env);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('guard/apps (sys/mounts/apps): would be replaced because options cannot change on an existing object');
    const apply = await runCli(['apply', '--auto-approve', '--no-synth'], project, env);
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('would be replaced');
    expect(writes(from)).toEqual([]);
  });

  test('ignored fields changed on the service and in code: no diff and no drift', async () => {
    writeApp({ alice: { tokenTtl: '2h' } });
    expect((await call(server, 'POST', 'auth/userpass/users/alice', { token_ttl: 300, token_policies: ['ops'] })).status).toBe(204);
    const plan = await runCli(['plan', '--detailed-exitcode', '--format', 'json'], project, env);
    expect(plan.stderr).toBe('');
    expect(plan.code).toBe(0);
    const json = JSON.parse(plan.stdout);
    expect(json.resource_drift).toEqual([]);
    expect(json.resource_changes.find((change: { address: string }) => change.address === 'guard/alice').actions).toEqual(['no-op']);
    const from = server.requestLog.length;
    const apply = await runCli(['apply', '--auto-approve', '--no-synth'], project, env);
    expect(apply.code).toBe(0);
    expect(writes(from)).toEqual([]);
    const live = await call(server, 'GET', 'auth/userpass/users/alice');
    expect(live.body.data.token_ttl).toBe(300);
    expect(live.body.data.token_policies).toEqual(['ops']);
  });

  describe('a count the service cannot give (a proxy answers one listing wrongly, or refuses it) is unknown, never 0', () => {
    const METADATA = '/v1/scratch/metadata';
    const DETAIL = 'the secrets stored in kv mount "scratch" are deleted with it (and its leases revoked)';
    const NOT_NAMES = 'not the list of names the service answers (an array of strings: data.keys, or a bare JSON array)';
    // Their own server and project, set up here: each test passes alone (`-t`), whatever the story above did.
    let countServer: DevServer;
    let countProject: string;
    let countEnv: NodeJS.ProcessEnv;

    beforeAll(async () => {
      countServer = await startDevServer({ port: 0, rootToken: 'guard-e2e-count-root' });
      countProject = newProject();
      countEnv = cliEnv(countServer);
      writeApp({}, countProject);
      const applied = await runCli(['apply', '--auto-approve'], countProject, countEnv);
      expect(applied.stderr).toBe('');
      expect(applied.code).toBe(0);
      // Secrets in `scratch`, one of them in a folder below: the listings a delete of the mount counts.
      for (const name of ['one', 'nested/two']) {
        expect((await call(countServer, 'POST', `scratch/data/${name}`, { data: { value: APP_SECRET } })).status).toBe(200);
      }
      // `scratch` removed from code and synthesized once: the plans below read the output (--no-synth).
      writeApp({ scratch: false }, countProject);
      const synthesized = await runCli(['synth'], countProject, countEnv);
      expect(synthesized.code).toBe(0);
    });

    afterAll(async () => {
      await countServer?.close();
    });

    const planThrough = async (wrong: string, reply: RawReply, format: 'text' | 'markdown' | 'json') => {
      const proxy = await startServiceProxy(countServer.url, (request) => (`${request.method} ${request.path}` === wrong ? reply : undefined));
      proxies.push(proxy);
      // The proxy is the same service at another address: --migrate-state lets the plan read it (plan writes nothing).
      const args = ['plan', '--migrate-state', '--no-synth', ...(format === 'text' ? [] : ['--format', format])];
      return runCli(args, countProject, { ...countEnv, SERVICE_ADDR: proxy.url });
    };
    const scratchChange = (stdout: string) => JSON.parse(stdout).resource_changes.find((entry: { address: string }) => entry.address === 'guard/scratch');

    test('a listing answered 200 with {}: could not be counted, with the endpoint and why, in text, markdown and JSON; the plan completes', async () => {
      const why = `LIST ${METADATA} answered HTTP 200 with an object without "keys" where a list was expected: ${NOT_NAMES}`;
      const text = await planThrough(`LIST ${METADATA}`, { status: 200, body: {} }, 'text');
      expect(text.code).toBe(0);
      expect(text.stdout).toContain(`  # guard/scratch will be destroyed\n  # ! an unknown number of secrets go with it: ${DETAIL}\n  #   could not be counted: ${why}\n`);
      // The reason once, under the resource; the warning names the resource and what, and points up.
      expect(text.stdout).toContain('Warning: guard/scratch: could not count the secrets its delete takes with it (see above); review them by hand\n');
      expect(text.stdout.split(why).length - 1).toBe(1);
      expect(text.stdout).not.toMatch(/0 secrets go with it/);
      const markdown = await planThrough(`LIST ${METADATA}`, { status: 200, body: {} }, 'markdown');
      expect(markdown.code).toBe(0);
      const warning = markdown.stdout.slice(markdown.stdout.indexOf('> [!CAUTION]'));
      expect(warning).toContain(`>     - could not be counted: LIST ${METADATA} answered HTTP 200 with an object without &quot;keys&quot;`);
      expect(warning).toContain('>   - ⚠️ an unknown number of secrets go with it: ');
      expect(markdown.stdout).toContain('> - guard/scratch: could not count the secrets its delete takes with it (see above); review them by hand');
      expect(markdown.stdout.split(`LIST ${METADATA} answered`).length - 1).toBe(1);
      // Beside a markdown or JSON report, stderr has no "above": its warning keeps the reason.
      expect(markdown.stderr).toContain(`guard/scratch: could not count the secrets its delete takes with it on the service (${why}); review them by hand`);
      const json = await planThrough(`LIST ${METADATA}`, { status: 200, body: {} }, 'json');
      expect(json.code).toBe(0);
      const change = scratchChange(json.stdout);
      expect(change.actions).toEqual(['delete']);
      expect(change.consequences).toEqual([{ what: 'secrets', count: null, uncounted: why, detail: DETAIL }]);
      for (const out of [text, markdown, json]) expect(`${out.stdout}${out.stderr}`).not.toContain(APP_SECRET);
    });

    test.each<[string, string, RawReply, string]>([
      ['an envelope without keys', `LIST ${METADATA}`, { status: 200, body: envelopeOf({}) }, `LIST ${METADATA} answered HTTP 200 with an object without "keys"`],
      ['keys that are not all strings', `LIST ${METADATA}`, { status: 200, body: envelopeOf({ keys: ['one', 7] }) }, 'with a list with entries that are not strings (a number)'],
      ['a JSON null', `LIST ${METADATA}`, { status: 200, headers: { 'content-type': 'application/json' }, body: 'null' }, `LIST ${METADATA} answered HTTP 200 with a JSON null`],
      ['{} for a folder below', `LIST ${METADATA}/nested`, { status: 200, body: {} }, `LIST ${METADATA}/nested answered HTTP 200 with an object without "keys"`],
      ['403', `LIST ${METADATA}`, { status: 403, body: { errors: ['permission denied'] } }, `LIST ${METADATA} failed with HTTP 403: permission denied.`],
      // A 404 counts 0 only in the service's own shape ({"errors": []}): another server's 404 tells nothing.
      ['404 text/html', `LIST ${METADATA}`, { status: 404, headers: { 'content-type': 'text/html' }, body: '<html><body>Not Found</body></html>' }, `LIST ${METADATA} answered HTTP 404 without the service's error body`],
      ['404 with JSON that is not the service\'s', `LIST ${METADATA}`, { status: 404, body: { message: 'Not Found' } }, `LIST ${METADATA} answered HTTP 404 without the service's error body`],
      ['404 text/html for a folder below', `LIST ${METADATA}/nested`, { status: 404, headers: { 'content-type': 'text/html' }, body: '<h1>404</h1>' }, `LIST ${METADATA}/nested answered HTTP 404 without`],
    ])('a listing answered with %s: JSON count null with why, never 0', async (_name, wrong, reply, said) => {
      const json = await planThrough(wrong, reply, 'json');
      expect(json.code).toBe(0);
      expect(scratchChange(json.stdout).consequences).toEqual([{ what: 'secrets', count: null, uncounted: expect.stringContaining(said), detail: DETAIL }]);
    });
  });

  test('a KV mount with secrets planned for deletion: the count in text, markdown and JSON', async () => {
    writeApp({ alice: { tokenTtl: '2h' }, scratch: false });
    const text = await runCli(['plan'], project, env);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('guard/scratch will be destroyed');
    expect(text.stdout).toContain('# ! 2 secrets go with it: the secrets stored in kv mount "scratch" are deleted with it');
    const markdown = await runCli(['plan', '--no-synth', '--format', 'markdown'], project, env);
    expect(markdown.code).toBe(0);
    const warning = markdown.stdout.slice(markdown.stdout.indexOf('> [!CAUTION]'));
    expect(warning).toContain('guard/scratch');
    expect(warning).toContain('2 secrets go with it');
    const json = await runCli(['plan', '--no-synth', '--format', 'json'], project, env);
    const change = JSON.parse(json.stdout).resource_changes.find((entry: { address: string }) => entry.address === 'guard/scratch');
    expect(change.actions).toEqual(['delete']);
    expect(change.consequences).toEqual([{ what: 'secrets', count: 2, detail: 'the secrets stored in kv mount "scratch" are deleted with it (and its leases revoked)' }]);
    const apply = await runCli(['apply', '--auto-approve', '--no-synth'], project, env);
    expect(apply.code).toBe(0);
    expect((await call(server, 'GET', 'scratch/data/one')).status).not.toBe(200);
  });

  test('a retained object removed from code is forgotten: still on the service, gone from state, no request', async () => {
    writeApp({ alice: null, scratch: false });
    const plan = await runCli(['plan', '--format', 'json'], project, env);
    expect(plan.code).toBe(0);
    const json = JSON.parse(plan.stdout);
    expect(json.resource_changes.find((entry: { address: string }) => entry.address === 'guard/alice').actions).toEqual(['forget']);
    expect(json.summary).toMatchObject({ forget: 1, delete: 0 });
    const text = await runCli(['plan', '--no-synth'], project, env);
    expect(text.stdout).toContain('guard/alice will no longer be managed by secretform');
    expect(text.stdout).toContain('Plan: 0 to add, 0 to change, 0 to destroy, 1 to forget.');
    const from = server.requestLog.length;
    const apply = await runCli(['apply', '--auto-approve', '--no-synth'], project, env);
    expect(apply.code).toBe(0);
    expect(apply.stdout).toContain('guard/alice: forgotten: removed from state, left on the service (retainOnDelete)');
    expect(writes(from)).toEqual([]);
    expect(state().resources['guard/alice']).toBeUndefined();
    expect((await call(server, 'GET', 'auth/userpass/users/alice')).status).toBe(200);
  });

  test('destroy refuses while an object is protected, then forgets retained objects and deletes the rest', async () => {
    const from = server.requestLog.length;
    const refused = await runCli(['destroy', '--auto-approve'], project, env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('guard/apps (sys/mounts/apps): `secretform destroy` would delete it');
    expect(writes(from)).toEqual([]);

    writeApp({ apps: { protect: false }, alice: null, scratch: false });
    const unprotect = await runCli(['apply', '--auto-approve'], project, env);
    expect(unprotect.code).toBe(0);
    expect(state().resources['guard/apps'].protect).toBeUndefined();
    const destroyed = await runCli(['destroy', '--auto-approve'], project, env);
    expect(destroyed.stderr).toBe('');
    expect(destroyed.code).toBe(0);
    expect(destroyed.stdout).toContain('guard/userpass: forgotten: removed from state, left on the service (retainOnDelete)');
    expect(state().resources).toEqual({});
    const auth = await call(server, 'GET', 'sys/auth');
    expect(Object.keys(auth.body.data ?? auth.body)).toContain('userpass/');
    expect((await call(server, 'GET', 'apps/data/team/db')).status).not.toBe(200);
  });

  test('no output shows a secret value', () => {
    const everything = transcript.join('\n') + readFileSync(join(project, '.secretform', 'guard.state.json'), 'utf8');
    expect(everything).not.toContain(ALICE_PASSWORD);
    expect(everything).not.toContain(APP_SECRET);
  });
});
