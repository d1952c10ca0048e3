import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tempDir } from '../support/temp-dir';

const BIN = resolve(__dirname, '../../bin/secretform.js');

interface Running {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

function run(args: string[], env: Record<string, string> = {}): Running {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolveExit) => child.on('exit', (code) => resolveExit(code)));
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

async function waitForListening(running: Running): Promise<string> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const match = /dev server listening on (http:\/\/[^\s]+) \(root token: ([^)]+)\)/.exec(running.stdout());
    if (match) return match[1];
    if (running.child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`dev server did not start; stdout: ${running.stdout()} stderr: ${running.stderr()}`);
}

describe('secretform dev-server', () => {
  test('starts, answers requests with the root token, and exits 0 on SIGTERM', async () => {
    const running = run(['dev-server', '--port', '0', '--root-token', 'cli-token']);
    try {
      const url = await waitForListening(running);
      expect(running.stdout()).toContain('(root token: cli-token)');
      const mounts = await fetch(`${url}/v1/sys/mounts`, { headers: { 'X-Service-Token': 'cli-token' } });
      expect(mounts.status).toBe(200);
      expect(Object.keys(((await mounts.json()) as { data: object }).data)).toEqual(['secret/']);
      const listed = await fetch(`${url}/v1/secret/metadata`, { method: 'LIST', headers: { 'X-Service-Token': 'cli-token' } });
      expect(listed.status).toBe(404);
      expect(await listed.json()).toEqual({ errors: [] });
    } finally {
      running.child.kill('SIGTERM');
    }
    expect(await running.exited).toBe(0);
  });

  test('takes the root token from SECRETFORM_DEV_ROOT_TOKEN and a seed from --seed', async () => {
    const dir = tempDir('cli-seed-');
    const seed = join(dir, 'seed.json');
    writeFileSync(seed, JSON.stringify({ mounts: [{ path: 'kv', type: 'kv', options: { version: '2' } }], kv: [{ mount: 'kv', path: 'a', data: { v: 'seeded' } }] }));
    const running = run(['dev-server', '--port', '0', '--seed', seed], { SECRETFORM_DEV_ROOT_TOKEN: 'env-token' });
    try {
      const url = await waitForListening(running);
      const read = await fetch(`${url}/v1/kv/data/a`, { headers: { 'X-Service-Token': 'env-token' } });
      expect(read.status).toBe(200);
      expect(((await read.json()) as { data: { data: unknown } }).data.data).toEqual({ v: 'seeded' });
    } finally {
      running.child.kill('SIGINT');
    }
    expect(await running.exited).toBe(0);
  });

  test('exits 1 with a message for bad flag values and invalid seeds', async () => {
    const badPort = run(['dev-server', '--port', 'eighty']);
    expect(await badPort.exited).toBe(1);
    expect(badPort.stderr()).toContain('--port must be an integer between 0 and 65535, got "eighty"');

    const badRate = run(['dev-server', '--port', '0', '--failure-rate', '1.5']);
    expect(await badRate.exited).toBe(1);
    expect(badRate.stderr()).toContain('--failure-rate must be a number between 0 and 1, got "1.5"');

    const dir = tempDir('cli-seed-');
    const seed = join(dir, 'bad.json');
    writeFileSync(seed, JSON.stringify({ mounts: [{ path: 'x', type: 'nosuch' }] }));
    const badSeed = run(['dev-server', '--port', '0', '--seed', seed]);
    expect(await badSeed.exited).toBe(1);
    expect(badSeed.stderr()).toContain(`invalid seed file ${seed}: mounts[0] (path "x"): type:`);

    const unknownFlag = run(['dev-server', '--nope']);
    expect(await unknownFlag.exited).toBe(1);
    expect(unknownFlag.stderr()).toContain("unknown option '--nope'");
  });

  test('--seed adds to the defaults; replaceDefaults in the file or --no-defaults starts from the seed alone', async () => {
    const dir = tempDir('cli-seed-');
    const seed = join(dir, 'seed.json');
    writeFileSync(seed, JSON.stringify({ kv: [{ mount: 'secret', path: 'team/db', data: { user: 'app' } }] }));
    const alone = join(dir, 'alone.json');
    writeFileSync(alone, JSON.stringify({ replaceDefaults: true, mounts: [{ path: 'kv', type: 'kv', options: { version: '2' } }] }));
    const mountsOf = async (args: string[]): Promise<string[]> => {
      const running = run(['dev-server', '--port', '0', ...args]);
      try {
        const url = await waitForListening(running);
        const body = (await (await fetch(`${url}/v1/sys/mounts`, { headers: { 'X-Service-Token': 'root' } })).json()) as { data: Record<string, unknown> };
        if (args.includes(seed)) {
          // The seed's secret sits in the default `secret/` mount, and the default directory is there for an LDAP config.
          const read = await fetch(`${url}/v1/secret/data/team/db`, { headers: { 'X-Service-Token': 'root' } });
          expect(((await read.json()) as { data: { data: unknown } }).data.data).toEqual({ user: 'app' });
        }
        return Object.keys(body.data).filter((path) => !['sys/', 'cubbyhole/', 'identity/'].includes(path)).sort();
      } finally {
        running.child.kill('SIGTERM');
        await running.exited;
      }
    };
    expect(await mountsOf(['--seed', seed])).toEqual(['secret/']);
    expect(await mountsOf(['--seed', alone])).toEqual(['kv/']);
    expect(await mountsOf(['--no-defaults'])).toEqual([]);
    // Without the defaults the seed's secret has no mount: the error names the file, the entry and the field.
    const missing = run(['dev-server', '--port', '0', '--no-defaults', '--seed', seed]);
    expect(await missing.exited).toBe(1);
    expect(missing.stderr()).toContain(`invalid seed file ${seed}: kv[0] (secret/team/db): mount: "secret" is not a KV version 2 mount`);
  });

  test('injects faults given on the command line', async () => {
    const running = run(['dev-server', '--port', '0', '--failure-rate', '1', '--failure-status', '429']);
    try {
      const url = await waitForListening(running);
      const response = await fetch(`${url}/v1/sys/mounts`, { headers: { 'X-Service-Token': 'root' } });
      expect(response.status).toBe(429);
      expect(response.headers.get('retry-after')).toBe('1');
    } finally {
      running.child.kill('SIGTERM');
    }
    expect(await running.exited).toBe(0);
  });
});
