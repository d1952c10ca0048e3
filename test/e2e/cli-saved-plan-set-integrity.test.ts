/**
 * Every stack of a saved plan, and the set's own fields, are covered by a MAC (issue 34 item 6). The
 * environments example (three stacks on two dev servers, each through its own ServiceConnection; `base` has no
 * secret field, so before this its plan carried no MAC) is planned into one file without SECRETFORM_STATE_KEY:
 * `plan --out` creates each stack's key where it is kept. Editing the `base` stack (a description set to
 * TAMPERED), the set's dependencies or its order is refused before any write, on either server or in state;
 * the file as written applies.
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { closeEnvironmentServers, environmentsEnv, startEnvironmentServers, synthEnvironments, type EnvironmentServers } from '../support/environments-example';
import { runCli } from './cli-harness';
import { tempDir } from '../support/temp-dir';

jest.setTimeout(240_000);

let servers: EnvironmentServers;
let dir: string;
let env: NodeJS.ProcessEnv;
let planFile: string;

beforeAll(async () => {
  servers = await startEnvironmentServers();
  dir = tempDir('secretform-plan-set-integrity-');
  env = environmentsEnv(servers, { SECRETFORM_STATE_KEY: undefined });
  const synth = await synthEnvironments(dir, env);
  expect(synth.code).toBe(0);
  planFile = join(dir, 'environments.plan.json');
  const planned = await runCli(['plan', '--no-synth', '--out', planFile], dir, env);
  expect(planned.stderr).not.toContain('Error');
  expect(planned.code).toBe(0);
});

afterAll(async () => {
  await closeEnvironmentServers(servers);
  rmSync(dir, { recursive: true, force: true });
});

/** Requests that change something, on either server. */
const writes = () => [...servers.prod.requestLog, ...servers.staging.requestLog].filter((entry) => entry.method !== 'GET' && entry.method !== 'LIST');
const stateFiles = () => (existsSync(join(dir, '.secretform')) ? readdirSync(join(dir, '.secretform')).filter((name) => name.endsWith('.state.json')) : []);

/** A copy of the plan file changed by `edit`. */
function edited(name: string, edit: (file: any) => void): string {
  const file = JSON.parse(readFileSync(planFile, 'utf8'));
  edit(file);
  const copy = join(dir, name);
  writeFileSync(copy, JSON.stringify(file, null, 2));
  return copy;
}

async function expectRefused(file: string, ...expected: string[]): Promise<void> {
  const before = writes().length;
  const refused = await runCli(['apply', file], dir, env);
  expect(refused.code).toBe(1);
  for (const text of expected) expect(refused.stderr).toContain(text);
  expect(refused.stderr).toContain('no stack was changed');
  expect(writes().length).toBe(before);
  expect(stateFiles()).toEqual([]);
}

test('every stack carries a MAC, base (no secret field) included', () => {
  const file = JSON.parse(readFileSync(planFile, 'utf8'));
  expect(file.format_version).toBe(1);
  expect(file.stacks.map((stack: any) => [stack.stack, stack.format_version, stack.mac?.algorithm, stack.unverified])).toEqual([
    ['base', 2, 'hmac-sha256', undefined],
    ['prod', 2, 'hmac-sha256', undefined],
    ['staging', 2, 'hmac-sha256', undefined],
  ]);
  // The only writes of the plan: each stack's key, where it is kept (on its own service).
  expect(writes().map((entry) => entry.path).sort()).toEqual([
    'secret/data/secretform/fingerprint-keys/base',
    'secret/data/secretform/fingerprint-keys/prod',
    'secret/data/secretform/fingerprint-keys/staging',
  ]);
});

test("the base stack's description set to TAMPERED is refused before any write", async () => {
  const tampered = edited('tampered.plan.json', (file) => {
    const base = file.stacks.find((stack: any) => stack.stack === 'base');
    const mount = base.desired.find((entry: any) => entry.address === 'base/apps');
    mount.spec.description = 'TAMPERED';
    base.plan.changes.find((change: any) => change.address === 'base/apps').after.description = 'TAMPERED';
  });
  await expectRefused(tampered, 'stack base:', 'its content does not match its MAC');
});

test("the set's dependencies or its order edited are refused before any write", async () => {
  // prod no longer waits for base: it would run at the same time as base, before the auth method it uses exists.
  const dependencies = edited('dependencies.plan.json', (file) => {
    file.dependencies.prod = [];
  });
  await expectRefused(dependencies, 'its content does not match its MAC');
  const reordered = edited('reordered.plan.json', (file) => {
    file.stacks.reverse();
  });
  await expectRefused(reordered, 'its content does not match its MAC');
  const dropped = edited('dropped.plan.json', (file) => {
    file.stacks = file.stacks.filter((stack: any) => stack.stack !== 'staging');
  });
  await expectRefused(dropped, 'its content does not match its MAC');
});

test('the file as written applies every stack', async () => {
  const applied = await runCli(['apply', planFile], dir, env);
  expect(applied.stderr).toBe('');
  expect(applied.code).toBe(0);
  expect(stateFiles().sort()).toEqual(['base.state.json', 'prod.state.json', 'staging.state.json']);
});
