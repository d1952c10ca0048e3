/**
 * The environments example (examples/environments): three stacks on two dev servers with different root tokens,
 * each stack through its own ServiceConnection. The stacks are applied one by one with `--stack` (dependency
 * order: base, prod, staging) and checked on each server over HTTP; then the walkthrough script plans every
 * stack in one run and applies them with `--stack '*'`.
 */
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { DEMO_SECRETS, EXPECTED, ROOT_TOKENS, runEnvironments, STACKS } from '../../examples/environments/walkthrough';
import { closeEnvironmentServers, environmentsEnv, startEnvironmentServers, synthEnvironments, type EnvironmentServers } from '../support/environments-example';
import { runCli, transcript } from './cli-harness';
import { tempDir } from '../support/temp-dir';

jest.setTimeout(180_000);

const SECRETS = [...Object.values(DEMO_SECRETS), ...Object.values(ROOT_TOKENS)];

const workDirs: string[] = [];
afterAll(() => workDirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function workDir(): string {
  const dir = tempDir('secretform-environments-example-');
  workDirs.push(dir);
  return dir;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const file = join(dir, entry);
    return statSync(file).isDirectory() ? filesUnder(file) : [readFileSync(file, 'utf8')];
  });
}

async function expectEachStackOnItsOwnServer(servers: EnvironmentServers): Promise<void> {
  for (const name of ['staging', 'prod'] as const) {
    for (const [apiPath, status] of [...EXPECTED[name].present.map((p) => [p, 200]), ...EXPECTED[name].absent.map((p) => [p, 404])] as const) {
      const response = await fetch(`${servers[name].url}/v1/${apiPath}`, { headers: { 'X-Service-Token': servers[name].rootToken } });
      await response.arrayBuffer();
      expect({ server: name, apiPath, status: response.status }).toEqual({ server: name, apiPath, status });
    }
  }
}

test('each stack of the example, applied with --stack, lands on its own server only', async () => {
  const servers = await startEnvironmentServers();
  try {
    const dir = workDir();
    const env = environmentsEnv(servers);
    const synth = await synthEnvironments(dir, env);
    expect(synth.stderr).not.toContain('Error');
    expect(synth.code).toBe(0);
    for (const stack of STACKS) {
      const applied = await runCli(['apply', '--no-synth', '--stack', stack, '--auto-approve'], dir, env);
      expect(applied.stderr).not.toContain('Error');
      expect(applied.code).toBe(0);
    }
    await expectEachStackOnItsOwnServer(servers);
    const everything = [...filesUnder(join(dir, 'cdktf.out')), ...filesUnder(join(dir, '.secretform')), ...transcript].join('\n');
    for (const secret of SECRETS) expect(everything).not.toContain(secret);
  } finally {
    await closeEnvironmentServers(servers);
  }
});

test('the walkthrough plans every stack in one run, applies --stack \'*\' and exits 0', async () => {
  const output: string[] = [];
  const sink = new Writable({ write(chunk: Buffer, _encoding, done) { output.push(chunk.toString()); done(); } });
  // A work dir that does not exist yet: the walkthrough creates it (--work-dir DIR of a new DIR).
  const dir = join(workDir(), 'new', 'work-dir');
  const result = await runEnvironments({ workDir: dir, stdout: sink, stderr: sink });
  expect(result.failure).toBeUndefined();
  expect(result.exitCode).toBe(0);
  const everything = [...output, ...filesUnder(join(dir, 'cdktf.out')), ...filesUnder(join(dir, '.secretform'))].join('\n');
  for (const secret of SECRETS) expect(everything).not.toContain(secret);
});
