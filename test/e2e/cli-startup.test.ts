/**
 * Start-up of the real binary: `version` answers at once, and each command loads only what it needs (cdktf and
 * the dev server are never loaded by `plan --no-synth`, nor zod when the synthesized output and the state are
 * well formed), nor the HTTP client by `stacks`, which sends no request.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { cliEnv, createProject, ROOT, runCli } from './cli-harness';
import { tempDir } from '../support/temp-dir';

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
async function loadedModules(
  args: string[],
  cwd = project,
  env = cliEnv(server),
): Promise<{ code: number | null; stdout: string; stderr: string; modules: string[] }> {
  const file = join(tempDir('secretform-modules-'), 'modules.txt');
  const result = await runCli(args, cwd, { ...env, SECRETFORM_DEBUG_LOADED_MODULES: file });
  return { ...result, modules: readFileSync(file, 'utf8').split('\n').filter(Boolean) };
}

const isCdktf = (module: string) => /node_modules[\\/](cdktf|cdktn|constructs|@cdktf)[\\/]/.test(module) || /[\\/]dist[\\/]constructs[\\/](cdktf-adapter|stack|resource)\.js$/.test(module);
const isDevServer = (module: string) => /[\\/]dist[\\/]devserver[\\/]/.test(module);
const isSecretformModule = (module: string) => module.startsWith(join(ROOT, 'dist'));
const isZod = (module: string) => /[\\/]node_modules[\\/]zod[\\/]/.test(module);

/** A stack with its own ServiceConnection (so the plan reads a synthesized connection too), a mount and a user. */
const CONNECTED_APP = `
const { App, TerraformStack } = require(${JSON.stringify(join(ROOT, 'node_modules', 'cdktf'))});
const sf = require(${JSON.stringify(join(ROOT, 'dist'))});
const app = new App();
const stack = new TerraformStack(app, 'e2e');
new sf.ServiceConnection(stack, 'service', { address: process.env.SF_E2E_ADDR, tokenEnv: 'E2E_SERVICE_TOKEN' });
const userpass = new sf.AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass' });
new sf.UserpassUser(stack, 'alice', { mount: userpass, username: 'alice', password: sf.SecretValue.fromEnv('SF_E2E_ALICE_PASSWORD'), tokenPolicies: ['default'] });
new sf.SecretsMount(stack, 'kv', { path: 'apps', type: 'kv', options: { version: '2' } });
app.synth();
`;

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
    // The hook really lists what was loaded: secretform's code, all of it from the CLI's bundle
    // (scripts/bundle-cli.js), and the HTTP client from node_modules are there.
    expect(planned.modules.filter(isSecretformModule)).toEqual([join(ROOT, 'dist', 'cli', 'main.bundle.js')]);
    expect(planned.modules.some((m) => /node_modules[\\/]undici[\\/]/.test(m))).toBe(true);
    // The binary set its V8 flags (bin/v8-flags.js: undici's WebAssembly parser stays on baseline code).
    expect(planned.modules).toContain(join(ROOT, 'bin', 'v8-flags.js'));
    // Only undici's Pool: its entry point (fetch, WebSocket, cookies, mocks) is not loaded.
    expect(planned.modules.filter((m) => /node_modules[\\/]undici[\\/](index\.js|lib[\\/]web[\\/])/.test(m))).toEqual([]);
    expect(planned.modules.filter(isCdktf)).toEqual([]);
    expect(planned.modules.filter(isDevServer)).toEqual([]);
    // A plan writes no file, deletes nothing here and names no stack pattern (src/lazy-packages.ts).
    expect(planned.modules.filter((m) => /node_modules[\\/](write-file-atomic|p-limit|picomatch)[\\/]/.test(m))).toEqual([]);
  });

  test('stacks --changed loads no HTTP client (undici: the plan above loads it), cdktf or dev server', async () => {
    const before = server.requestCount;
    const listed = await loadedModules(['stacks', '--changed', '--no-synth']);
    expect(listed.stderr).toBe('');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('1 of 1 stack changed.');
    expect(server.requestCount).toBe(before);
    expect(listed.modules.filter((m) => /node_modules[\\/]undici[\\/]/.test(m))).toEqual([]);
    expect(listed.modules.filter(isCdktf)).toEqual([]);
    expect(listed.modules.filter(isDevServer)).toEqual([]);
  });

  test('a plan that writes its saved plan does load write-file-atomic (the check above can fail)', async () => {
    const saved = await loadedModules(['plan', '--no-synth', '--out', 'startup.plan']);
    expect(saved.code).toBe(0);
    expect(saved.modules.some((m) => /node_modules[\\/]write-file-atomic[\\/]/.test(m))).toBe(true);
  });

  test('`secretform --help` lists every command without loading the dev server, zod or prettier', async () => {
    const help = await loadedModules(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^\s+dev-server \[options\]\s+run the built-in dev server/m);
    expect(help.stdout).toMatch(/^\s+generate \[options\]/m);
    // Only the dev server's default port, which `dev-server --help` shows (src/devserver/default-port.ts).
    expect(help.modules.filter(isDevServer)).toEqual([join(ROOT, 'dist', 'devserver', 'default-port.js')]);
    expect(help.modules.filter(isZod)).toEqual([]);
    expect(help.modules.filter((m) => /node_modules[\\/]prettier[\\/]/.test(m))).toEqual([]);
  });

  test('the dev-server command does load the dev server when it starts (the checks above can fail)', async () => {
    // The port is taken (by this file's server): the command loads the server, which cannot listen there.
    const started = await loadedModules(['dev-server', '--port', new URL(server.url).port]);
    expect(started.code).toBe(1);
    expect(started.stderr).toMatch(/cannot start: .*EADDRINUSE/);
    expect(started.modules).toContain(join(ROOT, 'dist', 'devserver', 'server.js'));
    expect(started.modules.filter(isZod).length).toBeGreaterThan(0);
  });

  describe('zod, which only describes a damaged file', () => {
    let connected: string;
    let env: NodeJS.ProcessEnv;
    const statePath = () => join(connected, '.secretform', 'e2e.state.json');
    beforeAll(async () => {
      connected = tempDir('secretform-cli-zod-');
      writeFileSync(join(connected, 'cdktf.json'), JSON.stringify({ language: 'typescript', app: 'node main.js' }));
      writeFileSync(join(connected, 'main.js'), CONNECTED_APP);
      // The stack's connection names the server: SERVICE_ADDR and SERVICE_TOKEN are not used.
      env = cliEnv(server, { SF_E2E_ADDR: server.url, SECRETFORM_SYNTH_ENV: 'SF_E2E_ADDR', E2E_SERVICE_TOKEN: server.rootToken, SERVICE_ADDR: undefined, SERVICE_TOKEN: undefined });
      const applied = await runCli(['apply', '--auto-approve'], connected, env);
      expect(applied.stderr).toBe('');
      expect(applied.code).toBe(0);
    });

    test('is not loaded by a plan of well-formed synthesized output and state', async () => {
      const planned = await loadedModules(['plan', '--no-synth', '--detailed-exitcode'], connected, env);
      expect(planned.stderr).toBe('');
      expect(planned.code).toBe(0); // nothing to change: the state and the connection were read
      // The readers of the spec and the state ran (exit 0 says so: nothing to change), from the bundle, without zod.
      expect(planned.modules.filter(isSecretformModule)).toEqual([join(ROOT, 'dist', 'cli', 'main.bundle.js')]);
      expect(planned.modules.filter(isZod)).toEqual([]);
    });

    test('is loaded to say where a damaged state file is damaged, in its words (the check above can fail)', async () => {
      const state = JSON.parse(readFileSync(statePath(), 'utf8'));
      const address = Object.keys(state.resources)[0];
      state.resources[address].id = '';
      writeFileSync(statePath(), JSON.stringify(state, null, 2));
      const planned = await loadedModules(['plan', '--no-synth'], connected, env);
      expect(planned.code).toBe(1);
      expect(planned.stderr).toContain(
        `state file ${statePath()} is damaged at resources.${address}.id: Too small: expected string to have >=1 characters; ` +
          '`secretform state history` lists the kept versions',
      );
      expect(planned.modules.filter(isZod).length).toBeGreaterThan(0);
    });
  });
});
