/**
 * Drives the real binary (`node bin/secretform.js`) as a child process against an in-process dev server, from a
 * temporary cdktf project whose app uses the compiled package (dist/, built by jest's global setup).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tempDir } from '../support/temp-dir';

export const ROOT = resolve(__dirname, '../..');
export const BIN = join(ROOT, 'bin', 'secretform.js');

/** Secret values the test project uses; no output, report or state file may contain them. */
export const ALICE_PASSWORD = 'alice-e2e-password-value-5f1d';
export const BOB_PASSWORD = 'bob-e2e-file-password-value-9c2e';

/**
 * The app: a userpass auth mount, one user per name in SF_E2E_USERS (default "alice"; alice's password from an
 * environment variable, everyone else's from a file), token_ttl from SF_E2E_TTL, and a KV v2 mount.
 */
const APP = `
const { App, TerraformStack } = require(${JSON.stringify(join(ROOT, 'node_modules', 'cdktf'))});
const sf = require(${JSON.stringify(join(ROOT, 'dist'))});
const app = new App();
const stack = new TerraformStack(app, 'e2e');
const userpass = new sf.AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass' });
const names = (process.env.SF_E2E_USERS || 'alice').split(',').filter(Boolean);
for (const name of names) {
  const password = name === 'alice' ? sf.SecretValue.fromEnv('SF_E2E_ALICE_PASSWORD') : sf.SecretValue.fromFile('user-password.txt');
  new sf.UserpassUser(stack, name, { mount: userpass, username: name, password, tokenTtl: process.env.SF_E2E_TTL || '1h', tokenPolicies: ['default'] });
}
new sf.SecretsMount(stack, 'kv', { path: 'apps', type: 'kv', options: { version: '2' }, description: 'application secrets' });
app.synth();
`;

/**
 * The app of two stacks that do not wait for each other, `blue` and `green`, both on the service of SERVICE_ADDR
 * (so a run over both refreshes and writes them at the same time): each a userpass auth mount `<stack>-users` with
 * one user per name in SF_E2E_USERS (default "alice"; passwords from the file), token_ttl from SF_E2E_TTL, and a
 * KV v2 mount `<stack>-apps`.
 */
export const TWO_STACKS = ['blue', 'green'] as const;

const TWO_STACK_APP = `
const { App, TerraformStack } = require(${JSON.stringify(join(ROOT, 'node_modules', 'cdktf'))});
const sf = require(${JSON.stringify(join(ROOT, 'dist'))});
const app = new App();
for (const name of ${JSON.stringify(TWO_STACKS)}) {
  const stack = new TerraformStack(app, name);
  const userpass = new sf.AuthMount(stack, 'userpass', { path: name + '-users', type: 'userpass' });
  for (const user of (process.env.SF_E2E_USERS || 'alice').split(',').filter(Boolean)) {
    new sf.UserpassUser(stack, user, { mount: userpass, username: user, password: sf.SecretValue.fromFile('user-password.txt'), tokenTtl: process.env.SF_E2E_TTL || '1h', tokenPolicies: ['default'] });
  }
  new sf.SecretsMount(stack, 'kv', { path: name + '-apps', type: 'kv', options: { version: '2' } });
}
app.synth();
`;

export function createProject(): string {
  return projectOf(APP);
}

/** A project of the app of two independent stacks (TWO_STACKS). */
export function createTwoStackProject(): string {
  return projectOf(TWO_STACK_APP);
}

function projectOf(app: string): string {
  const dir = tempDir('secretform-cli-e2e-');
  writeFileSync(join(dir, 'cdktf.json'), JSON.stringify({ language: 'typescript', app: 'node main.js' }, null, 2));
  writeFileSync(join(dir, 'main.js'), app);
  writeFileSync(join(dir, 'user-password.txt'), `${BOB_PASSWORD}\n`);
  return dir;
}

/**
 * A project like a user's: package.json, cdktf.json running `node main.js` (`app`), and node_modules holding
 * secretform (this checkout, with its bin), the framework (`cdktf` or `cdktn`) and constructs.
 */
export function createLinkedProject(prefix: string, app: string, framework: 'cdktf' | 'cdktn'): string {
  const dir = tempDir(prefix);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `${framework}-app`, private: true }));
  writeFileSync(join(dir, 'cdktf.json'), JSON.stringify({ language: 'typescript', app: 'node main.js' }));
  writeFileSync(join(dir, 'main.js'), app);
  const modules = join(dir, 'node_modules');
  mkdirSync(join(modules, '.bin'), { recursive: true });
  symlinkSync(ROOT, join(modules, 'secretform'), 'dir');
  for (const name of [framework, 'constructs']) symlinkSync(join(ROOT, 'node_modules', name), join(modules, name), 'dir');
  symlinkSync(BIN, join(modules, '.bin', 'secretform'));
  return dir;
}

/**
 * The environment of every run: the service, the secrets; nothing inherited that forces or disables colour, nor
 * the CI's commit and run (GITHUB_*, GitLab's CI_*), which would add a time-stamped context line to the comment.
 */
export function cliEnv(server: { url: string; rootToken: string }, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) {
    if (name.startsWith('SERVICE_') || name === 'FORCE_COLOR' || name === 'NO_COLOR' || name.startsWith('SF_E2E_') || /^(GITHUB_|CI_|GITLAB_CI$)/.test(name)) {
      delete env[name];
    }
  }
  Object.assign(env, { SERVICE_ADDR: server.url, SERVICE_TOKEN: server.rootToken, SF_E2E_ALICE_PASSWORD: ALICE_PASSWORD, SECRETFORM_STATE_KEY: 'e2e-state-key', SECRETFORM_SYNTH_ENV: 'SF_E2E_USERS,SF_E2E_TTL' });
  for (const [name, value] of Object.entries(extra)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

export interface Running {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts the binary with stdin a pipe (not a TTY), closed unless `input` is to be written later. */
export function startCli(args: string[], cwd: string, env: NodeJS.ProcessEnv): Running {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  child.stdin.end();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.on('close', (code, signal) => done({ code, signal })));
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Every output of every run, for the test that looks for secret values. */
export const transcript: string[] = [];

export async function runCli(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<CliResult> {
  const running = startCli(args, cwd, env);
  const { code } = await running.exited;
  transcript.push(running.stdout(), running.stderr());
  return { code, stdout: running.stdout(), stderr: running.stderr() };
}

/** Waits until `condition` holds, polling; fails with `what` after the timeout. */
export async function waitFor(condition: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

// eslint-disable-next-line no-control-regex -- matches the ESC that starts an ANSI colour sequence
export const ANSI = /\x1b\[/;
