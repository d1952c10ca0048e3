/**
 * Saved plans, refresh-only and drift checks through the real CLI against the dev server, with the state in a
 * local file and in a real PostgreSQL (a throwaway cluster of this file's own): a saved plan applied as it is; a
 * stale plan refused (the state changed; a live object changed) before any write; a refresh-only apply
 * accepting drift with no write; a drift check with only SERVICE_ADDR and SERVICE_TOKEN set; no secret value
 * in a plan file or in any output.
 */
import { cpSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { call } from '../devserver/http';
import { describeWithPostgres, PG_PASSWORD, startPostgres, type PgCluster } from '../support/postgres';
import { ALICE_PASSWORD, BOB_PASSWORD, cliEnv, createProject, runCli, transcript } from './cli-harness';
import { tempDir } from '../support/temp-dir';

jest.setTimeout(120_000);

let server: DevServer;
let pg: PgCluster | undefined;
let schemas = 0;
const planFiles: string[] = [];

/** Two versions of the code: alice and bob with token_ttl 1h, then 2h. Synthesized once, shared with --output. */
const VERSIONS = { v1: '1h', v2: '2h' };
type Version = keyof typeof VERSIONS;
const synthOutput: Partial<Record<Version, string>> = {};

beforeAll(async () => {
  const base = createProject();
  const bootstrap = await startDevServer({ port: 0, rootToken: 'synth-only' });
  try {
    await Promise.all(Object.entries(VERSIONS).map(async ([name, ttl]) => {
      const outdir = tempDir('secretform-saved-plan-synth-');
      const synth = await runCli(['synth', '--output', outdir], base, cliEnv(bootstrap, { SF_E2E_USERS: 'alice,bob', SF_E2E_TTL: ttl }));
      if (synth.code !== 0) throw new Error(`synth of ${name} failed: ${synth.stderr}`);
      synthOutput[name as Version] = outdir;
    }));
  } finally {
    await bootstrap.close();
  }
}, 120_000);

beforeEach(async () => {
  server = await startDevServer({ port: 0, rootToken: 'cli-saved-plans-root' });
});

afterEach(async () => {
  await server?.close();
});

const writes = () => server.requestLog.filter((entry) => entry.method !== 'GET' && entry.method !== 'LIST');

interface Backend {
  name: string;
  /** The environment that selects a fresh state for a new project. */
  stateEnv(): Record<string, string | undefined>;
}

const localFile: Backend = { name: 'local file', stateEnv: () => ({ SECRETFORM_STATE: undefined }) };
const postgres: Backend = { name: 'PostgreSQL', stateEnv: () => ({ SECRETFORM_STATE: pg!.url(`saved_${process.pid}_${(schemas += 1)}`) }) };

function setup(backend: Backend): { project: string; env: NodeJS.ProcessEnv; with: (args: string[], version?: Version) => string[]; planFile: (name: string) => string } {
  const project = createProject();
  const env = cliEnv(server, backend.stateEnv());
  return {
    project,
    env,
    with: (args, version = 'v1') => [...args, '--no-synth', '--output', synthOutput[version]!],
    planFile: (name) => {
      const file = join(project, name);
      planFiles.push(file);
      return file;
    },
  };
}

async function userTtl(name: string): Promise<unknown> {
  return (await call(server, 'GET', `auth/userpass/users/${name}`)).body.data.token_ttl;
}

/**
 * `stateOnly`: just the behaviours that depend on the backend (the state's serial and lineage, refresh-only
 * writes); the live-object checks are the same whatever keeps the state.
 */
function savedPlanBehaviours(backend: Backend, stateOnly = false): void {
  const anyBackend = (name: string, body: () => Promise<void>): void => {
    if (!stateOnly) test(name, body);
  };
  test('plan --out saves a 0600 plan without secret values; show renders it as plan did; apply PLANFILE applies it without a prompt', async () => {
    const { project, env, with: run, planFile } = setup(backend);
    const file = planFile('reviewed.plan.json');
    const planned = await runCli(run(['plan', '--out', file, '--format', 'json', '--detailed-exitcode']), project, env);
    expect(planned.stderr).toContain(`Saved the plan to ${file}`);
    expect(planned.code).toBe(2);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(ALICE_PASSWORD);
    expect(text).not.toContain(BOB_PASSWORD);
    expect(text).toContain('"SF_E2E_ALICE_PASSWORD"'); // the reference, resolved again at apply
    expect(writes()).toEqual([]);

    const shownJson = await runCli(['show', file, '--format', 'json'], project, env);
    expect(shownJson.code).toBe(0);
    expect(JSON.parse(shownJson.stdout)).toEqual(JSON.parse(planned.stdout));
    const textPlan = await runCli(run(['plan']), project, env);
    const shownText = await runCli(['show', file], project, { PATH: process.env.PATH });
    expect(shownText.code).toBe(0);
    expect(shownText.stdout).toBe(textPlan.stdout);
    const shownMarkdown = await runCli(['show', file, '--format', 'markdown'], project, env);
    expect(shownMarkdown.stdout).toContain('e2e/alice');

    // stdin is a closed pipe: a prompt would refuse; a saved plan needs none and synthesizes nothing.
    const applied = await runCli(['apply', file], project, env);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('Apply complete! Resources: 4 added, 0 changed, 0 destroyed.');
    expect(await userTtl('alice')).toBe(3600);
    const after = await runCli(run(['plan', '--detailed-exitcode']), project, env);
    expect(after.code).toBe(0);
  });

  test('apply PLANFILE is refused as stale, with no write sent, when the state changed since the plan', async () => {
    const { project, env, with: run, planFile } = setup(backend);
    const first = planFile('first.plan.json');
    const second = planFile('second.plan.json');
    expect((await runCli(run(['plan', '--out', first]), project, env)).code).toBe(0);
    expect((await runCli(run(['plan', '--out', second]), project, env)).code).toBe(0);
    expect((await runCli(['apply', first], project, env)).code).toBe(0);

    const writesBefore = writes().length;
    const stale = await runCli(['apply', second], project, env);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(/^Error: the saved plan is stale, so nothing was changed: the state changed since the plan was made \(serial 0 then, \d+ now\)/);
    expect(writes().length).toBe(writesBefore);

    // The same after a refresh-only apply or any other state change: a plan made before it no longer holds.
    const third = planFile('third.plan.json');
    expect((await runCli(run(['plan', '--out', third], 'v2'), project, env)).code).toBe(0);
    await call(server, 'POST', 'auth/userpass/users/bob', { token_ttl: '30m' });
    expect((await runCli(run(['apply', '--refresh-only', '--auto-approve']), project, env)).code).toBe(0);
    const afterRefresh = await runCli(['apply', third], project, env);
    expect(afterRefresh.code).toBe(1);
    expect(afterRefresh.stderr).toContain('stale');
    expect(afterRefresh.stderr).toContain('the state changed since the plan was made');
    expect(writes().length).toBe(writesBefore + 1); // only the test's own change of bob
  });

  anyBackend('apply PLANFILE is refused as stale, with no write sent, when a live object it read changed since', async () => {
    const { project, env, with: run, planFile } = setup(backend);
    expect((await runCli(run(['apply', '--auto-approve']), project, env)).code).toBe(0);
    const file = planFile('update.plan.json');
    const planned = await runCli(run(['plan', '--out', file, '--detailed-exitcode'], 'v2'), project, env);
    expect(planned.code).toBe(2);

    await call(server, 'POST', 'auth/userpass/users/alice', { token_max_ttl: '5h' });
    const writesBefore = writes().length;
    const stale = await runCli(['apply', file], project, env);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('Error: the saved plan is stale, so nothing was changed: live objects changed on the service since the plan was made: e2e/alice (changed)');
    expect(writes().length).toBe(writesBefore);
    expect(await userTtl('alice')).toBe(3600);

    // An object deleted outside secretform is a change too.
    const again = planFile('update-again.plan.json');
    expect((await runCli(run(['plan', '--out', again], 'v2'), project, env)).code).toBe(0);
    await call(server, 'DELETE', 'auth/userpass/users/bob');
    const deleted = await runCli(['apply', again], project, env);
    expect(deleted.code).toBe(1);
    expect(deleted.stderr).toContain('e2e/bob (deleted)');
    expect(writes().length).toBe(writesBefore + 1);

    // A fresh plan of the same code applies.
    const fresh = planFile('fresh.plan.json');
    expect((await runCli(run(['plan', '--out', fresh], 'v2'), project, env)).code).toBe(0);
    const applied = await runCli(['apply', fresh], project, env);
    expect(applied.code).toBe(0);
    expect(await userTtl('alice')).toBe(7200);
    expect(await userTtl('bob')).toBe(7200);
  });

  test('a drift check runs with only SERVICE_ADDR and SERVICE_TOKEN; apply --refresh-only accepts the drift without writing to the service', async () => {
    const { project, env, with: run } = setup(backend);
    expect((await runCli(run(['apply', '--auto-approve']), project, env)).code).toBe(0);
    await call(server, 'POST', 'auth/userpass/users/alice', { token_ttl: '3h' });

    // Nothing but the service's address and token (and where the state is): no secret, no state key.
    rmSync(join(project, 'user-password.txt'));
    const bare: NodeJS.ProcessEnv = { PATH: process.env.PATH, SERVICE_ADDR: env.SERVICE_ADDR, SERVICE_TOKEN: env.SERVICE_TOKEN, SECRETFORM_STATE: env.SECRETFORM_STATE };
    if (bare.SECRETFORM_STATE === undefined) delete bare.SECRETFORM_STATE;
    const writesBefore = writes().length;
    const check = await runCli(run(['plan', '--refresh-only', '--detailed-exitcode']), project, bare);
    expect(check.stderr).toBe('');
    expect(check.code).toBe(2);
    expect(check.stdout).toContain('e2e/alice');
    expect(check.stdout).toContain('Refresh-only plan: 1 drifted.');
    const markdown = await runCli(run(['plan', '--refresh-only', '--detailed-exitcode', '--format', 'markdown']), project, bare);
    expect(markdown.code).toBe(2);

    const accepted = await runCli(run(['apply', '--refresh-only', '--auto-approve']), project, bare);
    expect(accepted.stderr).toBe('');
    expect(accepted.code).toBe(0);
    expect(accepted.stdout).toContain('Refresh-only apply complete! Recorded the live state of 1 drifted resource in state; nothing was changed on the service.');
    expect(writes().length).toBe(writesBefore);
    expect(await userTtl('alice')).toBe(10800);

    const clean = await runCli(run(['plan', '--refresh-only', '--detailed-exitcode']), project, bare);
    expect(clean.code).toBe(0);
    expect(clean.stdout).toContain('No objects have changed outside of secretform.');
    // The code still says 1h: a full plan now proposes that update, no longer as drift.
    const full = await runCli(run(['plan', '--format', 'json']), project, { ...env, SF_E2E_ALICE_PASSWORD: ALICE_PASSWORD });
    expect(full.code).toBe(1); // bob's password file is gone: a full plan needs every secret
    expect(full.stderr).toContain('user-password.txt');
    expect(full.stderr).not.toContain(BOB_PASSWORD);
  });

  anyBackend('a saved refresh-only plan records the drift it showed, and nothing else', async () => {
    const { project, env, with: run, planFile } = setup(backend);
    expect((await runCli(run(['apply', '--auto-approve']), project, env)).code).toBe(0);
    await call(server, 'POST', 'auth/userpass/users/bob', { token_ttl: '45m' });
    const file = planFile('refresh.plan.json');
    const bare: NodeJS.ProcessEnv = { PATH: process.env.PATH, SERVICE_ADDR: env.SERVICE_ADDR, SERVICE_TOKEN: env.SERVICE_TOKEN };
    if (env.SECRETFORM_STATE !== undefined) bare.SECRETFORM_STATE = env.SECRETFORM_STATE;
    const planned = await runCli(run(['plan', '--refresh-only', '--out', file, '--detailed-exitcode']), project, bare);
    expect(planned.code).toBe(2);
    const writesBefore = writes().length;
    const applied = await runCli(['apply', file], project, bare);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('Recorded the live state of 1 drifted resource');
    expect(writes().length).toBe(writesBefore);
    expect((await runCli(run(['plan', '--refresh-only', '--detailed-exitcode']), project, bare)).code).toBe(0);
  });
}

describe('saved plans and refresh-only with the state in a local file', () => {
  savedPlanBehaviours(localFile);

  test('applying a saved plan a second time says it was already applied (exit 1), not stale with every object listed', async () => {
    const { project, env, with: run, planFile } = setup(localFile);
    const file = planFile('twice.plan.json');
    expect((await runCli(run(['plan', '--out', file]), project, env)).code).toBe(0);
    expect((await runCli(['apply', file], project, env)).code).toBe(0);
    const writesBefore = writes().length;
    const again = await runCli(['apply', file], project, env);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^Error: the saved plan was already applied, so nothing was changed: its apply wrote state serial \d+ at /);
    expect(again.stderr).not.toContain('stale');
    expect(again.stderr).not.toContain('e2e/alice');
    expect(writes().length).toBe(writesBefore);

    // A plan overtaken by another change is still stale: what it would do is not all in place.
    const v2 = planFile('v2.plan.json');
    expect((await runCli(run(['plan', '--out', v2], 'v2'), project, env)).code).toBe(0);
    expect((await runCli(run(['apply', '--auto-approve']), project, { ...env, SF_E2E_ALICE_PASSWORD: 'another-alice-password' })).code).toBe(0);
    const stale = await runCli(['apply', v2], project, env);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('the saved plan is stale');
  });

  test('apply PLANFILE refuses options that would change the plan, a missing file and a file that is not a plan', async () => {
    const { project, env, planFile } = setup(localFile);
    const file = planFile('missing.plan.json');
    const missing = await runCli(['apply', file], project, env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`cannot read the saved plan ${file}: the file does not exist; make one with \`secretform plan --out`);
    const notPlan = await runCli(['apply', join(project, 'cdktf.json')], project, env);
    expect(notPlan.code).toBe(1);
    expect(notPlan.stderr).toContain('is not a secretform saved plan');
    const target = await runCli(['apply', file, '--target', 'e2e/alice'], project, env);
    expect(target.code).toBe(1);
    expect(target.stderr).toContain('--target cannot be combined with a saved plan');
    const shown = await runCli(['show', file], project, env);
    expect(shown.code).toBe(1);
    expect(writes()).toEqual([]);
  });
});

describe('a saved plan is bound to what made it', () => {
  /** A copy of the plan file with every secret reference of the desired state replaced by `reference`. */
  function tampered(file: string, name: string, reference: Record<string, string>, change: (plan: any) => void = () => undefined): string {
    const plan = JSON.parse(readFileSync(file, 'utf8'));
    for (const entry of plan.desired) for (const field of Object.keys(entry.secrets)) entry.secrets[field] = { $secret: reference };
    change(plan);
    const copy = join(dirname(file), name);
    writeFileSync(copy, JSON.stringify(plan, null, 2));
    planFiles.push(copy);
    return copy;
  }

  test('a reference changed to SERVICE_TOKEN or to a file after plan --out is refused by the MAC, before any request', async () => {
    const { project, env, with: run, planFile } = setup(localFile);
    const file = planFile('bound.plan.json');
    expect((await runCli(run(['plan', '--out', file]), project, env)).code).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8')).mac).toMatchObject({ algorithm: 'hmac-sha256', key_origin: 'SECRETFORM_STATE_KEY' });

    const toToken = tampered(file, 'token.plan.json', { env: 'SERVICE_TOKEN' });
    const toFile = tampered(file, 'hostname.plan.json', { file: '/etc/hostname' });
    const noMac = tampered(file, 'no-mac.plan.json', { env: 'SF_E2E_ALICE_PASSWORD' }, (plan) => delete plan.mac);
    const requests = server.requestLog.length;
    for (const changed of [toToken, toFile]) {
      const applied = await runCli(['apply', changed], project, env);
      expect(applied.code).toBe(1);
      expect(applied.stderr).toContain(`Error: the saved plan ${changed} is refused, so nothing was read or changed: its content does not match its MAC: the file was changed after \`secretform plan --out\` wrote it`);
      const shown = await runCli(['show', changed], project, env);
      expect(shown.code).toBe(1);
      expect(shown.stderr).toContain('its content does not match its MAC');
    }
    const stripped = await runCli(['apply', noMac], project, env);
    expect(stripped.code).toBe(1);
    expect(stripped.stderr).toContain('it carries no MAC, but a fingerprint key is available (SECRETFORM_STATE_KEY)');
    const otherKey = await runCli(['apply', file], project, { ...env, SECRETFORM_STATE_KEY: 'another-key' });
    expect(otherKey.code).toBe(1);
    expect(otherKey.stderr).toContain('its MAC was made with another key');
    // Nothing reached the service: not the token, not the file, not even a read.
    expect(server.requestLog.length).toBe(requests);
    expect(transcript.join('\n')).not.toContain(server.rootToken);

    const applied = await runCli(['apply', file], project, env);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
  });

  test('a secret read from a SERVICE_* or SECRETFORM_* variable is refused at plan and apply, naming the address and field, before any request', async () => {
    const { project, env, with: run, planFile } = setup(localFile);
    // Without SECRETFORM_STATE_KEY and with nowhere to create the stack's key (no KV v2 mount where it is kept)
    // the plan carries no MAC and says why; applied with --allow-unverified-plan, the rule holds alone.
    const keyless = { ...env, SECRETFORM_STATE_KEY: undefined, SECRETFORM_FINGERPRINT_KEY_MOUNT: 'no-such-kv' };
    const file = planFile('keyless.plan.json');
    expect((await runCli(run(['plan', '--out', file]), project, keyless)).code).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8')).mac).toBeUndefined();
    expect(JSON.parse(readFileSync(file, 'utf8')).unverified).toContain('no fingerprint key: cannot create the KV v2 secret no-such-kv/secretform/fingerprint-keys/e2e');
    const toToken = tampered(file, 'keyless-token.plan.json', { env: 'SERVICE_TOKEN' });
    const toStateKey = tampered(file, 'keyless-state-key.plan.json', { env: 'SECRETFORM_STATE_KEY' });

    const outdir = tempDir('secretform-reserved-');
    cpSync(synthOutput.v1!, outdir, { recursive: true });
    const configFile = join(outdir, 'stacks', 'e2e', 'cdk.tf.json');
    writeFileSync(configFile, readFileSync(configFile, 'utf8').replace(/"env": ?"SF_E2E_ALICE_PASSWORD"/g, '"env":"SERVICE_TOKEN"'));

    // plan --out tried to create the stack's key (refused: no such mount): the only write of the test.
    const writesBefore = writes().length;
    const requests = server.requestLog.length;
    for (const changed of [toToken, toStateKey]) {
      const applied = await runCli(['apply', changed, '--allow-unverified-plan'], project, keyless);
      expect(applied.code).toBe(1);
      expect(applied.stderr).toMatch(/e2e\/alice: secret "password": (SERVICE_TOKEN|SECRETFORM_STATE_KEY) is a variable of secretform's own/);
    }
    for (const command of [['plan'], ['apply', '--auto-approve']]) {
      const refused = await runCli([...command, '--no-synth', '--output', outdir], project, env);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`e2e/alice: secret "password": SERVICE_TOKEN is a variable of secretform's own`);
    }
    expect(server.requestLog.length - requests).toBeLessThanOrEqual(2); // at most the reads of the (absent) key on the service
    expect(writes().slice(writesBefore)).toEqual([]);
    expect(transcript.join('\n')).not.toContain(server.rootToken);
  });
});

describeWithPostgres('saved plans and refresh-only with the state in PostgreSQL', () => {
  beforeAll(async () => {
    pg = await startPostgres();
  }, 60_000);
  afterAll(() => pg?.stop());

  savedPlanBehaviours(postgres, true);
});

afterAll(() => {
  const everything = [...transcript, ...planFiles.map((file) => { try { return readFileSync(file, 'utf8'); } catch { return ''; } })].join('\n');
  expect(everything).not.toContain(ALICE_PASSWORD);
  expect(everything).not.toContain(BOB_PASSWORD);
  expect(everything).not.toContain(PG_PASSWORD);
  expect(planFiles.length).toBeGreaterThan(5);
});
