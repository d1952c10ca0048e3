/**
 * The quick start (`npm start`, examples/platform/quickstart.ts) end to end: the real script in a child process,
 * then the same walkthrough in-process with the dev server kept running, so the test can read on the service what
 * the example applied and what the "colleague" changed. Each run writes to a temporary work directory
 * (`--work-dir`), so test runs and a developer's own `npm start` never share files.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { DEMO_SECRETS, REPORT_FILE, runQuickstart, STACK, STATE_FILE, SYNTH_DIR, type RunningServer } from '../../examples/platform/quickstart';
import { ROOT } from './cli-harness';
import { tempDir } from '../support/temp-dir';

jest.setTimeout(120_000);

const EXAMPLE = join(ROOT, 'examples', 'platform');
const SEED = JSON.parse(readFileSync(join(EXAMPLE, 'seed.json'), 'utf8')) as { kv: { data: Record<string, string> }[] };

/** Every secret value the walkthrough handles: the demo credentials, and the KV secrets the seed holds (not usernames). */
const SECRET_VALUES = [
  ...Object.values(DEMO_SECRETS),
  // The key body alone, in case a report re-wrapped the PEM text.
  DEMO_SECRETS.PLATFORM_GITHUB_APP_KEY.split('\n')[1],
  ...SEED.kv.flatMap((secret) => Object.entries(secret.data).filter(([key]) => key !== 'username').map(([, value]) => value)),
];

/** The environment of a user's shell: no service settings or colour switches of the test runner's own. */
function userEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) {
    // The CI's commit and run variables are left out too: the comment would gain a context line the README lacks.
    const ci = /^(GITHUB_|CI_|GITLAB_CI$)/.test(name);
    if (ci || name.startsWith('SERVICE_') || name.startsWith('PLATFORM_') || ['FORCE_COLOR', 'NO_COLOR', 'SECRETFORM_STATE_KEY'].includes(name)) delete env[name];
  }
  return env;
}

function runNpmStart(workDir: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['start', '--', '--work-dir', workDir], { cwd: ROOT, env: userEnvironment(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Files a run wrote that could hold a secret: state, report(s), synthesized stack. */
function writtenFiles(workDir: string): string[] {
  const outDir = join(workDir, 'out');
  return [
    join(workDir, STATE_FILE),
    join(workDir, SYNTH_DIR, 'stacks', STACK, 'cdk.tf.json'),
    ...readdirSync(outDir).map((name) => join(outDir, name)),
  ];
}

const workDirs: string[] = [];
function newWorkDir(): string {
  const dir = tempDir('secretform-quickstart-');
  workDirs.push(dir);
  return dir;
}

afterAll(() => {
  for (const dir of workDirs) rmSync(dir, { recursive: true, force: true });
});

function expectNoSecretIn(texts: Record<string, string>): void {
  const leaks = Object.entries(texts).flatMap(([where, text]) => SECRET_VALUES.filter((secret) => text.includes(secret)).map((secret) => `${where}: ${secret}`));
  expect(leaks).toEqual([]);
}

async function serviceGet(server: RunningServer, path: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${server.url}/v1/${path}`, { headers: { 'X-Service-Token': server.rootToken } });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

async function isListening(url: string): Promise<boolean> {
  try {
    await fetch(`${url}/v1/sys/mounts`);
    return true;
  } catch {
    return false;
  }
}

class StringSink extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

describe('npm start (the worked example end to end)', () => {
  test('runs every step with the real CLI, exits 0, reports the drift with exit code 2, writes the report and stops the server', async () => {
    const workDir = newWorkDir();
    const run = await runNpmStart(workDir);
    expect(run.stderr).not.toContain('quick start failed');
    expect(run.code).toBe(0);

    const headings = [...run.stdout.matchAll(/^== \d+\. (.+)$/gm)].map((match) => match[1]);
    expect(headings).toEqual([
      'Start the dev server (seeded from seed.json)',
      'Synthesize the example (main.ts -> cdktf.out)',
      'Plan: what apply will create',
      'Apply',
      'A colleague changes two settings outside the code (HTTP API)',
      'Drift report: plan --detailed-exitcode exits 2 on changes or drift',
      'Pull-request report (markdown)',
      'Stop the dev server',
    ]);
    const state = join(workDir, STATE_FILE);
    const locations = `--output ${join(workDir, SYNTH_DIR)} --state ${state}`;
    for (const command of [
      '$ secretform dev-server --port 0 --seed seed.json &',
      `$ secretform synth --output ${join(workDir, SYNTH_DIR)}`,
      `$ secretform plan --no-synth ${locations}`,
      `$ secretform apply --no-synth ${locations} --auto-approve`,
      `$ secretform plan --no-synth ${locations} --detailed-exitcode`,
      `$ secretform plan --no-synth ${locations} --format markdown --out-file ${join(workDir, REPORT_FILE)}`,
    ]) {
      expect(run.stdout).toContain(`${command}\n`);
    }
    expect(run.stdout).toContain('Plan: 24 to add, 1 to change, 0 to destroy. 0 drifted.');
    expect(run.stdout).toContain('Apply complete! Resources: 24 added, 1 changed, 0 destroyed.');
    expect(run.stdout).toContain('Plan: 0 to add, 2 to change, 0 to destroy. 2 drifted.\n(exit code 2)');
    expect(run.stdout).toMatch(/^ +\d+\.\d s {2}total$/m);
    expect(run.stdout).toContain('Quick start complete.');

    // The dev server got a free port and is gone afterwards.
    const url = /dev server listening on (http:\/\/127\.0\.0\.1:\d+) /.exec(run.stdout)?.[1];
    expect(url).toBeDefined();
    expect(url).not.toBe('http://127.0.0.1:8200');
    expect(run.stdout).toContain('dev server stopped');
    expect(await isListening(url!)).toBe(false);

    const report = readFileSync(join(workDir, REPORT_FILE), 'utf8');
    expect(report.split('\n')[0]).toBe('⚠️ **Drift** for stack `platform`: 0 to add, 2 to change, 0 to destroy, 2 drifted');
    expect(report).toContain('> [!WARNING]\n> **2 objects changed outside secretform:**');
    // The README's excerpt of the comment is what the code prints.
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const excerpt = /`out\/plan\.md`, the same plan as a pull-request comment, starts like this[\s\S]*?```markdown\n([\s\S]*?)\n```\n/.exec(readme)?.[1];
    expect(excerpt).toBeDefined();
    expect(report.startsWith(`${excerpt}\n`)).toBe(true);
    expect(report).toContain('- token_policies = ["deployer"]\n+ token_policies = ["admin","deployer"]\n');
    expect(report).toContain('- rotation_period = 86400\n+ rotation_period = 3600\n');

    const stateFile = JSON.parse(readFileSync(state, 'utf8'));
    expect(stateFile.stack).toBe('platform');
    expect(Object.keys(stateFile.resources)).toHaveLength(25);
    expect(stateFile.resources['platform/ldap'].secrets).toHaveProperty('bindpass');
    expect(statSync(state).mode & 0o777).toBe(0o600);

    expectNoSecretIn({
      stdout: run.stdout,
      stderr: run.stderr,
      ...Object.fromEntries(writtenFiles(workDir).map((file) => [file, readFileSync(file, 'utf8')])),
    });
  });

  test('applies every construct of the example on the dev server, and the colleague\'s changes are what the drift report showed', async () => {
    const stdout = new StringSink();
    const stderr = new StringSink();
    const workDir = newWorkDir();
    const result = await runQuickstart({ stdout, stderr, env: userEnvironment(), workDir, keepServer: true });
    const server = result.server;
    try {
      expect(result.failure).toBeUndefined();
      expect(result.exitCode).toBe(0);
      expect(server).toBeDefined();
      expect(result.steps.map((step) => step.title)).toHaveLength(7);
      expect(result.steps.every((step) => step.seconds >= 0)).toBe(true);
      expect(result.reportPath).toBe(join(workDir, REPORT_FILE));
      expect(existsSync(result.reportPath)).toBe(true);
      const running = server!;

      // What the colleague changed is live; the rest is as the code says.
      expect((await serviceGet(running, 'ldap/static-role/svc-payments')).body.data.rotation_period).toBe(3600);
      expect((await serviceGet(running, 'ldap/static-role/svc-web')).body.data.rotation_period).toBe(604800);
      expect([...(await serviceGet(running, 'auth/userpass/users/ci-bot')).body.data.token_policies].sort()).toEqual(['admin', 'deployer']);
      expect((await serviceGet(running, 'auth/userpass/users/on-call')).body.data.token_policies).toEqual(['operator', 'reader']);

      // Secrets reached the service from the environment: the on-call password logs in, the app key's
      // fingerprint is the demo key's, and the static role's password was rotated away from the seed's.
      const login = await fetch(`${running.url}/v1/auth/userpass/login/on-call`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ password: DEMO_SECRETS.PLATFORM_ON_CALL_PASSWORD }),
      });
      expect(login.status).toBe(200);
      const app = await serviceGet(running, 'sys/sync/github-apps/platform-sync');
      expect(app.body.data.fingerprint).toBe(createHash('sha256').update(DEMO_SECRETS.PLATFORM_GITHUB_APP_KEY, 'utf8').digest('hex'));
      const staticCred = await serviceGet(running, 'ldap/static-cred/svc-web');
      expect(staticCred.status).toBe(200);
      // static-cred answers without the usual envelope; the password follows the "service-accounts" policy.
      expect(staticCred.body.password).not.toBe('svc-web-initial');
      expect(staticCred.body.password).toHaveLength(32);

      // Cloud engine, directory engine and sync objects exist.
      for (const path of [
        'cloud/config', 'cloud/roles/ci-deployer', 'ldap/config', 'ldap/role/incident-access', 'ldap/library/batch-pool',
        'sys/sync/destinations/cloud1-sm/payments-prod', 'sys/sync/destinations/cloud2-kv/web-prod', 'sys/sync/destinations/cloud3-sm/analytics',
        'sys/sync/destinations/repohost/deploy-tools', 'sys/sync/destinations/webhost-project/storefront',
      ]) {
        expect([path, (await serviceGet(running, path)).status]).toEqual([path, 200]);
      }
      expect((await serviceGet(running, 'sys/sync/config')).body.data.queue_capacity).toBe(10000);
      // Library sets are read without the envelope, as the service does.
      expect((await serviceGet(running, 'ldap/library/batch-pool')).body).toMatchObject({ service_account_names: ['batch-1', 'batch-2', 'batch-3'], ttl: 7200 });

      // Each KV secret is associated with, and synced to, the destinations the code names.
      const expectedDestinations: Record<string, string[]> = {
        'payments/db': ['cloud1-sm/payments-prod'],
        'payments/card-api': ['cloud1-sm/payments-prod'],
        'web/session': ['cloud2-kv/web-prod', 'webhost-project/storefront'],
        'analytics/warehouse': ['cloud3-sm/analytics'],
        'ci/deploy-key': ['repohost/deploy-tools'],
      };
      for (const [secret, destinations] of Object.entries(expectedDestinations)) {
        const associated = await waitForSynced(running, secret);
        expect([secret, Object.keys(associated).sort()]).toEqual([secret, destinations]);
      }

      expectNoSecretIn({
        stdout: stdout.text,
        stderr: stderr.text,
        ...Object.fromEntries(writtenFiles(workDir).map((file) => [file, readFileSync(file, 'utf8')])),
      });
    } finally {
      await server?.stop();
    }
    expect(await isListening(server!.url)).toBe(false);
  });
});

/** The destinations of a KV secret in `secret/` once none of them is still pending (syncs are asynchronous). */
async function waitForSynced(server: RunningServer, secret: string): Promise<Record<string, { sync_status: string }>> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const response = await serviceGet(server, `sys/sync/associations/secret/${secret}`);
    expect(response.status).toBe(200);
    const associated = response.body.data.associated_destinations as Record<string, { sync_status: string }>;
    const statuses = Object.values(associated).map((entry) => entry.sync_status);
    if (statuses.every((status) => status === 'SYNCED')) return associated;
    if (Date.now() > deadline) throw new Error(`secret/${secret} is not synced after 10 s: ${JSON.stringify(associated)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
