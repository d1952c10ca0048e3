/**
 * The CLI end to end: the real binary against a dev server, from a cdktf project. The tests of this file run in
 * order over one server and one project (plan, apply, drift, targets, state, import, destroy), as a user would;
 * the last one searches everything they printed and wrote for the secret values used.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { call } from '../devserver/http';
import { ALICE_PASSWORD, ANSI, BOB_PASSWORD, cliEnv, createProject, runCli, transcript } from './cli-harness';

jest.setTimeout(120_000);

let server: DevServer;
let project: string;
let env: NodeJS.ProcessEnv;
const writes = () => server.requestLog.filter((entry) => entry.method !== 'GET' && entry.method !== 'LIST');
const statePath = () => join(project, '.secretform', 'e2e.state.json');

beforeAll(async () => {
  server = await startDevServer({ port: 0, rootToken: 'cli-e2e-root' });
  project = createProject();
  env = cliEnv(server);
});

afterAll(async () => {
  await server?.close();
});

describe('secretform CLI against the dev server', () => {
  test('rejects bad flag values with exit 1 before anything happens', async () => {
    const before = server.requestLog.length;
    const parallelism = await runCli(['plan', '--parallelism', '0'], project, env);
    expect(parallelism.code).toBe(1);
    expect(parallelism.stderr).toBe('Error: --parallelism must be a positive integer (1, 2, ...), got "0"\n');
    const format = await runCli(['plan', '--format', 'yaml'], project, env);
    expect(format.code).toBe(1);
    expect(format.stderr).toBe('Error: --format must be one of text, markdown, json; got "yaml"\n');
    const unknown = await runCli(['apply', '--yes'], project, env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("unknown option '--yes'");
    const noSynthApp = await runCli(['plan', '--no-synth', '--app', 'node main.js'], project, env);
    expect(noSynthApp.code).toBe(1);
    expect(noSynthApp.stderr).toContain('cannot be combined with --no-synth');
    expect(server.requestLog.length).toBe(before);
    expect(existsSync(join(project, 'cdktf.out'))).toBe(false);
  });

  test('without SERVICE_TOKEN, fails with a clear error and sends nothing', async () => {
    const before = server.requestLog.length;
    const result = await runCli(['plan'], project, cliEnv(server, { SERVICE_TOKEN: undefined }));
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('Error: SERVICE_TOKEN is not set: export the service token as SERVICE_TOKEN (secretform never takes it on the command line)\n');
    expect(result.stdout).toBe('');
    expect(server.requestLog.length).toBe(before);
  });

  test('plan synthesizes first and prints a text plan without colour on a pipe; --detailed-exitcode gives 2', async () => {
    const result = await runCli(['plan', '--detailed-exitcode'], project, env);
    expect(result.stderr).not.toContain('Error');
    expect(result.code).toBe(2);
    expect(existsSync(join(project, 'cdktf.out', 'stacks', 'e2e', 'cdk.tf.json'))).toBe(true);
    expect(result.stdout).toContain('e2e/alice will be created');
    expect(result.stdout).toContain('e2e/userpass will be created');
    expect(result.stdout).toContain('e2e/kv will be created');
    expect(result.stdout).toContain('Plan: 3 to add, 0 to change, 0 to destroy.');
    expect(result.stdout).not.toMatch(ANSI);
    expect(writes()).toEqual([]);
  });

  test('colour appears only when forced, and NO_COLOR wins over nothing else', async () => {
    const forced = await runCli(['plan', '--no-synth'], project, cliEnv(server, { FORCE_COLOR: '1' }));
    expect(forced.code).toBe(0);
    expect(forced.stdout).toMatch(ANSI);
    const noColor = await runCli(['plan', '--no-synth'], project, cliEnv(server, { NO_COLOR: '1' }));
    expect(noColor.code).toBe(0);
    expect(noColor.stdout).not.toMatch(ANSI);
    expect(noColor.stderr).not.toMatch(ANSI);
  });

  test('plan --format json prints the interface shape on stdout, nothing else', async () => {
    const result = await runCli(['plan', '--no-synth', '--format', 'json'], project, env);
    expect(result.code).toBe(0);
    const plan = JSON.parse(result.stdout);
    expect(Object.keys(plan).sort()).toEqual(['format_version', 'resource_changes', 'resource_drift', 'stack', 'summary']);
    expect(plan.format_version).toBe('1.0');
    expect(plan.stack).toBe('e2e');
    expect(plan.summary).toEqual({ create: 3, update: 0, replace: 0, delete: 0, forget: 0, no_op: 0, drifted: 0 });
    const alice = plan.resource_changes.find((c: { address: string }) => c.address === 'e2e/alice');
    expect(alice).toMatchObject({ type: 'userpass_user', id: 'auth/userpass/users/alice', actions: ['create'], before: null, sensitive: ['password'] });
    expect(Object.keys(alice).sort()).toEqual(expect.arrayContaining(['address', 'type', 'id', 'actions', 'before', 'after', 'sensitive', 'replace_paths']));
    expect(alice.after).toMatchObject({ username: 'alice' });
    expect(alice.after).not.toHaveProperty('password');
  });

  test('plan --format markdown prints the comment; --out-file writes it to a file instead', async () => {
    const stdout = await runCli(['plan', '--no-synth', '--format', 'markdown'], project, env);
    expect(stdout.code).toBe(0);
    expect(stdout.stdout).toContain('📝 **Changes** for stack `e2e`: 3 to add, 0 to change, 0 to destroy, 0 drifted');
    expect(stdout.stdout).toContain('<details>');
    expect(stdout.stdout).not.toContain('<sub>'); // no CI, no saved plan: no context line

    const file = await runCli(['plan', '--no-synth', '--format', 'markdown', '--out-file', 'reports/plan.md'], project, env);
    expect(file.code).toBe(0);
    expect(file.stdout).toBe('');
    expect(file.stderr).toBe('Plan written to reports/plan.md\n');
    expect(readFileSync(join(project, 'reports', 'plan.md'), 'utf8')).toBe(stdout.stdout);

    const json = await runCli(['plan', '--no-synth', '--format', 'json', '--out-file', 'reports/plan.json'], project, env);
    expect(json.code).toBe(0);
    expect(JSON.parse(readFileSync(join(project, 'reports', 'plan.json'), 'utf8')).summary.create).toBe(3);

    const github = { GITHUB_ACTIONS: 'true', GITHUB_SHA: '0123456789abcdef', GITHUB_SERVER_URL: 'https://github.com', GITHUB_REPOSITORY: 'acme/infra', GITHUB_RUN_ID: '77' };
    const ci = await runCli(['plan', '--no-synth', '--format', 'markdown', '--out', 'reports/plan.out'], project, { ...env, ...github });
    expect(ci.stderr).toContain('Saved the plan to reports/plan.out');
    expect(ci.stdout.split('\n')[2]).toMatch(
      /^<sub>Commit `0123456` · \[run 77\]\(https:\/\/github\.com\/acme\/infra\/actions\/runs\/77\) · \d{4}-\d\d-\d\d \d\d:\d\d UTC · applies on merge with `secretform apply reports\/plan\.out`<\/sub>$/,
    );
  });

  test('apply without --auto-approve on a non-interactive stdin refuses and changes nothing', async () => {
    const before = server.requestLog.length;
    const result = await runCli(['apply'], project, env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Error: apply needs approval, but stdin is not interactive');
    expect(result.stderr).toContain('secretform apply --auto-approve');
    expect(server.requestLog.length).toBe(before);
    expect(writes()).toEqual([]);
    expect(existsSync(statePath())).toBe(false);
  });

  test('the refusal repeats the run\'s --stack and --target, so the command it gives applies what was asked', async () => {
    const before = server.requestLog.length;
    const result = await runCli(['destroy', '--stack', 'e2e*', '--target', 'e2e/alice'], project, env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("Review the plan (secretform plan --stack 'e2e*' --target e2e/alice)");
    expect(result.stderr).toContain("run `secretform destroy --stack 'e2e*' --target e2e/alice --auto-approve` to destroy");
    expect(server.requestLog.length).toBe(before);
  });

  test('apply --auto-approve shows the plan, creates everything and prints the summary', async () => {
    const result = await runCli(['apply', '--auto-approve'], project, env);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Plan: 3 to add, 0 to change, 0 to destroy.');
    expect(result.stdout).toContain('e2e/alice: created');
    expect(result.stdout).toContain('Apply complete! Resources: 3 added, 0 changed, 0 destroyed.');
    const login = await call(server, 'POST', 'auth/userpass/login/alice', { password: ALICE_PASSWORD }, null);
    expect(login.status).toBe(200);
    expect(login.body.auth.policies).toContain('default');
    expect((await call(server, 'GET', 'sys/mounts/apps')).status).toBe(200);
  });

  test('after apply, plan shows no changes and --detailed-exitcode gives 0; apply has nothing to do', async () => {
    const plan = await runCli(['plan', '--detailed-exitcode'], project, env);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('No changes. Your configuration matches the service.');

    const writesBefore = writes().length;
    const apply = await runCli(['apply', '--no-synth', '--auto-approve'], project, env);
    expect(apply.code).toBe(0);
    expect(apply.stdout).toContain('Nothing to apply.');
    expect(apply.stdout).not.toContain('Apply complete!');
    expect(writes().length).toBe(writesBefore);
  });

  test('plan --refresh-only reports drift made outside the code with exit 2, and changes nothing', async () => {
    const changed = await call(server, 'POST', 'auth/userpass/users/alice', { token_ttl: 7200 });
    expect(changed.status).toBe(204);
    const writesBefore = writes().length;

    const result = await runCli(['plan', '--no-synth', '--refresh-only', '--detailed-exitcode', '--format', 'json'], project, env);
    expect(result.code).toBe(2);
    const plan = JSON.parse(result.stdout);
    expect(plan.resource_drift).toEqual([
      expect.objectContaining({ address: 'e2e/alice', type: 'userpass_user', kind: 'changed', after: expect.objectContaining({ token_ttl: 7200 }) }),
    ]);
    expect(plan.resource_changes.every((c: { actions: string[] }) => c.actions[0] === 'no-op')).toBe(true);

    const text = await runCli(['plan', '--no-synth', '--refresh-only'], project, env);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('Objects have changed outside of secretform');
    expect(writes().length).toBe(writesBefore);

    const repaired = await runCli(['apply', '--no-synth', '--auto-approve'], project, env);
    expect(repaired.code).toBe(0);
    expect(repaired.stdout).toContain('Apply complete! Resources: 0 added, 1 changed, 0 destroyed.');
  });

  test('--target limits apply to the address named', async () => {
    const twoUsers = cliEnv(server, { SF_E2E_USERS: 'alice,bob,carol', SF_E2E_TTL: '2h' });
    const result = await runCli(['apply', '--auto-approve', '--target', 'e2e/bob'], project, twoUsers);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Apply complete! Resources: 1 added, 0 changed, 0 destroyed.');
    expect((await call(server, 'GET', 'auth/userpass/users/bob')).status).toBe(200);
    expect((await call(server, 'GET', 'auth/userpass/users/carol')).status).toBe(404);
    expect((await call(server, 'GET', 'auth/userpass/users/alice')).body.data.token_ttl).toBe(3600);
    const bobLogin = await call(server, 'POST', 'auth/userpass/login/bob', { password: BOB_PASSWORD }, null);
    expect(bobLogin.status).toBe(200);

    const rest = await runCli(['plan', '--no-synth', '--format', 'json'], project, twoUsers);
    const actions = Object.fromEntries(JSON.parse(rest.stdout).resource_changes.map((c: { address: string; actions: string[] }) => [c.address, c.actions.join(',')]));
    expect(actions).toMatchObject({ 'e2e/alice': 'update', 'e2e/bob': 'no-op', 'e2e/carol': 'create', 'e2e/userpass': 'no-op' });
  });

  test('state list, show and rm work on the state file; import adopts the object again', async () => {
    const list = await runCli(['state', 'list'], project, env);
    expect(list.code).toBe(0);
    expect(list.stdout).toBe('e2e/alice\ne2e/bob\ne2e/kv\ne2e/userpass\n');

    const show = await runCli(['state', 'show', 'e2e/alice'], project, env);
    expect(show.code).toBe(0);
    const entry = JSON.parse(show.stdout);
    expect(entry).toMatchObject({ address: 'e2e/alice', type: 'userpass_user', id: 'auth/userpass/users/alice', secret_fields: ['password'] });
    expect(entry.attributes).toMatchObject({ username: 'alice' });

    const missing = await runCli(['state', 'show', 'e2e/nobody'], project, env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^Error: e2e\/nobody is not in state /);

    const rm = await runCli(['state', 'rm', 'e2e/bob'], project, env);
    expect(rm.code).toBe(0);
    expect(rm.stdout).toContain('Removed e2e/bob from state');
    expect((await runCli(['state', 'list'], project, env)).stdout).toBe('e2e/alice\ne2e/kv\ne2e/userpass\n');
    expect((await call(server, 'GET', 'auth/userpass/users/bob')).status).toBe(200);

    const usersWithBob = cliEnv(server, { SF_E2E_USERS: 'alice,bob' });
    const imported = await runCli(['import', 'e2e/bob', 'auth/userpass/users/bob'], project, usersWithBob);
    expect(imported.stderr).toBe('');
    expect(imported.code).toBe(0);
    expect(imported.stdout).toContain('Imported auth/userpass/users/bob as e2e/bob (userpass_user).');
    expect((await runCli(['state', 'list'], project, env)).stdout).toBe('e2e/alice\ne2e/bob\ne2e/kv\ne2e/userpass\n');
    // bob was created with token_ttl 2h; the code now says 1h: the imported entry holds the live object, so the
    // plan shows exactly that difference.
    const plan = await runCli(['plan', '--no-synth', '--detailed-exitcode'], project, usersWithBob);
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain('e2e/bob will be updated in-place');
    expect(plan.stdout).toContain('~ token_ttl = 7200 -> 3600');
    expect(plan.stdout).toContain('Plan: 0 to add, 1 to change, 0 to destroy.');
  });

  test('destroy refuses without --auto-approve on a pipe, then deletes everything in state', async () => {
    const refused = await runCli(['destroy'], project, env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('secretform destroy --auto-approve');

    const result = await runCli(['destroy', '--auto-approve'], project, cliEnv(server, { SF_E2E_USERS: 'alice,bob' }));
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('e2e/alice will be destroyed');
    expect(result.stdout).toContain('Destroy complete! Resources: 4 destroyed.');
    expect((await call(server, 'GET', 'sys/auth')).body.data).not.toHaveProperty(['userpass/']);
    expect((await call(server, 'GET', 'sys/mounts/apps')).status).not.toBe(200);
    expect((await runCli(['state', 'list'], project, env)).stdout).toBe('');

    const again = await runCli(['destroy', '--no-synth', '--auto-approve'], project, env);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe('No resources in state for stack e2e to destroy. Nothing to do.\n');
  });

  test('no output, report, synth output or state file holds a secret value', () => {
    const files = [statePath(), join(project, 'cdktf.out', 'stacks', 'e2e', 'cdk.tf.json'), ...readdirSync(join(project, 'reports')).map((name) => join(project, 'reports', name))];
    const texts = [...transcript, ...files.filter((file) => existsSync(file)).map((file) => readFileSync(file, 'utf8'))];
    for (const secret of [ALICE_PASSWORD, BOB_PASSWORD]) {
      expect(texts.filter((text) => text.includes(secret))).toEqual([]);
    }
    expect(transcript.filter((text) => text.includes(server.rootToken))).toEqual([]);
    expect(transcript.length).toBeGreaterThan(40);
  });
});
