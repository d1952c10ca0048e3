/**
 * docs/http-api.md, followed as written: its marked `curl` blocks run by bash, in the page's order, against a
 * fresh `secretform dev-server` (on a free port instead of 8200), and the drift they make is the drift the page
 * says the next `secretform plan` reports.
 */
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, ROOT, runCli } from './cli-harness';
import { markdownFileBlocks } from '../support/readme-blocks';
import { startDevServerProcess, stopDevServerProcess } from '../support/dev-server-process';
import { runBash } from '../support/run-bash';
import { tempDir } from '../support/temp-dir';

jest.setTimeout(120_000);

const PAGE = join(ROOT, 'docs', 'http-api.md');
const PASSWORD = 'choose-a-password';
const servers: ChildProcess[] = [];

/** A fresh dev server, as the page starts one (`secretform dev-server`), on a free port. */
function startDevServer(): Promise<string> {
  const server = startDevServerProcess(process.execPath, [BIN, 'dev-server']);
  servers.push(server.child);
  return server.url;
}

afterAll(() => {
  for (const server of servers) stopDevServerProcess(server);
});

/** Runs the page's blocks by name, after its `http-env.sh` pointed at `url`, as one shell session would. */
function runBlocks(url: string, names: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const blocks = markdownFileBlocks(PAGE);
  const env = blocks.get('http-env.sh')!.replace('http://127.0.0.1:8200', url);
  const script = [env, ...names.map((name) => {
    const block = blocks.get(name);
    if (block === undefined) throw new Error(`docs/http-api.md has no block marked <!-- example: ${name} -->`);
    return `${block}\necho "== end of ${name}"`;
  })].join('\n');
  return runBash(script);
}

test('the page marks its blocks in the order a reader runs them', () => {
  expect([...markdownFileBlocks(PAGE).keys()]).toEqual(['http-env.sh', 'http-create.sh', 'http-drift.sh', 'http-read.sh', 'http-delete.sh']);
});

test('every curl block of the page runs as written against a fresh dev server, and answers what the page says', async () => {
  const url = await startDevServer();
  const run = await runBlocks(url, ['http-create.sh', 'http-drift.sh', 'http-read.sh', 'http-delete.sh']);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);

  const read = run.stdout.split('== end of http-drift.sh\n')[1].split('\n')[0];
  const user = (JSON.parse(read) as { data: Record<string, unknown> }).data;
  expect(user.token_policies).toEqual(['admin', 'deployer']);
  expect(user.token_ttl).toBe(28800);
  expect(JSON.stringify(user)).not.toContain(PASSWORD);
  expect(run.stdout).toMatch(/"keys":\["ci-bot"\]/);
  expect(run.stdout).toMatch(/"client_token":"[^"]+"/);

  const response = await fetch(`${url}/v1/auth/userpass/users/ci-bot`, { headers: { 'X-Service-Token': 'root' } });
  expect(response.status).toBe(404);
});

test('the page\'s drift block makes the next plan report the user as changed outside secretform', async () => {
  const url = await startDevServer();
  const project = tempDir('secretform-http-api-');
  writeFileSync(join(project, 'cdktf.json'), JSON.stringify({ app: 'node main.js' }));
  writeFileSync(join(project, 'main.js'), `
const { App, TerraformStack } = require(${JSON.stringify(join(ROOT, 'node_modules', 'cdktf'))});
const sf = require(${JSON.stringify(join(ROOT, 'dist'))});
const app = new App();
const stack = new TerraformStack(app, 'logins');
const userpass = new sf.AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass' });
new sf.UserpassUser(stack, 'ci-bot', { mount: userpass, username: 'ci-bot', password: sf.SecretValue.fromEnv('CI_BOT_PASSWORD'), tokenPolicies: ['deployer'], tokenTtl: '1h' });
app.synth();
`);
  const env: NodeJS.ProcessEnv = { ...process.env, SERVICE_ADDR: url, SERVICE_TOKEN: 'root', CI_BOT_PASSWORD: PASSWORD, SECRETFORM_STATE_KEY: 'docs-key' };
  expect((await runCli(['apply', '--auto-approve'], project, env)).code).toBe(0);

  const drift = await runBlocks(url, ['http-drift.sh']);
  expect(drift.code).toBe(0);

  const plan = await runCli(['plan', '--no-synth', '--detailed-exitcode'], project, env);
  expect(plan.code).toBe(2);
  expect(plan.stdout).toContain('# logins/ci-bot has changed');
  expect(plan.stdout).toMatch(/token_policies = \["deployer"\] -> \["admin","deployer"\]/);
  expect(plan.stdout).toMatch(/token_ttl = 3600 -> 28800/);
});
