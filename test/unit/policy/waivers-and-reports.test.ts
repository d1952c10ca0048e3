/**
 * Waivers from the construct to the reports: `policyWaivers` is synthesized into the spec by the real
 * `app.synth()` and read back by the engine's loader; a malformed waiver fails synth naming the construct; the
 * text, markdown, JSON and SARIF reports show failed and waived results (SARIF checked against the published
 * SARIF 2.1.0 schema, a waiver as a suppression with its reason).
 */
import * as fs from 'node:fs';
import { App, TerraformStack } from 'cdktf';
import { AuthMount, UserpassUser } from '../../../src/constructs';
import { SecretValue } from '../../../src/secret-value';
import { loadDesired } from '../../../src/engine/setup/desired';
import type { Plan } from '../../../src/engine/plan/plan';
import { planToJson, renderMarkdown, renderSarif, renderText, stackReport } from '../../../src/report';
import { sarifSchemaErrors } from '../../support/sarif-schema';
import { tempDir } from '../../support/temp-dir';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

function synthUser(props: Record<string, unknown>): { outdir: string; app: App } {
  const outdir = tempDir('secretform-waivers-');
  dirs.push(outdir);
  const app = new App({ outdir });
  const stack = new TerraformStack(app, 'prod');
  const mount = new AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass' });
  new UserpassUser(stack, 'ci', { mount, username: 'ci', password: SecretValue.fromEnv('CI_PASSWORD'), ...props });
  return { outdir, app };
}

test('policyWaivers is synthesized into the spec and read back by the engine', () => {
  const { outdir, app } = synthUser({ policyWaivers: { 'userpass-token-ttl': 'CI runners renew hourly' } });
  app.synth();
  const desired = loadDesired(outdir, 'prod');
  expect(desired.resources.find((resource) => resource.address === 'prod/ci')?.policyWaivers).toEqual({ 'userpass-token-ttl': 'CI runners renew hourly' });
  expect(desired.resources.find((resource) => resource.address === 'prod/userpass')?.policyWaivers).toBeUndefined();
});

test('a waiver without a reason fails synth, naming the construct and the prop', () => {
  const { app } = synthUser({ policyWaivers: { 'userpass-token-ttl': ' ' } });
  expect(() => app.synth()).toThrow(/prod\/ci: policyWaivers\.userpass-token-ttl: .*a reason/);
});

const plan: Plan = {
  stack: 'prod', refreshOnly: false, warnings: [], drift: [],
  changes: [
    { address: 'prod/ci', type: 'userpass_user', id: 'auth/userpass/users/ci', action: 'create', reasons: [], before: null, after: { username: 'ci' },
      sensitive: ['password'], replacePaths: [], fieldChanges: [], secrets: [] },
  ],
  policy: {
    packs: ['recommended', 'policies/team.ts'],
    rules: [
      { id: 'userpass-token-ttl', description: 'Tokens live at most 24h.', enforcement: 'mandatory', pack: 'recommended' },
      { id: 'team-naming', description: 'Names are lowercase.', enforcement: 'advisory', pack: 'policies/team.ts' },
      { id: 'userpass-token-bound-cidrs', description: 'Tokens are bound.', enforcement: 'advisory', pack: 'recommended' },
    ],
    results: [
      { policy: 'userpass-token-ttl', enforcement: 'mandatory', address: 'prod/ci', status: 'waived', message: 'token_ttl: 2d is longer than 24h', fields: ['token_ttl'], waiverReason: 'CI runners renew hourly' },
      { policy: 'team-naming', enforcement: 'advisory', address: 'prod/ci', status: 'failed', message: 'use lowercase', fields: [] },
      { policy: 'userpass-token-bound-cidrs', enforcement: 'advisory', address: 'prod/ci', status: 'passed', message: '', fields: [] },
    ],
  },
};

test('text and markdown show a status, the totals, failed and waived results with the reason', () => {
  const text = renderText([stackReport(plan)], { color: false });
  expect(text).toContain('Policies (recommended, policies/team.ts): Advisory failures. 1 passed, 1 failed (0 mandatory), 1 waived.');
  expect(text).toContain('  FAILED team-naming [advisory] prod/ci: use lowercase');
  expect(text).toContain('  WAIVED userpass-token-ttl [mandatory] prod/ci: token_ttl: 2d is longer than 24h (waived: CI runners renew hourly)');
  const markdown = renderMarkdown([stackReport(plan)]).join('\n');
  expect(markdown).toContain('### Policies: ⚠️ Advisory failures');
  expect(markdown).toContain('| WAIVED | `userpass-token-ttl` | mandatory | `prod/ci` | token\\_ttl: 2d is longer than 24h (waived: CI runners renew hourly) |');
});

test('JSON has one policy_results entry per policy and resource evaluated', () => {
  expect(planToJson(plan).policy_results).toEqual([
    { policy: 'userpass-token-ttl', enforcement: 'mandatory', address: 'prod/ci', status: 'waived', message: 'token_ttl: 2d is longer than 24h', fields: ['token_ttl'], waiver_reason: 'CI runners renew hourly' },
    { policy: 'team-naming', enforcement: 'advisory', address: 'prod/ci', status: 'failed', message: 'use lowercase', fields: [] },
    { policy: 'userpass-token-bound-cidrs', enforcement: 'advisory', address: 'prod/ci', status: 'passed', message: '', fields: [] },
  ]);
  const { policy: _policy, ...withoutPolicies } = plan;
  expect(planToJson(withoutPolicies)).not.toHaveProperty('policy_results');
});

test('SARIF is valid 2.1.0: rules from the policies, levels from enforcement, a waiver as a suppression', () => {
  for (const sourceFile of [undefined, 'main.ts']) {
    const log = JSON.parse(renderSarif([plan], { toolVersion: '0.1.0', sourceFile })) as {
      runs: { tool: { driver: { rules: { id: string; defaultConfiguration: { level: string } }[] } }; results: Record<string, unknown>[] }[];
    };
    expect(sarifSchemaErrors(log)).toEqual([]);
    const run = log.runs[0];
    expect(run.tool.driver.rules.map((rule) => [rule.id, rule.defaultConfiguration.level])).toEqual([
      ['userpass-token-ttl', 'error'], ['team-naming', 'warning'], ['userpass-token-bound-cidrs', 'warning'],
    ]);
    expect(run.results).toHaveLength(2);
    expect(run.results[0]).toMatchObject({
      ruleId: 'userpass-token-ttl', ruleIndex: 0, level: 'error', suppressions: [{ kind: 'inSource', justification: 'CI runners renew hourly' }],
      locations: [{ logicalLocations: [{ fullyQualifiedName: 'prod/ci', kind: 'resource' }] }],
    });
    expect(run.results[1]).toMatchObject({ ruleId: 'team-naming', level: 'warning' });
    expect(run.results[1]).not.toHaveProperty('suppressions');
  }
});
