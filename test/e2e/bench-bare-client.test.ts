/**
 * bench/bare-client.js, the reference the bench compares a plan with: it must send the plan's reads as the plan
 * does (authenticated, so the server does the same work), and fail when the server refuses them.
 */
import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { ROOT } from './cli-harness';
import { tempDir } from '../support/temp-dir';

const ROOT_TOKEN = 'bench-bare-client-root';
let server: DevServer;
let dir: string;

beforeAll(async () => {
  server = await startDevServer({ port: 0, rootToken: ROOT_TOKEN, seed: { mounts: [{ path: 'secret', type: 'kv', options: { version: '2' } }] } });
  dir = tempDir('secretform-bare-client-');
});

afterAll(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function bareClient(readsFile: string, token: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'bench', 'bare-client.js'), readsFile], { cwd: ROOT, env: { PATH: process.env.PATH, SERVICE_TOKEN: token }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

test('sends the reads with the token the server checks, and fails when the server refuses them', async () => {
  const reads = [['GET', 'sys/mounts', ''], ['GET', 'sys/auth', ''], ['GET', 'secret/config', '']];
  const readsFile = join(dir, 'reads.json');
  writeFileSync(readsFile, JSON.stringify({ url: server.url, parallelism: 2, reads }));

  const before = server.requestLog.length;
  const sent = await bareClient(readsFile, ROOT_TOKEN);
  expect(sent).toEqual({ code: 0, stderr: '' });
  const answered = server.requestLog.slice(before);
  expect(answered.map((entry) => `${entry.method} ${entry.path}`).sort()).toEqual(reads.map(([method, path]) => `${method} ${path}`).sort());
  expect(answered.map((entry) => entry.status)).toEqual([200, 200, 200]);

  const refused = await bareClient(readsFile, 'not-the-token');
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('3 reads failed');
});
