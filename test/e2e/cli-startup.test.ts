/**
 * Start-up of the real binary: `version` answers at once, and each command loads only what it needs (cdktf and
 * the dev server are never loaded by `plan --no-synth`).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { cliEnv, createProject, ROOT, runCli } from './cli-harness';

jest.setTimeout(120_000);

const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

let server: DevServer;
let project: string;
beforeAll(async () => {
  server = await startDevServer({ port: 0, rootToken: 'cli-startup-root' });
  project = createProject();
});
afterAll(async () => {
  await server?.close();
});

/** The modules a run of the binary loaded (the binary's env-guarded debug hook writes them at exit). */
async function loadedModules(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string; modules: string[] }> {
  const file = join(mkdtempSync(join(tmpdir(), 'secretform-modules-')), 'modules.txt');
  const result = await runCli(args, project, cliEnv(server, { SECRETFORM_DEBUG_LOADED_MODULES: file }));
  return { ...result, modules: readFileSync(file, 'utf8').split('\n').filter(Boolean) };
}

const isCdktf = (module: string) => /node_modules[\\/](cdktf|cdktn|constructs|@cdktf)[\\/]/.test(module) || /[\\/]dist[\\/]constructs[\\/](cdktf-adapter|stack|resource)\.js$/.test(module);
const isDevServer = (module: string) => /[\\/]dist[\\/]devserver[\\/]/.test(module);

describe('secretform start-up', () => {
  test.each([['version'], ['--version'], ['-V']])('`secretform %s` prints "secretform <version>" and exits 0', async (arg) => {
    const result = await runCli([arg], project, cliEnv(server));
    expect(result).toEqual({ code: 0, stdout: `secretform ${VERSION}\n`, stderr: '' });
  });

  test('`secretform --help` lists the version command', async () => {
    const result = await runCli(['--help'], project, cliEnv(server));
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^\s+version\s+print the version$/m);
  });

  test('plan --no-synth plans from the existing output without loading cdktf or the dev server', async () => {
    // The synth run (and its cdktf app process) writes cdktf.out; the plan that follows reads it.
    const synth = await loadedModules(['synth']);
    expect(synth.code).toBe(0);
    const planned = await loadedModules(['plan', '--no-synth', '--format', 'json']);
    expect(planned.stderr).toBe('');
    expect(planned.code).toBe(0);
    expect(JSON.parse(planned.stdout).resource_changes.length).toBeGreaterThan(0);
    // The hook really lists what was loaded: the engine, the report and the HTTP client are there.
    expect(planned.modules.some((m) => /[\\/]dist[\\/]engine[\\/]plan[\\/]plan-run\.js$/.test(m))).toBe(true);
    expect(planned.modules.some((m) => /node_modules[\\/]undici[\\/]/.test(m))).toBe(true);
    // Only undici's Pool: its entry point (fetch, WebSocket, cookies, mocks) is not loaded.
    expect(planned.modules.filter((m) => /node_modules[\\/]undici[\\/](index\.js|lib[\\/]web[\\/])/.test(m))).toEqual([]);
    expect(planned.modules.filter(isCdktf)).toEqual([]);
    expect(planned.modules.filter(isDevServer)).toEqual([]);
  });

  test('the dev-server command does load the dev server (the check above can fail)', async () => {
    const help = await loadedModules(['dev-server', '--help']);
    expect(help.code).toBe(0);
    expect(help.modules.filter(isDevServer).length).toBeGreaterThan(0);
  });
});
