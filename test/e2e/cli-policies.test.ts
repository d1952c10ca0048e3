/**
 * Policies through the real CLI against the dev server, from a project like a user's (node_modules holding
 * secretform): a custom mandatory policy in a TypeScript pack blocks `plan` (its reports and saved plan still
 * written, exit 1), `apply` and `apply PLANFILE` (nothing sent: the dev server's request log); a waiver lets it
 * pass with its reason shown; cdktf.json's `policies`; the SARIF file validated against the published SARIF
 * 2.1.0 schema; a throwing policy named with its address; and no secret value reaching policy code or any output.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { sarifSchemaErrors } from '../support/sarif-schema';
import { TEAM_SHORT_TTL_POLICY } from '../support/team-policy-source';
import { ALICE_PASSWORD, cliEnv, createLinkedProject, runCli, transcript } from './cli-harness';

jest.setTimeout(120_000);

const GITHUB_TOKEN = 'ghp-e2e-policy-token-value-7d41';

const APP = `
const { App, TerraformStack } = require('cdktf');
const sf = require('secretform');
const app = new App();
const stack = new TerraformStack(app, 'pol');
const userpass = new sf.AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass' });
const waive = process.env.SF_E2E_WAIVE === '1';
new sf.UserpassUser(stack, 'alice', {
  mount: userpass, username: 'alice', password: sf.SecretValue.fromEnv('SF_E2E_ALICE_PASSWORD'), tokenTtl: '48h', tokenPolicies: ['default'],
  ...(waive ? { policyWaivers: { 'team-short-ttl': 'break-glass account, reviewed every quarter', 'userpass-token-ttl': 'break-glass account, reviewed every quarter' } } : {}),
});
new sf.SyncRepohostDestination(stack, 'gh', {
  name: 'gh', accessToken: sf.SecretValue.fromEnv('SF_E2E_GITHUB_TOKEN'), repositoryOwner: 'acme', repositoryName: 'app',
});
app.synth();
`;

/** The team's pack: a mandatory rule, and an advisory one that records everything it is given. */
const TEAM_PACK = `
import { appendFileSync } from 'node:fs';
import { definePolicy, type PolicyResource } from 'secretform';

const record = (resource: PolicyResource) => appendFileSync('policy-input.jsonl', JSON.stringify(resource) + '\\n');

export default [
  ${TEAM_SHORT_TTL_POLICY},
  definePolicy({
    id: 'team-record-input',
    description: 'Records what policy code is given (for the secret search).',
    enforcement: 'advisory',
    check(resource) {
      record(resource);
      return [];
    },
  }),
];
`;

const THROWING_PACK = `
module.exports = [{ id: 'team-broken', description: 'throws', enforcement: 'advisory', check() { throw new Error('cannot read this'); } }];
`;

let server: DevServer;
let project: string;

beforeAll(() => {
  project = createLinkedProject('secretform-policies-e2e-', APP, 'cdktf');
  mkdirSync(join(project, 'policies'));
  writeFileSync(join(project, 'policies', 'team.ts'), TEAM_PACK);
  writeFileSync(join(project, 'policies', 'broken.cjs'), THROWING_PACK);
});

beforeEach(async () => {
  server = await startDevServer({ port: 0, rootToken: 'cli-policies-root' });
});

afterEach(async () => {
  await server?.close();
});

const env = (extra: Record<string, string | undefined> = {}) =>
  cliEnv(server, { SF_E2E_GITHUB_TOKEN: GITHUB_TOKEN, SECRETFORM_SYNTH_ENV: 'SF_E2E_WAIVE', SECRETFORM_STATE: undefined, ...extra });
const writes = () => server.requestLog.filter((entry) => entry.method !== 'GET' && entry.method !== 'LIST');
const state = (name: string) => ['--state', join('.secretform', `${name}.state.json`)];
const POLICIES = ['--policy', 'policies/team.ts', '--policy', 'recommended'];

function validateSarif(file: string): { ruleIds: string[]; results: { ruleId: string; level: string; suppressions?: unknown[] }[] } {
  const log = JSON.parse(readFileSync(file, 'utf8')) as { runs: { tool: { driver: { rules: { id: string }[] } }; results: never[] }[] };
  expect(sarifSchemaErrors(log)).toEqual([]);
  return { ruleIds: log.runs[0].tool.driver.rules.map((rule) => rule.id), results: log.runs[0].results };
}

test('a failed mandatory policy: plan writes its reports, SARIF and saved plan, then exits 1; apply and apply PLANFILE send nothing', async () => {
  const plan = await runCli(['plan', ...state('blocked'), ...POLICIES, '--format', 'json', '--out-file', 'out/plan.json', '--out', 'blocked.plan', '--sarif', 'out/policies.sarif'], project, env());
  expect(plan.code).toBe(1);
  expect(plan.stderr).toContain('team-short-ttl (mandatory) failed for pol/alice: token_ttl: 172800s is longer than a day');

  const json = JSON.parse(readFileSync(join(project, 'out', 'plan.json'), 'utf8')) as { policy_results: Record<string, unknown>[] };
  expect(json.policy_results).toContainEqual(expect.objectContaining({
    policy: 'team-short-ttl', enforcement: 'mandatory', address: 'pol/alice', status: 'failed', message: 'token_ttl: 172800s is longer than a day',
  }));
  expect(json.policy_results).toContainEqual(expect.objectContaining({ policy: 'repohost-destination-app', address: 'pol/gh', status: 'failed', enforcement: 'advisory' }));
  expect(json.policy_results).toContainEqual(expect.objectContaining({ policy: 'team-short-ttl', address: 'pol/alice' }));
  expect(existsSync(join(project, 'blocked.plan'))).toBe(true);

  const sarif = validateSarif(join(project, 'out', 'policies.sarif'));
  expect(sarif.ruleIds).toEqual(expect.arrayContaining(['team-short-ttl', 'userpass-token-ttl', 'repohost-destination-app']));
  expect(sarif.results).toContainEqual(expect.objectContaining({ ruleId: 'team-short-ttl', level: 'error' }));
  expect(sarif.results).toContainEqual(expect.objectContaining({ ruleId: 'repohost-destination-app', level: 'warning' }));

  const apply = await runCli(['apply', ...state('blocked'), '--policy', 'policies/team.ts', '--auto-approve'], project, env());
  expect(apply.code).toBe(1);
  expect(apply.stderr).toContain('team-short-ttl (mandatory) failed for pol/alice');
  expect(writes()).toEqual([]);

  // The saved plan records its packs: applying it without --policy still evaluates them.
  const saved = await runCli(['apply', ...state('blocked'), 'blocked.plan'], project, env());
  expect(saved.code).toBe(1);
  expect(saved.stderr).toContain('team-short-ttl (mandatory) failed for pol/alice');
  expect(writes()).toEqual([]);
});

test('a waiver lets the plan pass and shows its reason; advisory failures leave the exit code alone', async () => {
  const plan = await runCli(['plan', ...state('waived'), ...POLICIES], project, env({ SF_E2E_WAIVE: '1' }));
  expect(plan.code).toBe(0);
  expect(plan.stdout).toContain('WAIVED team-short-ttl [mandatory] pol/alice: token_ttl: 172800s is longer than a day (waived: break-glass account, reviewed every quarter)');
  expect(plan.stdout).toContain('WAIVED userpass-token-ttl [mandatory] pol/alice');
  expect(plan.stdout).toContain('FAILED repohost-destination-app [advisory] pol/gh');

  const markdown = await runCli(['plan', ...state('waived'), ...POLICIES, '--format', 'markdown'], project, env({ SF_E2E_WAIVE: '1' }));
  expect(markdown.code).toBe(0);
  expect(markdown.stdout).toContain('### Policies: ⚠️ Advisory failures');
  expect(markdown.stdout).toContain('break-glass account, reviewed every quarter');
});

test("cdktf.json's policies are evaluated by plan and apply without --policy", async () => {
  const config = JSON.parse(readFileSync(join(project, 'cdktf.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(join(project, 'cdktf.json'), JSON.stringify({ ...config, secretform: { policies: ['policies/team.ts'] } }));
  try {
    const blocked = await runCli(['apply', ...state('configured'), '--auto-approve'], project, env());
    expect(blocked.code).toBe(1);
    expect(blocked.stderr).toContain('team-short-ttl (mandatory) failed for pol/alice');
    expect(writes()).toEqual([]);

    const waived = await runCli(['apply', ...state('configured'), '--auto-approve'], project, env({ SF_E2E_WAIVE: '1' }));
    expect(waived.stderr).not.toContain('Error');
    expect(waived.code).toBe(0);
    expect(waived.stdout).toContain('(waived: break-glass account, reviewed every quarter)');
    expect(writes().length).toBeGreaterThan(0);
  } finally {
    writeFileSync(join(project, 'cdktf.json'), JSON.stringify(config));
  }
});

test('a policy that throws fails the run with its id and the address, without a stack trace', async () => {
  const plan = await runCli(['plan', ...state('broken'), '--policy', 'policies/broken.cjs'], project, env());
  expect(plan.code).toBe(1);
  expect(plan.stderr).toMatch(/Error: policy "team-broken" on pol\/\w+: check threw: cannot read this/);
  expect(plan.stderr).not.toMatch(/\n\s+at /);
});

test('policy code is given no secret value, and no output, report or file holds one', () => {
  const recorded = readFileSync(join(project, 'policy-input.jsonl'), 'utf8');
  expect(recorded).toContain('"password":"(sensitive)"');
  expect(recorded).toContain('"access_token":"(sensitive)"');
  const files = ['policy-input.jsonl', 'out/plan.json', 'out/policies.sarif', 'blocked.plan'].map((file) => readFileSync(join(project, file), 'utf8'));
  for (const text of [...files, ...transcript]) {
    expect(text).not.toContain(ALICE_PASSWORD);
    expect(text).not.toContain(GITHUB_TOKEN);
  }
});
