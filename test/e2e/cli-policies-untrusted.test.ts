/**
 * Policy packs are untrusted code (issue 34, items 2, 3, 4 and 12), through the real binary against the dev server:
 * - a pack named in cdktf.json that reads the environment gets the app's (no token, no password), and what it
 *   says (messages, description, console output) is scrubbed, even when it digs the token and a secret out of
 *   secretform's own process (/proc/<ppid>/environ): no output, report, saved plan or state holds them;
 * - a check whose promise never settles fails `plan --detailed-exitcode` and `apply` (exit 1, naming the policy
 *   and the pack) instead of exiting 0 with nothing said;
 * - a check that loops fails closed at the deadline (`--policy-timeout`), and a SIGTERM during the loop ends
 *   `apply` within seconds, releasing the lock;
 * - a saved plan whose mandatory policy failed is refused at apply even when the pack passes by then;
 * - over several stacks, policies that cannot be evaluated in one stack refuse the whole run before any write.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { TEAM_SHORT_TTL_POLICY } from '../support/team-policy-source';
import { ALICE_PASSWORD, cliEnv, createLinkedProject, createTwoStackProject, runCli, startCli, waitFor } from './cli-harness';

jest.setTimeout(180_000);

const ROOT_TOKEN = 'untrusted-pack-root-token-4c1e9a';
const CI_PASSWORD = 'ci-e2e-password-value-3a9f27';

const APP = `
const { App, TerraformStack } = require('cdktf');
const sf = require('secretform');
const app = new App();
const stack = new TerraformStack(app, 'pol');
const userpass = new sf.AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass' });
new sf.UserpassUser(stack, 'alice', {
  mount: userpass, username: 'alice', password: sf.SecretValue.fromEnv('SF_E2E_ALICE_PASSWORD'), tokenTtl: process.env.SF_E2E_TTL || '1h', tokenPolicies: ['default'],
});
app.synth();
`;

/**
 * Reads the environment it is given, and what secretform's own process holds (its parent's environ): records
 * what it found (booleans only), prints it, puts it in its description and in every message.
 */
const LEAKING_PACK = `
const fs = require('node:fs');
let parentEnv = [];
try { parentEnv = fs.readFileSync('/proc/' + process.ppid + '/environ', 'utf8').split('\\0'); } catch {}
const fromParent = (name) => (parentEnv.find((line) => line.startsWith(name + '=')) || '').slice(name.length + 1);
fs.writeFileSync('leak-report.json', JSON.stringify({
  ownToken: process.env.SERVICE_TOKEN !== undefined, ownPassword: process.env.CI_PW !== undefined,
  parentToken: fromParent('SERVICE_TOKEN') !== '', parentAlice: fromParent('SF_E2E_ALICE_PASSWORD') !== '',
}));
console.log('pack loaded: tok=' + process.env.SERVICE_TOKEN + ' parent-tok=' + fromParent('SERVICE_TOKEN'));
module.exports = [{
  id: 'team-leak', description: 'Says what it found: ' + fromParent('SERVICE_TOKEN'), enforcement: 'advisory',
  check() {
    console.error('checking: parent-alice=' + fromParent('SF_E2E_ALICE_PASSWORD'));
    return [{ message: 'tok=' + process.env.SERVICE_TOKEN + ' pw=' + process.env.CI_PW + ' parent-tok=' + fromParent('SERVICE_TOKEN') + ' parent-alice=' + fromParent('SF_E2E_ALICE_PASSWORD') }];
  },
}];
`;

/** A mandatory policy whose promise never settles. */
const NEVER_SETTLING_PACK = `
module.exports = [{ id: 'team-never-settles', description: 'Waits for nothing.', enforcement: 'mandatory', check: () => new Promise(() => {}) }];
`;

/** A mandatory policy that loops, after saying so in a file the test waits for. */
const LOOPING_PACK = `
const fs = require('node:fs');
module.exports = [{ id: 'team-loops', description: 'Never returns.', enforcement: 'mandatory', check() { fs.writeFileSync('looping', 'yes'); for (;;) {} } }];
`;

let server: DevServer;
let project: string;

beforeAll(() => {
  project = createLinkedProject('secretform-untrusted-packs-', APP, 'cdktf');
  writeFileSync(join(project, 'leak.cjs'), LEAKING_PACK);
  writeFileSync(join(project, 'never.cjs'), NEVER_SETTLING_PACK);
  writeFileSync(join(project, 'loop.cjs'), LOOPING_PACK);
  writeFileSync(join(project, 'load-loop.cjs'), 'for (;;) {}\n');
});

beforeEach(async () => {
  server = await startDevServer({ port: 0, rootToken: ROOT_TOKEN });
});

afterEach(async () => {
  await server?.close();
});

const env = (extra: Record<string, string | undefined> = {}) => cliEnv(server, { CI_PW: CI_PASSWORD, SECRETFORM_STATE: undefined, ...extra });
const writes = () => server.requestLog.filter((entry) => entry.method !== 'GET' && entry.method !== 'LIST');
const state = (name: string) => ['--state', join('.secretform', `${name}.state.json`)];
const read = (file: string) => readFileSync(join(project, file), 'utf8');

test('a pack named in cdktf.json gets the app environment, and nothing it says carries the token or a password', async () => {
  const config = JSON.parse(read('cdktf.json')) as Record<string, unknown>;
  writeFileSync(join(project, 'cdktf.json'), JSON.stringify({ ...config, secretform: { policies: ['leak.cjs'] } }));
  const outputs: string[] = [];
  try {
    const markdown = await runCli(['plan', ...state('leak'), '--format', 'markdown', '--out-file', 'out/leak.md', '--sarif', 'out/leak.sarif', '--out', 'leak.plan'], project, env());
    expect(markdown.stderr).not.toContain('Error');
    expect(markdown.code).toBe(0);
    const json = await runCli(['plan', ...state('leak'), '--format', 'json', '--out-file', 'out/leak.json'], project, env());
    expect(json.code).toBe(0);
    const apply = await runCli(['apply', ...state('leak'), '--auto-approve'], project, env());
    expect(apply.code).toBe(0);
    outputs.push(...[markdown, json, apply].flatMap((run) => [run.stdout, run.stderr]));
  } finally {
    writeFileSync(join(project, 'cdktf.json'), JSON.stringify(config));
  }

  // The pack ran, with the app's environment; from secretform's process it did get the token and alice's password.
  expect(JSON.parse(read('leak-report.json'))).toEqual({ ownToken: false, ownPassword: false, parentToken: true, parentAlice: true });
  expect(read('out/leak.md')).toContain('tok=undefined pw=undefined parent-tok=');
  expect(outputs.join('\n')).toContain('pack loaded: tok=undefined parent-tok=');
  const files = ['out/leak.md', 'out/leak.sarif', 'out/leak.json', 'leak.plan', '.secretform/leak.state.json'].map(read);
  for (const text of [...files, ...outputs]) {
    expect(text).not.toContain(ROOT_TOKEN);
    expect(text).not.toContain(CI_PASSWORD);
    expect(text).not.toContain(ALICE_PASSWORD);
  }
});

test('a check whose promise never settles fails plan --detailed-exitcode and apply, naming the policy and the pack', async () => {
  const plan = await runCli(['plan', ...state('never'), '--policy', 'never.cjs', '--detailed-exitcode', '--policy-timeout', '20s'], project, env());
  expect(plan.code).toBe(1);
  expect(plan.stderr).toMatch(/Error: policy "team-never-settles" on pol\/\w+: .*never settle.*pack never\.cjs/);

  const apply = await runCli(['apply', ...state('never'), '--policy', 'never.cjs', '--auto-approve'], project, env());
  expect(apply.code).toBe(1);
  expect(apply.stderr).toMatch(/policy "team-never-settles" on pol\/\w+: .*pack never\.cjs/);
  expect(writes()).toEqual([]);
});

test('a check that loops fails closed at the deadline; a SIGTERM during the loop ends apply at once and frees the lock', async () => {
  const help = await runCli(['apply', '--help'], project, env());
  expect(help.stdout).toContain('--policy-timeout <duration>');

  const started = Date.now();
  const timedOut = await runCli(['apply', ...state('loop'), '--policy', 'loop.cjs', '--auto-approve', '--policy-timeout', '2s'], project, env());
  expect(timedOut.code).toBe(1);
  expect(timedOut.stderr).toContain('Error: policy "team-loops" on pol/');
  expect(timedOut.stderr).toMatch(/no answer within 2s .*pack loop\.cjs/);
  expect(Date.now() - started).toBeLessThan(60_000);

  // A pack whose own code loops as it is imported fails closed the same way, before anything is synthesized.
  const loadLoop = await runCli(['plan', ...state('loop'), '--policy', 'load-loop.cjs', '--policy-timeout', '2s'], project, env());
  expect(loadLoop.code).toBe(1);
  expect(loadLoop.stderr).toContain('Error: policy pack load-loop.cjs: did not finish loading within 2s');

  // The deadline from the environment is long: only the signal can end this run.
  rmSync(join(project, 'looping'), { force: true });
  const running = startCli(['apply', ...state('loop'), '--policy', 'loop.cjs', '--auto-approve'], project, env({ SECRETFORM_POLICY_TIMEOUT: '10m' }));
  await waitFor(() => readLooping(), 'the check to start looping', 60_000);
  const signalled = Date.now();
  running.child.kill('SIGTERM');
  const ended = await running.exited;
  expect(Date.now() - signalled).toBeLessThan(5_000);
  expect(ended.code).toBe(1);
  expect(running.stderr()).toContain('interrupted while the policy packs (loop.cjs) were evaluated');
  expect(writes()).toEqual([]);

  // The lock was released: the next run (without the pack) takes it at once and applies.
  const next = await runCli(['apply', ...state('loop'), '--auto-approve'], project, env());
  expect(next.stderr).not.toContain('lock');
  expect(next.code).toBe(0);
});

function readLooping(): boolean {
  try {
    return read('looping') === 'yes';
  } catch {
    return false;
  }
}

test('a saved plan whose mandatory policy failed is refused at apply, even when the pack passes by then', async () => {
  const pack = (body: string) => writeFileSync(join(project, 'team.cjs'), `const { definePolicy } = require('secretform');\nmodule.exports = [${body}];\n`);
  pack(TEAM_SHORT_TTL_POLICY);
  const plan = await runCli(['plan', ...state('saved'), '--policy', 'team.cjs', '--out', 'failed.plan'], project, env({ SF_E2E_TTL: '48h' }));
  expect(plan.code).toBe(1);
  expect(plan.stderr).toContain('team-short-ttl (mandatory) failed for pol/alice');

  // The pack is changed to pass: the plan that was reviewed still failed.
  pack(TEAM_SHORT_TTL_POLICY.replace('ttl > 86400', 'ttl > 864000'));
  const apply = await runCli(['apply', ...state('saved'), 'failed.plan'], project, env());
  expect(apply.code).toBe(1);
  expect(apply.stderr).toContain('The saved plan failed.plan recorded this failure when it was made, so it is never applied, even if the packs pass now');
  expect(apply.stderr).toContain('team-short-ttl (mandatory) failed for pol/alice');
  expect(apply.stderr).toContain('make a new plan, review it, and apply that one (`secretform plan --out PLANFILE`)');
  expect(writes()).toEqual([]);

  // The other way round, as before: a plan that passed is checked again by the packs it recorded, which fail now.
  const passing = await runCli(['plan', ...state('saved'), '--policy', 'team.cjs', '--out', 'passed.plan'], project, env({ SF_E2E_TTL: '48h' }));
  expect(passing.code).toBe(0);
  pack(TEAM_SHORT_TTL_POLICY);
  const again = await runCli(['apply', ...state('saved'), 'passed.plan'], project, env());
  expect(again.code).toBe(1);
  expect(again.stderr).toContain('1 mandatory policy failed, so nothing was changed');
  expect(again.stderr).not.toContain('The saved plan');
  expect(writes()).toEqual([]);
});

test('over two stacks, a policy that cannot be evaluated in one stack refuses both before any write', async () => {
  const twoStacks = createTwoStackProject();
  writeFileSync(join(twoStacks, 'green-breaks.cjs'), `
module.exports = [{ id: 'team-green-breaks', description: 'Breaks on green.', enforcement: 'advisory',
  check(resource) { if (resource.stack === 'green') throw new Error('green is broken'); return []; } }];
`);
  const apply = await runCli(['apply', '--stack', '*', '--policy', 'green-breaks.cjs', '--auto-approve'], twoStacks, env());
  expect(apply.code).toBe(1);
  expect(apply.stderr).toMatch(/policy "team-green-breaks" on green\/\w+: check threw: green is broken/);
  expect(writes()).toEqual([]);
});
