/**
 * A closed output (`secretform destroy ... | head -3`) and repeated Ctrl-C end quietly: no stack trace, a
 * conventional exit code, no lock left behind, and a state that the next plan can work from.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { call } from '../devserver/http';
import { BIN, cliEnv, createProject, runCli, startCli, waitFor } from './cli-harness';
import { readStateAt } from '../../src/engine/state/locked-state';
import { resolveStateLocation } from '../../src/engine/state/state-location';

jest.setTimeout(180_000);

let server: DevServer;
let slowWrites: { url: string; server: Server };

/**
 * A proxy in front of the dev server that holds every write (a request starting with POST or DELETE) for
 * `delayMs` and forwards reads at once: refresh is quick, and there is always an operation in flight when the
 * second Ctrl-C comes.
 */
async function startSlowWriteProxy(target: DevServer, delayMs: number): Promise<{ url: string; server: Server }> {
  const port = new URL(target.url).port;
  const proxy = createServer((client) => {
    const upstream = createConnection({ host: '127.0.0.1', port: Number(port) });
    let queue = Promise.resolve();
    client.on('data', (chunk: Buffer) => {
      const write = /^(POST|DELETE) /.test(chunk.toString('latin1', 0, 8));
      queue = queue.then(() => (write ? new Promise((resolve) => setTimeout(resolve, delayMs)) : undefined)).then(() => {
        upstream.write(chunk);
      });
    });
    upstream.pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const address = proxy.address() as { port: number };
  return { url: `http://127.0.0.1:${address.port}`, server: proxy };
}

beforeAll(async () => {
  server = await startDevServer({ port: 0, rootToken: 'cli-output-signals-root' });
  slowWrites = await startSlowWriteProxy(server, 300);
});

afterAll(async () => {
  await new Promise((resolve) => slowWrites?.server.close(resolve));
  await server?.close();
});

const lockOf = (project: string) => join(project, '.secretform', 'e2e.state.json.lock');
/** The state as the next command sees it: the file with the journal of an interrupted run applied. */
async function stateOf(project: string): Promise<{ resources: Record<string, { id: string }> }> {
  const location = resolveStateLocation(undefined, {}, project, 'e2e');
  if (!location.ok) throw location.error;
  const state = await readStateAt(location.value, 'e2e');
  if (!state.ok) throw state.error;
  return state.value;
}

async function usersOnServer(): Promise<string[]> {
  const listed = await call(server, 'LIST', 'auth/userpass/users');
  return listed.status === 200 ? [...(listed.body.data.keys as string[])].sort() : [];
}

/** Runs `bash -c "<secretform args> | head -<lines>"`; the exit code is secretform's (PIPESTATUS[0]). */
function runIntoHead(args: string[], lines: number, cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  const quoted = [process.execPath, BIN, ...args].map((arg) => `'${arg.replace(/'/g, `'\\''`)}'`).join(' ');
  const script = `${quoted} | head -${lines}; echo "secretform-exit=\${PIPESTATUS[0]}" >&2`;
  const child = spawn('bash', ['-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) =>
    child.on('close', () => {
      const code = Number(/secretform-exit=(\d+)/.exec(stderr)?.[1] ?? -1);
      resolve({ code, stdout, stderr: stderr.replace(/secretform-exit=\d+\n/, '') });
    }),
  );
}

describe('output closed early (EPIPE)', () => {
  test('destroy | head -3 ends quietly with 141, leaves no lock, and the state matches the server', async () => {
    const users = ['p1', 'p2', 'p3', 'p4', 'p5', 'p6'];
    const project = createProject();
    const env = cliEnv(server, { SF_E2E_USERS: users.join(',') });
    expect((await runCli(['apply', '--auto-approve'], project, env)).code).toBe(0);

    const piped = await runIntoHead(['destroy', '--no-synth', '--auto-approve'], 3, project, env);
    expect(piped.stdout.split('\n').length).toBeLessThanOrEqual(4);
    expect(piped.stderr).not.toMatch(/EPIPE|\n\s+at /);
    expect(piped.code).toBe(141);
    expect(existsSync(lockOf(project))).toBe(false);

    // What state still records exists on the server; the next plan (JSON into head, too) works and the rest
    // of the destroy finishes.
    const onServer = await usersOnServer();
    for (const address of Object.keys((await stateOf(project)).resources)) {
      const name = address.replace('e2e/', '');
      if (users.includes(name)) expect(onServer).toContain(name);
    }
    // (A report written whole before head exits succeeds: 0; one written after it, 141.)
    const plannedIntoHead = await runIntoHead(['plan', '--no-synth'], 1, project, env);
    expect(plannedIntoHead.stderr).toBe('');
    expect([0, 141]).toContain(plannedIntoHead.code);
    const finished = await runCli(['destroy', '--no-synth', '--auto-approve'], project, env);
    expect(finished.code).toBe(0);
    expect((await usersOnServer()).filter((name) => users.includes(name))).toEqual([]);
    expect(existsSync(lockOf(project))).toBe(false);
  });
});

describe('a second Ctrl-C during apply', () => {
  test('exits 130 without a stack trace and leaves no lock, 10 runs in a row; the state stays consistent with the server', async () => {
    const users = Array.from({ length: 48 }, (_, i) => `s${String(i).padStart(2, '0')}`);
    const project = createProject();
    const env = cliEnv({ url: slowWrites.url, rootToken: server.rootToken }, { SF_E2E_USERS: users.join(',') });
    expect((await runCli(['plan'], project, env)).code).toBe(0); // synthesized once; every apply below uses it

    for (let run = 1; run <= 10; run++) {
      const running = startCli(['apply', '--no-synth', '--auto-approve', '--parallelism', '2'], project, env);
      await waitFor(() => /e2e\/s\d+: created/.test(running.stdout()), `run ${run}: a user to be created`);
      running.child.kill('SIGINT');
      await waitFor(() => running.stderr().includes('Interrupt received'), `run ${run}: the first interrupt to be acknowledged`);
      running.child.kill('SIGINT');
      const { code, signal } = await running.exited;
      // 130 from secretform itself; had the run already ended, the default Ctrl-C (killed by SIGINT, which a
      // shell reports as 130 too).
      const ending = code === 130 || (code === null && signal === 'SIGINT') ? 'interrupted' : `code ${code}, signal ${signal}:\n${running.stderr()}`;
      expect({ run, ending, stackTrace: /\n\s+at /.test(running.stderr()) }).toEqual({ run, ending: 'interrupted', stackTrace: false });
      expect({ run, lockLeft: existsSync(lockOf(project)) }).toEqual({ run, lockLeft: false });

      // State never records a user the server does not have.
      const onServer = await usersOnServer();
      const inState = Object.keys((await stateOf(project)).resources).map((address) => address.replace('e2e/', '')).filter((name) => users.includes(name));
      for (const name of inState) expect({ run, name, onServer: onServer.includes(name) }).toEqual({ run, name, onServer: true });
    }

    // The next plan shows exactly what remains: a create for each user the server lacks, an adoption for one it
    // has that state missed (created while the process was exiting), nothing for the rest.
    const onServer = await usersOnServer();
    const state = await stateOf(project);
    const planned = await runCli(['plan', '--no-synth', '--format', 'json'], project, env);
    expect(planned.code).toBe(0);
    const actions = new Map<string, string>(
      JSON.parse(planned.stdout).resource_changes.map((c: { address: string; actions: string[] }) => [c.address.replace('e2e/', ''), c.actions.join()]),
    );
    for (const name of users) {
      const expected = !onServer.includes(name) ? 'create' : state.resources[`e2e/${name}`] ? 'no-op' : 'update';
      expect({ name, action: actions.get(name) }).toEqual({ name, action: expected });
    }
  });
});
