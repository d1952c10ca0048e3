/**
 * Policies in a run over several stacks, through the real binary: an app of two independent stacks (staging and
 * prod), each on its own dev server, synthesized once. Each stack's results are in its section of the text
 * report, its row and section of the markdown comment and its object of the JSON document, with the stack's
 * own addresses; one SARIF file lists both stacks; prod's waiver is shown with its reason. A mandatory policy
 * that fails in staging only makes `plan` exit 1 after its reports and saved plan, and refuses `apply --stack`
 * and `apply PLANFILE` before any write on either server; advisory failures in both stacks change no exit code.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { call } from '../devserver/http';
import { sarifSchemaErrors } from '../support/sarif-schema';
import { TEAM_SHORT_TTL_POLICY } from '../support/team-policy-source';
import { cliEnv, createLinkedProject, runCli, transcript } from './cli-harness';

jest.setTimeout(60_000);

const DEPLOYER_PASSWORD = 'policies-stacks-deployer-password-4e8b';
const WAIVER = 'break-glass account, reviewed every quarter';

const STACKS = ['prod', 'staging'] as const;
type Stack = (typeof STACKS)[number];
const TOKENS: Record<Stack, string> = { prod: 'prod-policy-root-token-81af', staging: 'staging-policy-root-token-2c6d' };

/**
 * Two stacks that do not depend on each other, each on its own server (SF_E2E_<STACK>_ADDR at synth): a KV mount,
 * a userpass mount and a user `deployer`. staging's deployer sets no token TTL (the recommended pack's
 * mandatory `userpass-token-ttl` fails); prod's has a 48h TTL and waives that rule and the team's.
 */
const APP = `
const { App, TerraformStack } = require('cdktf');
const sf = require('secretform');
const app = new App();
for (const name of ['staging', 'prod']) {
  const stack = new TerraformStack(app, name);
  new sf.ServiceConnection(stack, 'service', { address: process.env['SF_E2E_' + name.toUpperCase() + '_ADDR'], tokenEnv: name.toUpperCase() + '_SERVICE_TOKEN' });
  new sf.SecretsMount(stack, 'kv', { path: name + '-apps', type: 'kv', options: { version: '2' } });
  const auth = new sf.AuthMount(stack, 'auth', { path: name + '-users', type: 'userpass' });
  const password = sf.SecretValue.fromEnv('SF_E2E_DEPLOYER_PASSWORD');
  new sf.UserpassUser(stack, 'deployer', name === 'prod'
    ? { mount: auth, username: 'deployer', password, tokenTtl: '48h', policyWaivers: { 'team-short-ttl': ${JSON.stringify(WAIVER)}, 'userpass-token-ttl': ${JSON.stringify(WAIVER)} } }
    : { mount: auth, username: 'deployer', password });
}
app.synth();
`;

/** The team's pack: a mandatory rule (only prod's deployer breaks it, and waives it), an advisory one every KV mount fails. */
const TEAM_PACK = `
const { definePolicy } = require('secretform');
module.exports = [
  ${TEAM_SHORT_TTL_POLICY},
  definePolicy({
    id: 'team-kv-description',
    description: 'Every KV mount says what it holds.',
    enforcement: 'advisory',
    resourceTypes: ['secrets_mount'],
    // Names the stack check was given, so each result shows which stack it was evaluated for.
    check: (resource) => (resource.desired?.description ? [] : [{ field: 'description', message: 'no description (stack ' + resource.stack + ')' }]),
  }),
];
`;

const TEAM = ['--policy', 'policies/team.cjs'];
const TEAM_AND_RECOMMENDED = ['--policy', 'recommended', ...TEAM];
const STAGING_FAILURE = 'userpass-token-ttl (mandatory) failed for staging/deployer';
/** A token prod's server refuses: prod fails to plan. */
const REFUSED_PROD_TOKEN = 'refused-prod-token-d71a';

/** The server of each stack: restarted empty on the same port before each test (the port is synthesized). */
const servers = {} as Record<Stack, DevServer>;
const ports = {} as Record<Stack, number>;
let project: string;

beforeAll(async () => {
  for (const stack of STACKS) {
    servers[stack] = await startDevServer({ port: 0, rootToken: TOKENS[stack] });
    ports[stack] = Number(new URL(servers[stack].url).port);
  }
  project = createLinkedProject('secretform-policies-stacks-', APP, 'cdktf');
  mkdirSync(join(project, 'policies'));
  writeFileSync(join(project, 'policies', 'team.cjs'), TEAM_PACK);
  const synth = await runCli(['synth'], project, env());
  if (synth.code !== 0) throw new Error(`synth failed: ${synth.stderr}`);
});

beforeEach(async () => {
  for (const stack of STACKS) {
    await servers[stack].close();
    servers[stack] = await startDevServer({ port: ports[stack], rootToken: TOKENS[stack] });
  }
});

afterAll(async () => {
  for (const stack of STACKS) await servers[stack]?.close();
});

/** SERVICE_ADDR and SERVICE_TOKEN lead nowhere: each stack must use its own connection. */
function env(): NodeJS.ProcessEnv {
  const connections: Record<string, string> = { SECRETFORM_SYNTH_ENV: 'SF_E2E_*', SF_E2E_DEPLOYER_PASSWORD: DEPLOYER_PASSWORD };
  for (const stack of STACKS) {
    connections[`SF_E2E_${stack.toUpperCase()}_ADDR`] = `http://127.0.0.1:${ports[stack]}`;
    connections[`${stack.toUpperCase()}_SERVICE_TOKEN`] = TOKENS[stack];
  }
  return cliEnv({ url: 'http://127.0.0.1:1', rootToken: 'not-the-token-of-any-server' }, connections);
}

/** A command over the synth output made once, with its own state files (`name`), and `extra` in its environment. */
function sf(name: string, args: string[], extra: Record<string, string> = {}) {
  return runCli([...args, '--no-synth', '--state', join('.secretform', `${name}-{stack}.json`)], project, { ...env(), ...extra });
}

const writes = () => STACKS.flatMap((stack) => servers[stack].requestLog.filter((entry) => entry.method !== 'GET' && entry.method !== 'LIST'));

/** What each server holds of the two stacks' mounts, read from the servers themselves. */
async function objectsByServer(): Promise<Record<Stack, string[]>> {
  const found = {} as Record<Stack, string[]>;
  for (const stack of STACKS) {
    const mounts = Object.keys((await call(servers[stack], 'GET', 'sys/mounts')).body.data);
    const auths = Object.keys((await call(servers[stack], 'GET', 'sys/auth')).body.data);
    found[stack] = [...mounts, ...auths].filter((path) => /^(staging|prod)-/.test(path)).sort();
  }
  return found;
}

/** The text report's section of `stack` (from its `=== Stack <name> ===` line to the next one). */
function textSection(stdout: string, stack: Stack): string {
  const sections = stdout.split(/^=== Stack (\S+) ===$/m);
  const index = sections.indexOf(stack);
  if (index < 0) throw new Error(`no section of stack ${stack} in:\n${stdout}`);
  return sections[index + 1];
}

interface PolicyResultJson {
  policy: string;
  enforcement: string;
  address: string;
  status: string;
  message: string;
  waiver_reason?: string;
}

interface SarifResult {
  ruleId: string;
  level: string;
  locations: { logicalLocations: { fullyQualifiedName: string }[] }[];
  suppressions?: { justification: string }[];
}

/** The SARIF file's results as `ruleId level address [waived: reason]`, after checking the file against the schema. */
function sarifFindings(file: string): string[] {
  const log = JSON.parse(readFileSync(join(project, file), 'utf8')) as { runs: { results: SarifResult[] }[] };
  expect(sarifSchemaErrors(log)).toEqual([]);
  expect(log.runs).toHaveLength(1);
  return log.runs[0].results.map((result) => {
    const address = result.locations[0].logicalLocations[0].fullyQualifiedName;
    const waived = result.suppressions === undefined ? '' : ` [waived: ${result.suppressions[0].justification}]`;
    return `${result.ruleId} ${result.level} ${address}${waived}`;
  }).sort();
}

test("plan over two stacks: each stack's results in its text section, markdown row and section, and JSON object; one SARIF file for both", async () => {
  const text = await sf('reports', ['plan', ...TEAM, '--sarif', 'out/team.sarif']);
  expect(text.stderr).toBe('Policy results written to out/team.sarif (SARIF 2.1.0)\n');
  expect(text.code).toBe(0);
  const staging = textSection(text.stdout, 'staging');
  expect(staging).toContain('Policies (policies/team.cjs): Advisory failures. 1 passed, 1 failed (0 mandatory), 0 waived.');
  expect(staging).toContain('FAILED team-kv-description [advisory] staging/kv: description: no description (stack staging)');
  expect(staging).not.toContain('prod/');
  const prod = textSection(text.stdout, 'prod');
  expect(prod).toContain('Policies (policies/team.cjs): Advisory failures. 0 passed, 1 failed (0 mandatory), 1 waived.');
  expect(prod).toContain('FAILED team-kv-description [advisory] prod/kv: description: no description (stack prod)');
  expect(prod).toContain(`WAIVED team-short-ttl [mandatory] prod/deployer: token_ttl: 172800s is longer than a day (waived: ${WAIVER})`);
  expect(prod).not.toContain('staging/');

  expect(sarifFindings('out/team.sarif')).toEqual([
    `team-kv-description warning prod/kv`,
    `team-kv-description warning staging/kv`,
    `team-short-ttl error prod/deployer [waived: ${WAIVER}]`,
  ]);

  const markdown = await sf('reports', ['plan', ...TEAM, '--format', 'markdown']);
  expect(markdown.code).toBe(0);
  expect(markdown.stdout).toContain('| Stack | Add | Change | Destroy | Drifted | Policy | Status |');
  expect(markdown.stdout).toContain('| `prod` | 3 | 0 | 0 | 0 | ⚠️ Advisory failures | 📝 Changes |');
  expect(markdown.stdout).toContain('| `staging` | 3 | 0 | 0 | 0 | ⚠️ Advisory failures | 📝 Changes |');
  const prodSection = markdown.stdout.slice(markdown.stdout.indexOf('### Stack `prod`'), markdown.stdout.indexOf('### Stack `staging`'));
  expect(prodSection).toContain('\n#### Policies: ⚠️ Advisory failures');
  expect(prodSection).toContain(WAIVER);

  const json = await sf('reports', ['plan', ...TEAM, '--format', 'json']);
  expect(json.code).toBe(0);
  const document = JSON.parse(json.stdout) as { stacks: { stack: Stack; policy_results: PolicyResultJson[] }[] };
  expect(document.stacks.map((entry) => entry.stack)).toEqual(['prod', 'staging']);
  for (const { stack, policy_results: results } of document.stacks) {
    expect(results.map((result) => `${result.policy} ${result.address} ${result.status}`).sort()).toEqual([
      `team-kv-description ${stack}/kv failed`,
      `team-short-ttl ${stack}/deployer ${stack === 'prod' ? 'waived' : 'passed'}`,
    ]);
    expect(results).toContainEqual(expect.objectContaining({ policy: 'team-kv-description', enforcement: 'advisory', message: `description: no description (stack ${stack})` }));
  }
  const prodResults = document.stacks.find((entry) => entry.stack === 'prod')!.policy_results;
  expect(prodResults).toContainEqual(expect.objectContaining({ policy: 'team-short-ttl', enforcement: 'mandatory', status: 'waived', waiver_reason: WAIVER }));
  expect(writes()).toEqual([]);
});

test('a mandatory policy failing in one stack: plan writes the reports and the saved plan of both stacks, then exits 1 naming it', async () => {
  const plan = await sf('blocked-plan', ['plan', ...TEAM_AND_RECOMMENDED, '--format', 'markdown', '--out-file', 'out/blocked.md', '--out', 'out/blocked.plan', '--sarif', 'out/blocked.sarif']);
  expect(plan.code).toBe(1);
  expect(plan.stderr).toContain(`Error: 1 mandatory policy failed; apply will refuse this plan:\n  ${STAGING_FAILURE}: token_ttl:`);

  const comment = readFileSync(join(project, 'out', 'blocked.md'), 'utf8');
  expect(comment).toContain('| `staging` | 3 | 0 | 0 | 0 | ❌ Failed |');
  expect(comment).toContain('| `prod` | 3 | 0 | 0 | 0 | ⚠️ Advisory failures |');
  const saved = JSON.parse(readFileSync(join(project, 'out', 'blocked.plan'), 'utf8')) as { format: string; stacks: { stack: string; policy_packs: string[] }[] };
  expect(saved.format).toBe('secretform-saved-plans');
  expect(saved.stacks.map((entry) => [entry.stack, entry.policy_packs])).toEqual([['prod', ['recommended', 'policies/team.cjs']], ['staging', ['recommended', 'policies/team.cjs']]]);
  expect(sarifFindings('out/blocked.sarif')).toEqual(expect.arrayContaining([
    'userpass-token-ttl error staging/deployer',
    `userpass-token-ttl error prod/deployer [waived: ${WAIVER}]`,
    'userpass-token-bound-cidrs warning prod/deployer',
    'userpass-token-bound-cidrs warning staging/deployer',
  ]));
  expect(writes()).toEqual([]);
});

test('a mandatory policy failing in one stack while the other fails to plan: plan names both failures, then exits 1', async () => {
  const plan = await sf('blocked-and-failed', ['plan', ...TEAM_AND_RECOMMENDED, '--out', 'out/partial.plan'], { PROD_SERVICE_TOKEN: REFUSED_PROD_TOKEN });
  expect(plan.code).toBe(1);
  const errors = plan.stderr.split(/^(?=Error: )/m);
  expect(errors).toHaveLength(3);
  expect(errors[0]).toMatch(/^Error: stack prod: .*PROD_SERVICE_TOKEN is probably wrong, expired or revoked/);
  expect(errors[1]).toBe('Error: the plan was not saved to out/partial.plan: it would not cover every stack asked for\n');
  expect(errors[2]).toBe(
    `Error: 1 mandatory policy failed; apply will refuse this plan:\n  ${STAGING_FAILURE}: token_ttl: not set (the mount's default applies); set tokenTtl to at most 24h\n` +
      "Fix the code, or waive the policy on the construct with a reason (`policyWaivers: { '<policy id>': '<why>' }`).\n",
  );
  expect(existsSync(join(project, 'out', 'partial.plan'))).toBe(false);
  expect(writes()).toEqual([]);
});

test('apply --stack over both stacks refuses before any write on either server, naming the policy and the stack', async () => {
  const apply = await sf('blocked-apply', ['apply', '--stack', 'staging', '--stack', 'prod', '--auto-approve', ...TEAM_AND_RECOMMENDED]);
  expect(apply.code).toBe(1);
  expect(apply.stderr).toMatch(/^Error: stack staging: 1 mandatory policy failed, so nothing was changed:/);
  expect(apply.stderr).toContain(STAGING_FAILURE);
  expect(apply.stderr).not.toContain('prod/deployer');
  expect(apply.stderr).toMatch(/\); no stack was changed\n$/);
  expect(writes()).toEqual([]);
  expect(await objectsByServer()).toEqual({ prod: [], staging: [] });
});

test('apply PLANFILE of both stacks evaluates the packs it recorded and refuses before any write on either server', async () => {
  const plan = await sf('blocked-saved', ['plan', ...TEAM_AND_RECOMMENDED, '--out', 'out/saved.plan']);
  expect(plan.code).toBe(1);
  expect(existsSync(join(project, 'out', 'saved.plan'))).toBe(true);

  // No --policy now: the saved plan's packs are evaluated again.
  const apply = await runCli(['apply', 'out/saved.plan'], project, env());
  expect(apply.code).toBe(1);
  expect(apply.stderr).toMatch(/^Error: stack staging: 1 mandatory policy failed, so nothing was changed:/);
  expect(apply.stderr).toContain(STAGING_FAILURE);
  expect(apply.stderr).toMatch(/\); no stack was changed\n$/);
  expect(writes()).toEqual([]);
  expect(await objectsByServer()).toEqual({ prod: [], staging: [] });
});

test('advisory failures in both stacks change no exit code: plan --detailed-exitcode exits 2, apply writes both stacks', async () => {
  const plan = await sf('advisory', ['plan', ...TEAM, '--detailed-exitcode']);
  expect(plan.code).toBe(2);
  expect(plan.stdout.match(/^\s+FAILED team-kv-description \[advisory\] \S+/gm)).toHaveLength(2);

  const apply = await sf('advisory', ['apply', '--stack', '*', '--auto-approve', ...TEAM]);
  expect(apply.stderr).toBe('');
  expect(apply.code).toBe(0);
  expect(await objectsByServer()).toEqual({ prod: ['prod-apps/', 'prod-users/'], staging: ['staging-apps/', 'staging-users/'] });
});

test('no secret value reaches any output, report, saved plan or state file', () => {
  const files = readdirSync(project, { recursive: true })
    .map(String)
    .filter((name) => !name.startsWith('node_modules') && /\.(json|plan|md|sarif)$/.test(name));
  expect(files).toEqual(expect.arrayContaining([join('out', 'blocked.plan'), join('.secretform', 'advisory-prod.json')]));
  for (const text of [...transcript, ...files.map((name) => readFileSync(join(project, name), 'utf8'))]) {
    for (const secret of [DEPLOYER_PASSWORD, REFUSED_PROD_TOKEN, ...Object.values(TOKENS)]) expect(text).not.toContain(secret);
  }
});
