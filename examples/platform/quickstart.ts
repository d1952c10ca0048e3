/**
 * `npm start`: the worked example end to end, driving the real `secretform` binary as a user would.
 *
 * 1. starts the built-in dev server on a free port, seeded with the KV secrets and directory entries the
 *    example needs (seed.json);
 * 2. synthesizes the example (main.ts), 3. shows the plan, 4. applies it;
 * 5. changes two settings through the HTTP API, as a colleague clicking in a UI would;
 * 6. shows the drift report (`plan --detailed-exitcode`, exit code 2);
 * 7. writes the markdown pull-request report to out/plan.md;
 * 8. stops the dev server.
 *
 * Every command runs in this directory with SERVICE_ADDR and SERVICE_TOKEN pointing at the dev server and demo
 * values for the example's secrets. Exit code 0 when every step did what it should, 1 otherwise; the dev server
 * is stopped in every case.
 *
 * `npm start -- --work-dir DIR` writes cdktf.out, the state and the report under DIR instead of this directory
 * (the commands then carry --output, --state and --out-file), so that runs can go on side by side.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import pc from 'picocolors';
import { shouldUseColor } from '../../src/report';

const PROJECT_DIR = __dirname;
const REPOSITORY_ROOT = resolve(PROJECT_DIR, '..', '..');
const BIN = join(REPOSITORY_ROOT, 'bin', 'secretform.js');

/**
 * Where the commands write, relative to the work directory (by default this one, where all three are
 * gitignored). They are removed when a run starts.
 */
export const STACK = 'platform';
export const SYNTH_DIR = 'cdktf.out';
export const STATE_FILE = join('.secretform', `${STACK}.state.json`);
export const REPORT_FILE = join('out', 'plan.md');
const GENERATED_DIRS = [SYNTH_DIR, '.secretform', 'out'];

/**
 * Demo values of the secrets main.ts reads with SecretValue.fromEnv, and of the state key. The LDAP bind
 * password must be the one seed.json gives `cn=secrets-engine,dc=example,dc=org`, since the dev server binds with
 * it; the others are accepted by the dev server as they are.
 */
export const DEMO_SECRETS: Readonly<Record<string, string>> = {
  PLATFORM_CLOUD_CLIENT_SECRET: 'demo-cloud-client-secret-4Qx9',
  PLATFORM_CI_BOT_PASSWORD: 'demo-ci-bot-password-7Tz2',
  PLATFORM_ON_CALL_PASSWORD: 'demo-on-call-password-3Vw8',
  PLATFORM_GITHUB_APP_KEY: '-----BEGIN RSA PRIVATE KEY-----\nZGVtby1naXRodWItYXBwLWtleS0xTWs1\n-----END RSA PRIVATE KEY-----\n',
  PLATFORM_CLOUD1_ACCESS_KEY_ID: 'DEMOAKIA6N2QH5XK',
  PLATFORM_CLOUD1_SECRET_ACCESS_KEY: 'demo-cloud1-secret-access-key-8Rp1',
  PLATFORM_CLOUD2_CLIENT_SECRET: 'demo-cloud2-client-secret-5Hd6',
  PLATFORM_CLOUD3_CREDENTIALS: '{"type":"service_account","private_key":"demo-cloud3-credentials-2Jm4"}',
  PLATFORM_WEBHOST_TOKEN: 'demo-webhost-token-9Ls3',
  PLATFORM_LDAP_BINDPASS: 'quickstart-bind-password',
  SECRETFORM_STATE_KEY: 'demo-state-key-6Fc7',
};

/** The changes "a colleague" makes outside the code, through the service's HTTP API. */
export const OUTSIDE_CHANGES = [
  {
    why: 'shortens svc-payments\' password rotation from 24h to 1h',
    path: 'ldap/static-role/svc-payments',
    body: { rotation_period: '1h' },
  },
  {
    why: 'gives ci-bot the admin policy',
    path: 'auth/userpass/users/ci-bot',
    body: { token_policies: ['deployer', 'admin'] },
  },
] as const;

export interface QuickstartOptions {
  /** Where the walkthrough is written (default process.stdout / process.stderr). */
  stdout?: NodeJS.WritableStream & { isTTY?: boolean };
  stderr?: NodeJS.WritableStream;
  /** The environment the commands inherit (default process.env); SERVICE_* variables in it are replaced. */
  env?: NodeJS.ProcessEnv;
  /** Where cdktf.out, the state and the report go (default: this example's directory). */
  workDir?: string;
  /** Leave the dev server running and hand it back (for tests that look at what was applied). */
  keepServer?: boolean;
}

export interface RunningServer {
  url: string;
  rootToken: string;
  /** Stops the dev server (SIGTERM, then SIGKILL if it has not exited after 5 s). */
  stop(): Promise<void>;
}

export interface StepTiming {
  title: string;
  seconds: number;
}

export interface QuickstartResult {
  exitCode: 0 | 1;
  /** Set when the run failed: which step, and what went wrong. */
  failure?: string;
  steps: StepTiming[];
  /** Absolute paths of what the run wrote. */
  synthDir: string;
  statePath: string;
  reportPath: string;
  /** Only with keepServer, when the server started. */
  server?: RunningServer;
}

/** A step whose outcome was not what the walkthrough expects. */
class StepFailure extends Error {}

export async function runQuickstart(options: QuickstartOptions = {}): Promise<QuickstartResult> {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const color = colorFor(stdout, options.env ?? process.env);
  const steps: StepTiming[] = [];
  const workDir = resolve(options.workDir ?? PROJECT_DIR);
  const result: QuickstartResult = {
    exitCode: 0,
    steps,
    synthDir: join(workDir, SYNTH_DIR),
    statePath: join(workDir, STATE_FILE),
    reportPath: join(workDir, REPORT_FILE),
  };
  const locations = locationFlags(workDir, result);
  let server: RunningServer | undefined;
  let current = 'preparing the run';

  const step = async <T>(title: string, body: () => Promise<T>): Promise<T> => {
    current = title;
    stdout.write(`\n${color.bold(color.cyan(`== ${steps.length + 1}. ${title}`))}\n`);
    const started = performance.now();
    const value = await body();
    const seconds = (performance.now() - started) / 1000;
    steps.push({ title, seconds });
    stdout.write(color.dim(`-- ${title}: done in ${seconds.toFixed(1)} s`) + '\n');
    return value;
  };

  const total = performance.now();
  stdout.write(color.bold('secretform quick start: the worked example in examples/platform, end to end\n'));
  stdout.write(`Commands run in ${relative(process.cwd(), PROJECT_DIR) || '.'}; \`secretform\` below is \`node ${relative(PROJECT_DIR, BIN)}\`.\n`);

  try {
    removeGeneratedFiles(workDir);
    server = await step('Start the dev server (seeded from seed.json)', () => startServer(stdout, stderr));
    const running = server;
    const env = commandEnvironment(options.env ?? process.env, running, color.enabled);
    const cli = (args: string[], expectedCode: number) => runCli(args, expectedCode, env, stdout, stderr, color);

    await step('Synthesize the example (main.ts -> cdktf.out)', () => cli(['synth', ...locations.synth], 0));
    await step('Plan: what apply will create', () => cli(['plan', '--no-synth', ...locations.engine], 0));
    await step('Apply', () => cli(['apply', '--no-synth', ...locations.engine, '--auto-approve'], 0));
    await step('A colleague changes two settings outside the code (HTTP API)', () => changeOutsideTheCode(running, stdout));
    await step('Drift report: plan --detailed-exitcode exits 2 on changes or drift', () => cli(['plan', '--no-synth', ...locations.engine, '--detailed-exitcode'], 2));
    await step('Pull-request report (markdown)', async () => {
      await cli(['plan', '--no-synth', ...locations.engine, '--format', 'markdown', '--out-file', locations.report], 0);
      const summary = readFileSync(result.reportPath, 'utf8').split('\n', 1)[0];
      stdout.write(`${shownPath(result.reportPath)}, ready to post on the pull request, starts with:\n  ${summary}\n`);
    });
  } catch (error) {
    result.exitCode = 1;
    result.failure = `${current}: ${(error as Error).message}`;
    stderr.write(`\n${color.red(`quick start failed at "${current}": ${(error as Error).message}`)}\n`);
  }

  if (server !== undefined && options.keepServer === true && result.exitCode === 0) {
    result.server = server;
    stdout.write(`\nThe dev server is left running at ${server.url}.\n`);
  } else if (server !== undefined) {
    const running = server;
    try {
      await step('Stop the dev server', () => running.stop());
    } catch (error) {
      result.exitCode = 1;
      result.failure ??= `stopping the dev server: ${(error as Error).message}`;
      stderr.write(`${color.red(`cannot stop the dev server: ${(error as Error).message}`)}\n`);
    }
  }

  const totalSeconds = (performance.now() - total) / 1000;
  stdout.write(`\n${color.bold('Timings')}\n`);
  for (const { title, seconds } of steps) stdout.write(`  ${seconds.toFixed(1).padStart(5)} s  ${title}\n`);
  stdout.write(`  ${totalSeconds.toFixed(1).padStart(5)} s  total\n`);
  stdout.write(result.exitCode === 0 ? color.green('\nQuick start complete.\n') : color.red('\nQuick start failed (see above).\n'));
  return result;
}

/** A path as the reader finds it best: relative to where they are when it is below, else absolute. */
function shownPath(path: string): string {
  const fromHere = relative(process.cwd(), path);
  return fromHere.startsWith('..') ? path : fromHere;
}

/** A fresh dev server starts empty, so the state and reports of an earlier run would only mislead. */
function removeGeneratedFiles(workDir: string): void {
  for (const dir of GENERATED_DIRS) rmSync(join(workDir, dir), { recursive: true, force: true });
}

/** The flags that send the commands' files to the work directory; none when it is the example's own. */
function locationFlags(workDir: string, paths: QuickstartResult): { synth: string[]; engine: string[]; report: string } {
  if (workDir === PROJECT_DIR) return { synth: [], engine: [], report: REPORT_FILE };
  return {
    synth: ['--output', paths.synthDir],
    engine: ['--output', paths.synthDir, '--state', paths.statePath],
    report: paths.reportPath,
  };
}

/** The dev server and commands started and not yet exited: stopped when this process ends, however it ends. */
const liveChildren = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of liveChildren) child.kill('SIGTERM');
});

function track(child: ChildProcess): ChildProcess {
  liveChildren.add(child);
  child.once('exit', () => liveChildren.delete(child));
  return child;
}

const LISTENING = /^dev server listening on (http:\/\/\S+) \(root token: (.+)\)$/;
const SERVER_START_TIMEOUT_MS = 15_000;
const SERVER_STOP_TIMEOUT_MS = 5_000;
/** Far above what any step takes (seconds); a command still running then is stuck, and the run fails. */
const COMMAND_TIMEOUT_MS = 180_000;

/** `secretform dev-server --port 0`: the first line it prints names the address it got. */
function startServer(stdout: NodeJS.WritableStream, stderr: NodeJS.WritableStream): Promise<RunningServer> {
  const args = ['dev-server', '--port', '0', '--seed', 'seed.json'];
  stdout.write(`$ secretform ${args.join(' ')} &\n`);
  const child = track(spawn(process.execPath, [BIN, ...args], { cwd: PROJECT_DIR, stdio: ['ignore', 'pipe', 'pipe'] }));
  let errorOutput = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    errorOutput += chunk.toString();
    stderr.write(chunk);
  });
  const exited = new Promise<void>((done) => child.once('close', () => done()));

  return new Promise<RunningServer>((resolvePromise, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new StepFailure(`the dev server printed no address within ${SERVER_START_TIMEOUT_MS / 1000} s`));
    }, SERVER_START_TIMEOUT_MS);
    let started = false;
    lines.on('line', (line) => {
      stdout.write(`${line}\n`);
      if (started) return;
      const match = LISTENING.exec(line);
      if (match === null) return;
      started = true;
      clearTimeout(timer);
      resolvePromise({ url: match[1], rootToken: match[2], stop: () => stopServer(child, exited) });
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new StepFailure(`cannot run the dev server: ${error.message}`));
    });
    child.once('exit', (code, signal) => {
      if (started) return;
      clearTimeout(timer);
      reject(new StepFailure(`the dev server exited (${signal ?? `code ${code}`}) before listening${errorOutput ? `: ${errorOutput.trim()}` : ''}`));
    });
  });
}

async function stopServer(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timedOut = await Promise.race([exited.then(() => false), delay(SERVER_STOP_TIMEOUT_MS).then(() => true)]);
  if (timedOut) {
    child.kill('SIGKILL');
    await exited;
    throw new StepFailure(`the dev server did not stop within ${SERVER_STOP_TIMEOUT_MS / 1000} s of SIGTERM and was killed`);
  }
}

/**
 * The commands' environment: the dev server as the service, the demo secrets, and nothing of the caller's own
 * service settings (a SERVICE_CACERT meant for a real server would break the connection to this one).
 */
function commandEnvironment(base: NodeJS.ProcessEnv, server: RunningServer, color: boolean): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(base)) if (!name.startsWith('SERVICE_')) env[name] = value;
  Object.assign(env, DEMO_SECRETS, { SERVICE_ADDR: server.url, SERVICE_TOKEN: server.rootToken });
  // The commands write to a pipe; keep the plan's colours when the walkthrough itself is on a terminal.
  if (color && env.FORCE_COLOR === undefined) env.FORCE_COLOR = '1';
  return env;
}

/**
 * Runs `secretform ARGS` in the example, passing its output through; fails unless it exits with `expectedCode`
 * within COMMAND_TIMEOUT_MS (a stuck command is killed with SIGKILL: it may be deaf to SIGTERM while stuck).
 */
function runCli(
  args: string[],
  expectedCode: number,
  env: NodeJS.ProcessEnv,
  stdout: NodeJS.WritableStream,
  stderr: NodeJS.WritableStream,
  color: Colors,
): Promise<void> {
  stdout.write(`${color.bold(`$ secretform ${args.join(' ')}`)}\n`);
  return new Promise((resolvePromise, reject) => {
    const child = track(spawn(process.execPath, [BIN, ...args], { cwd: PROJECT_DIR, env, stdio: ['ignore', 'pipe', 'pipe'] }));
    child.stdout!.on('data', (chunk: Buffer) => stdout.write(chunk));
    child.stderr!.on('data', (chunk: Buffer) => stderr.write(chunk));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, COMMAND_TIMEOUT_MS);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new StepFailure(`cannot run secretform ${args[0]}: ${error.message}`));
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (timedOut) {
        reject(new StepFailure(`secretform ${args.join(' ')} did not finish within ${COMMAND_TIMEOUT_MS / 1000} s and was killed`));
      } else if (code === expectedCode) {
        stdout.write(color.dim(`(exit code ${code})`) + '\n');
        resolvePromise();
      } else {
        const how = signal !== null ? `was stopped by ${signal}` : `exited with code ${code}`;
        reject(new StepFailure(`secretform ${args.join(' ')} ${how}, expected exit code ${expectedCode}; its output above says why`));
      }
    });
  });
}

/** Writes OUTSIDE_CHANGES with the root token, as the service's UI would. */
async function changeOutsideTheCode(server: RunningServer, stdout: NodeJS.WritableStream): Promise<void> {
  for (const change of OUTSIDE_CHANGES) {
    const body = JSON.stringify(change.body);
    stdout.write(`$ curl -X POST -H "X-Service-Token: $SERVICE_TOKEN" -d '${body}' $SERVICE_ADDR/v1/${change.path}   # ${change.why}\n`);
    let response: Response;
    try {
      response = await fetch(`${server.url}/v1/${change.path}`, {
        method: 'POST',
        headers: { 'X-Service-Token': server.rootToken, 'Content-Type': 'application/json' },
        body,
      });
    } catch (error) {
      throw new StepFailure(`POST /v1/${change.path} failed: ${(error as Error).message}`);
    }
    const text = await response.text();
    if (!response.ok) throw new StepFailure(`POST /v1/${change.path} answered ${response.status}: ${text}`);
    stdout.write(`HTTP ${response.status}\n`);
  }
}

interface Colors {
  enabled: boolean;
  bold(text: string): string;
  dim(text: string): string;
  cyan(text: string): string;
  green(text: string): string;
  red(text: string): string;
}

/** The rule the plan report follows: colours only on a terminal, and never with NO_COLOR (FORCE_COLOR forces them). */
function colorFor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): Colors {
  const enabled = shouldUseColor(stream, env);
  const colors = pc.createColors(enabled);
  return { enabled, bold: colors.bold, dim: colors.dim, cyan: colors.cyan, green: colors.green, red: colors.red };
}

function delay(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms).unref());
}

/** `[--work-dir DIR]`; undefined (after saying why) when the arguments are not that. */
function parseCommandLine(args: string[]): { workDir?: string } | undefined {
  try {
    const { values } = parseArgs({ args, options: { 'work-dir': { type: 'string' } }, strict: true, allowPositionals: false });
    const workDir = values['work-dir'];
    if (workDir !== undefined && workDir.trim() === '') throw new Error('--work-dir must not be empty');
    // npm runs scripts in the package root; a relative DIR means relative to where `npm start` was typed.
    return { workDir: workDir === undefined ? undefined : resolve(process.env.INIT_CWD ?? process.cwd(), workDir) };
  } catch (error) {
    process.stderr.write(`quick start: ${(error as Error).message}\nusage: npm start [-- --work-dir DIR]\n`);
    return undefined;
  }
}

if (require.main === module) {
  const commandLine = parseCommandLine(process.argv.slice(2));
  if (commandLine === undefined) {
    process.exitCode = 1;
  } else {
    // Ctrl-C reaches the commands and the dev server too (one process group); SIGTERM may reach only us. Either
    // way the 'exit' handler above stops the dev server.
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => {
        process.stderr.write(`\nquick start interrupted (${signal}); stopping the dev server and the running command\n`);
        process.exit(signal === 'SIGINT' ? 130 : 143);
      });
    }
    runQuickstart(commandLine).then(
      (result) => { process.exitCode = result.exitCode; },
      (error: Error) => {
        process.stderr.write(`quick start: ${error.message}\n`);
        process.exitCode = 1;
      },
    );
  }
}
