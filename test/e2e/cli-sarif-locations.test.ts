/**
 * SARIF results and the markdown policy section point at the line that declares the construct (issue 33 item
 * 11), through the real CLI against the dev server: a JavaScript app and a TypeScript one run by
 * `node --import tsx` (whose frames are source-mapped: the user sees the `.ts` line as written), and with
 * `new App({ stackTraces: false })` the fallback to line 1 of the app's entry file.
 */
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { sarifSchemaErrors } from '../support/sarif-schema';
import { cliEnv, createLinkedProject, ROOT, runCli } from './cli-harness';

jest.setTimeout(120_000);

/** alice (line 10) and bob (line 13) fail the `recommended` pack's mandatory `userpass-token-ttl` rule. */
const APP = `
const { App, TerraformStack } = require('cdktf');
const sf = require('secretform');

const app = new App({ stackTraces: process.env.SF_E2E_NO_TRACES !== '1' });
const stack = new TerraformStack(app, 'loc');
const userpass = new sf.AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass' });
const user = (name) => ({ mount: userpass, username: name, password: sf.SecretValue.fromEnv('SF_E2E_ALICE_PASSWORD'), tokenTtl: '48h', tokenPolicies: ['default'] });

new sf.UserpassUser(stack, 'alice', user('alice'));

const users = [
    new sf.UserpassUser(stack, 'bob', user('bob')),
];
app.synth();
`;

/** The same app in TypeScript, with type-only lines that a JavaScript build would drop: bob is on line 16. */
const TS_APP = `import { App, TerraformStack } from 'cdktf';
import * as sf from 'secretform';

interface Member {
  readonly name: string;
}

const app = new App();
const stack = new TerraformStack(app, 'loc');
const userpass = new sf.AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass' });
const user = (member: Member) => ({
  mount: userpass, username: member.name, password: sf.SecretValue.fromEnv('SF_E2E_ALICE_PASSWORD'), tokenTtl: '48h', tokenPolicies: ['default'],
});

const bob: Member = { name: 'bob' };
export const created = new sf.UserpassUser(stack, 'bob', user(bob));
app.synth();
`;

let server: DevServer;

beforeEach(async () => {
  server = await startDevServer({ port: 0, rootToken: 'cli-sarif-locations-root' });
});

afterEach(async () => {
  await server?.close();
});

interface SarifLocation {
  physicalLocation?: { artifactLocation: { uri: string }; region: { startLine: number; startColumn?: number } };
  logicalLocations: { fullyQualifiedName: string }[];
}

/** Runs plan with the `recommended` pack; returns each failed `userpass-token-ttl` result's address and physical location, and the markdown. */
async function planFindings(project: string, extraEnv: Record<string, string> = {}): Promise<{ locations: Record<string, unknown>; markdown: string }> {
  const env = cliEnv(server, { SECRETFORM_SYNTH_ENV: 'SF_E2E_NO_TRACES', SECRETFORM_STATE: undefined, ...extraEnv });
  const plan = await runCli(['plan', '--state', join('.secretform', 'loc.state.json'), '--policy', 'recommended', '--format', 'markdown', '--out-file', 'out/plan.md', '--sarif', 'out/policies.sarif'], project, env);
  expect(plan.stderr).toContain('mandatory polic');
  expect(plan.code).toBe(1);
  const log = JSON.parse(readFileSync(join(project, 'out', 'policies.sarif'), 'utf8')) as { runs: { results: { ruleId: string; locations: SarifLocation[] }[] }[] };
  expect(sarifSchemaErrors(log)).toEqual([]);
  const locations = Object.fromEntries(log.runs[0].results
    .filter((result) => result.ruleId === 'userpass-token-ttl')
    .map((result) => [result.locations[0].logicalLocations[0].fullyQualifiedName, result.locations[0].physicalLocation]));
  return { locations, markdown: readFileSync(join(project, 'out', 'plan.md'), 'utf8') };
}

test('a JavaScript app: each result points at the line and column of its `new`', async () => {
  const project = createLinkedProject('secretform-sarif-locations-', APP, 'cdktf');
  const { locations, markdown } = await planFindings(project);
  expect(locations).toEqual({
    'loc/alice': { artifactLocation: { uri: 'main.js' }, region: { startLine: 10, startColumn: 1 } },
    'loc/bob': { artifactLocation: { uri: 'main.js' }, region: { startLine: 13, startColumn: 5 } },
  });
  expect(markdown).toMatch(/\| FAILED \| `userpass-token-ttl` \| mandatory \| `loc\/alice` at `main\.js:10` \|/);
  expect(markdown).toMatch(/\| FAILED \| `userpass-token-ttl` \| mandatory \| `loc\/bob` at `main\.js:13` \|/);
});

test('with new App({ stackTraces: false }) every result falls back to line 1 of the entry file', async () => {
  const project = createLinkedProject('secretform-sarif-locations-off-', APP, 'cdktf');
  const { locations, markdown } = await planFindings(project, { SF_E2E_NO_TRACES: '1' });
  expect(locations).toEqual({
    'loc/alice': { artifactLocation: { uri: 'main.js' }, region: { startLine: 1 } },
    'loc/bob': { artifactLocation: { uri: 'main.js' }, region: { startLine: 1 } },
  });
  expect(markdown).toContain('| `loc/alice` |');
  expect(markdown).not.toContain('main.js:');
});

test('a TypeScript app run by `node --import tsx`: the line of the .ts file as written', async () => {
  const project = createLinkedProject('secretform-sarif-locations-ts-', '', 'cdktf');
  symlinkSync(join(ROOT, 'node_modules', 'tsx'), join(project, 'node_modules', 'tsx'), 'dir');
  writeFileSync(join(project, 'cdktf.json'), JSON.stringify({ language: 'typescript', app: 'node --import tsx main.ts' }));
  writeFileSync(join(project, 'main.ts'), TS_APP);
  const { locations } = await planFindings(project);
  expect(locations).toEqual({ 'loc/bob': { artifactLocation: { uri: 'main.ts' }, region: { startLine: 16, startColumn: 24 } } });
});
