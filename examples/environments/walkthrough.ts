/**
 * `npm run start:environments`: the environments example (main.ts) end to end, with the real `secretform` binary.
 *
 * 1. starts two dev servers, `staging` and `prod`, with different root tokens (the services of the two
 *    environments);
 * 2. synthesizes the app (three stacks: base and prod on the prod server, staging on the staging server);
 * 3. plans every stack in one run (one report); 4. applies them all with `apply --stack '*' --auto-approve`
 *    (base before prod, which depends on it);
 * 5. checks on each server, over HTTP, that each stack's objects are there and on no other server;
 * 6. plans again: nothing to do (`--detailed-exitcode` exits 0); 7. stops the servers.
 *
 * The commands get each server's token only in the variable its stacks name (STAGING_SERVICE_TOKEN,
 * PROD_SERVICE_TOKEN); SERVICE_ADDR and SERVICE_TOKEN are removed, since no stack uses them. Exit code 0 when every
 * step did what it should, 1 otherwise. `-- --work-dir DIR` writes cdktf.out and the states under DIR, created if
 * missing (default: this directory).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startDevServer, type DevServer } from '../../src/devserver/server';

const EXAMPLE_DIR = __dirname;
const REPOSITORY_ROOT = resolve(EXAMPLE_DIR, '..', '..');
const BIN = join(REPOSITORY_ROOT, 'bin', 'secretform.js');
const TSX = join(REPOSITORY_ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');

export const STACKS = ['base', 'prod', 'staging'] as const;
export type Environment = 'staging' | 'prod';

/** Each environment's root token (different, so a stack sent to the wrong server fails) and demo passwords. */
export const ROOT_TOKENS: Readonly<Record<Environment, string>> = { staging: 'staging-root-token-demo-8c1f', prod: 'prod-root-token-demo-2a7e' };
export const DEMO_SECRETS: Readonly<Record<string, string>> = {
  STAGING_CI_BOT_PASSWORD: 'demo-staging-ci-bot-password-4Kd1',
  PROD_CI_BOT_PASSWORD: 'demo-prod-ci-bot-password-7Qm3',
  PROD_ON_CALL_PASSWORD: 'demo-prod-on-call-password-1Zx8',
  SECRETFORM_STATE_KEY: 'demo-environments-state-key-5Ur2',
};

/** What each server must hold after the apply (API paths), and what must not be there. */
export const EXPECTED: Readonly<Record<Environment, { present: string[]; absent: string[] }>> = {
  prod: { present: ['sys/mounts/apps', 'auth/userpass/users/ci-bot', 'auth/userpass/users/on-call'], absent: [] },
  staging: { present: ['auth/userpass/users/ci-bot'], absent: ['sys/mounts/apps', 'auth/userpass/users/on-call'] },
};

export interface WalkthroughOptions {
  stdout?: NodeJS.WritableStream;
  stderr?: NodeJS.WritableStream;
  /** The environment the commands inherit (default process.env); SERVICE_* variables in it are removed. */
  env?: NodeJS.ProcessEnv;
  /** Where cdktf.out and .secretform go (default: this example's directory). */
  workDir?: string;
}

export interface WalkthroughResult {
  exitCode: 0 | 1;
  failure?: string;
  /** Everything the commands printed, for tests that look for secrets. */
  output: string[];
}

class StepFailure extends Error {}

export async function runEnvironments(options: WalkthroughOptions = {}): Promise<WalkthroughResult> {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const workDir = resolve(options.workDir ?? EXAMPLE_DIR);
  const result: WalkthroughResult = { exitCode: 0, output: [] };
  const servers: Partial<Record<Environment, DevServer>> = {};
  let current = 'preparing the run';
  const step = async (title: string, body: () => Promise<void>): Promise<void> => {
    current = title;
    stdout.write(`\n== ${title}\n`);
    await body();
  };

  try {
    // The commands run with the work dir as their cwd: a missing one would fail as `spawn node ENOENT`, which
    // names the executable, not the directory.
    mkdirSync(workDir, { recursive: true });
    for (const dir of ['cdktf.out', '.secretform']) rmSync(join(workDir, dir), { recursive: true, force: true });
    await step('Start the staging and prod services (two dev servers, different root tokens)', async () => {
      for (const name of ['staging', 'prod'] as const) {
        servers[name] = await startDevServer({ port: 0, rootToken: ROOT_TOKENS[name] });
        stdout.write(`${name}: ${servers[name].url}\n`);
      }
    });
    const env = commandEnvironment(options.env ?? process.env, servers as Record<Environment, DevServer>);
    const cli = (args: string[], expectedCode: number) => runCli(args, expectedCode, { cwd: workDir, env, stdout, stderr, output: result.output });

    await step('Synthesize: three stacks, each with its ServiceConnection', () =>
      cli(['synth', '--app', `${quote(process.execPath)} ${quote(TSX)} ${quote(join(EXAMPLE_DIR, 'main.ts'))}`, '--synth-env', 'ENVIRONMENTS_*'], 0));
    await step('Plan every stack in one run', () => cli(['plan', '--no-synth'], 0));
    await step('Apply every stack: base before prod, each on its own service', () => cli(['apply', '--no-synth', '--stack', '*', '--auto-approve'], 0));
    await step('Check each service over HTTP: each stack\'s objects on its own server only', () => checkServers(servers as Record<Environment, DevServer>, stdout));
    await step('Plan again: nothing to do', () => cli(['plan', '--no-synth', '--detailed-exitcode'], 0));
  } catch (error) {
    result.exitCode = 1;
    result.failure = `${current}: ${(error as Error).message}`;
    stderr.write(`\nenvironments walkthrough failed at "${current}": ${(error as Error).message}\n`);
  } finally {
    for (const server of Object.values(servers)) await server.close();
  }
  stdout.write(result.exitCode === 0 ? '\nEnvironments walkthrough complete.\n' : '\nEnvironments walkthrough failed (see above).\n');
  return result;
}

/** Each server's address for the app, each token in the variable its stacks name; no SERVICE_* at all. */
function commandEnvironment(base: NodeJS.ProcessEnv, servers: Record<Environment, DevServer>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(base)) if (!name.startsWith('SERVICE_')) env[name] = value;
  return {
    ...env,
    ...DEMO_SECRETS,
    ENVIRONMENTS_STAGING_ADDR: servers.staging.url,
    ENVIRONMENTS_PROD_ADDR: servers.prod.url,
    STAGING_SERVICE_TOKEN: servers.staging.rootToken,
    PROD_SERVICE_TOKEN: servers.prod.rootToken,
  };
}

async function checkServers(servers: Record<Environment, DevServer>, stdout: NodeJS.WritableStream): Promise<void> {
  for (const name of ['staging', 'prod'] as const) {
    const server = servers[name];
    for (const [apiPath, wanted] of [...EXPECTED[name].present.map((p) => [p, 200] as const), ...EXPECTED[name].absent.map((p) => [p, 404] as const)]) {
      const response = await fetch(`${server.url}/v1/${apiPath}`, { headers: { 'X-Service-Token': server.rootToken } });
      await response.arrayBuffer();
      const found = response.status;
      stdout.write(`${name}: GET /v1/${apiPath} -> ${response.status}${found === wanted ? '' : ' (unexpected)'}\n`);
      if (found !== wanted) throw new StepFailure(`${name} server: ${apiPath} answered ${response.status}, expected ${wanted === 200 ? 'it to exist' : 'nothing there'}`);
    }
  }
}

interface RunContext {
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  output: string[];
}

/** Runs `secretform ARGS`, passing its output through; fails unless it exits with `expectedCode`. */
function runCli(args: string[], expectedCode: number, context: RunContext): Promise<void> {
  context.stdout.write(`$ secretform ${args.map((arg) => (/^[\w./=:-]+$/.test(arg) ? arg : quote(arg))).join(' ')}\n`);
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: context.cwd, env: context.env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk: Buffer) => {
      context.output.push(chunk.toString());
      context.stdout.write(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      context.output.push(chunk.toString());
      context.stderr.write(chunk);
    });
    child.once('error', (error) => reject(new StepFailure(`cannot run secretform ${args[0]}: ${error.message}`)));
    child.once('close', (code, signal) => {
      if (code === expectedCode) {
        context.stdout.write(`(exit code ${code})\n`);
        resolvePromise();
      } else {
        reject(new StepFailure(`secretform ${args.join(' ')} ${signal !== null ? `was stopped by ${signal}` : `exited with code ${code}`}, expected ${expectedCode}`));
      }
    });
  });
}

function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

if (require.main === module) {
  let workDir: string | undefined;
  try {
    const { values } = parseArgs({ args: process.argv.slice(2), options: { 'work-dir': { type: 'string' } }, strict: true });
    workDir = values['work-dir'] === undefined ? undefined : resolve(process.env.INIT_CWD ?? process.cwd(), values['work-dir']);
  } catch (error) {
    process.stderr.write(`environments walkthrough: ${(error as Error).message}\nusage: npm run start:environments [-- --work-dir DIR]\n`);
    process.exit(1);
  }
  runEnvironments({ workDir }).then(
    (result) => { process.exitCode = result.exitCode; },
    (error: Error) => {
      process.stderr.write(`environments walkthrough: ${error.message}\n`);
      process.exitCode = 1;
    },
  );
}
