/**
 * `secretform import` through the real binary, over a two-stack app (blue and green, each a userpass mount and a
 * user) and one dev server: an import adopts into exactly one stack (`--stack` once, by name, and the stack its
 * ADDRESS starts with), and it reports an object as not on the service only once it knows it talks to the
 * service (the token lookup that plan and apply use), never because another server answers 404 to everything.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runImport } from '../../src/cli/commands/import';
import { endCommand } from '../../src/cli/run/command-failure';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { fakeIo } from '../unit/cli-fake-io';
import { cliEnv, ROOT, runCli, transcript } from './cli-harness';
import { startRawServer, type RawHandler, type RawServer } from './client-raw-server';
import { tempDir } from '../support/temp-dir';

jest.setTimeout(120_000);

const PASSWORD = 'import-e2e-deployer-password-4b7e';
const TOKEN = 'import-e2e-root-token';
const LOOKUP_SELF = '/v1/auth/token/lookup-self';

const APP = `
const { App, TerraformStack } = require(${JSON.stringify(join(ROOT, 'node_modules', 'cdktf'))});
const sf = require(${JSON.stringify(join(ROOT, 'dist'))});
const app = new App();
for (const name of ['blue', 'green']) {
  const stack = new TerraformStack(app, name);
  const users = new sf.AuthMount(stack, 'users', { path: name + '-users', type: 'userpass' });
  new sf.UserpassUser(stack, 'deployer', { mount: users, username: 'deployer', password: sf.SecretValue.fromEnv('SF_IMPORT_PASSWORD'), tokenPolicies: ['default'] });
}
app.synth();
`;

let dev: DevServer;
let project: string;
const raws: RawServer[] = [];

const env = (extra: Record<string, string | undefined> = {}) => cliEnv(dev, { SF_IMPORT_PASSWORD: PASSWORD, ...extra });
const cli = (args: string[], extra: Record<string, string | undefined> = {}) => runCli(['import', ...args, '--no-synth'], project, env(extra));
const statePath = (stack: string) => join(project, '.secretform', `${stack}.state.json`);
const recorded = (stack: string): string[] => (existsSync(statePath(stack)) ? Object.keys(JSON.parse(readFileSync(statePath(stack), 'utf8')).resources ?? {}).sort() : []);
const lookups = (paths: string[]) => paths.filter((path) => path === LOOKUP_SELF);

async function raw(handler: RawHandler): Promise<RawServer> {
  const server = await startRawServer(handler);
  raws.push(server);
  return server;
}

beforeAll(async () => {
  dev = await startDevServer({ port: 0, rootToken: TOKEN });
  project = tempDir('secretform-import-');
  writeFileSync(join(project, 'cdktf.json'), JSON.stringify({ language: 'typescript', app: 'node main.js' }));
  writeFileSync(join(project, 'main.js'), APP);
  const synth = await runCli(['synth'], project, env());
  if (synth.code !== 0) throw new Error(`synth failed: ${synth.stderr}`);
});

// Each test starts with no state: what an import records is all there is.
beforeEach(() => rmSync(join(project, '.secretform'), { recursive: true, force: true }));

afterAll(async () => {
  await Promise.all(raws.map((server) => server.close()));
  await dev?.close();
});

describe('a SERVICE_ADDR that is not the service', () => {
  test('the real service without the objects: reported as not on the service once one token lookup confirms it (exit 0)', async () => {
    const before = dev.requestLog.length;
    const result = await cli(['--all', '--stack', 'blue']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Not found on the service: sys/auth/blue-users (blue/users); apply would create it.');
    expect(result.stdout).toContain('0 imported, 2 not found, 0 already in state.');
    expect(dev.requestLog.slice(before).filter((entry) => entry.path === 'auth/token/lookup-self')).toHaveLength(1);
  });

  test('another HTTP server answering 404 to everything: import --all and import ADDRESS ID exit 1 naming SERVICE_ADDR, never "not found"', async () => {
    const server = await raw(() => ({ status: 404, headers: { 'content-type': 'text/html' }, body: '<html><body>Not Found</body></html>' }));
    const all = await cli(['--all', '--stack', 'blue'], { SERVICE_ADDR: server.url });
    expect(all.code).toBe(1);
    expect(all.stderr).toContain(`the server at SERVICE_ADDR (${server.url}) does not answer like the secrets service, so nothing is imported, nor reported as not on the service`);
    expect(all.stderr).toContain('blue/deployer and 1 more of the code read as not there (GET /v1/auth/blue-users/users/deployer: HTTP 404)');
    expect(all.stderr).toContain(`GET ${LOOKUP_SELF} answered HTTP 404`);
    expect(all.stderr).toContain("Set SERVICE_ADDR to the secrets service's base address");
    expect(all.stdout).not.toMatch(/not found/i);

    const one = await cli(['blue/deployer', 'auth/blue-users/users/deployer'], { SERVICE_ADDR: server.url });
    expect(one.code).toBe(1);
    expect(one.stderr).toContain(`the server at SERVICE_ADDR (${server.url}) does not answer like the secrets service`);
    expect(one.stderr).not.toContain('does not exist on the service');
    // One token lookup per run: the same proof plan and apply use.
    expect(lookups(server.requests.map((request) => request.path))).toHaveLength(2);
    expect(recorded('blue')).toEqual([]);
  });

  test('SERVICE_ADDR ending in /v1: import --all exits 1 saying the client adds /v1 itself', async () => {
    const result = await cli(['--all', '--stack', 'green'], { SERVICE_ADDR: `${dev.url}/v1` });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`the server at SERVICE_ADDR (${dev.url}/v1) does not answer like the secrets service`);
    expect(result.stderr).toContain('SERVICE_ADDR ends in /v1, which the client adds itself');
    expect(result.stdout).not.toContain('not found');
    expect(recorded('green')).toEqual([]);
  });

  test('a server answering 200 with JSON that is not the service: import --all exits 1 and records nothing', async () => {
    const server = await raw(() => ({ status: 200, headers: { 'content-type': 'application/json' }, body: { status: 'ok', service: 'something else' } }));
    const result = await cli(['--all', '--stack', 'blue'], { SERVICE_ADDR: server.url });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('not a userpass_user object, nor its absence');
    expect(result.stderr).toContain('SERVICE_ADDR');
    expect(result.stdout).not.toMatch(/Imported|not found/);
    expect(recorded('blue')).toEqual([]);
  });
});

describe('the one stack an import adopts into', () => {
  beforeAll(async () => {
    const applied = await runCli(['apply', '--no-synth', '--stack', '*', '--auto-approve'], project, env());
    expect(applied.code).toBe(0);
  });

  test('--stack given twice is refused naming the flag, before the app runs or any request', async () => {
    const before = dev.requestCount;
    for (const args of [['blue/deployer', 'auth/blue-users/users/deployer'], ['--all']]) {
      const result = await cli([...args, '--stack', 'green', '--stack', 'blue']);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('--stack was given twice ("green" and "blue"); this command works on one stack: give --stack once');
    }
    expect(dev.requestCount).toBe(before);
    expect([recorded('blue'), recorded('green')]).toEqual([[], []]);
  });

  test('several --stack reaching the command itself are refused, not replaced by the address\'s stack', async () => {
    const io = fakeIo({ cwd: project, env: env() });
    const code = endCommand(io, await runImport('blue/deployer', 'auth/blue-users/users/deployer', { stack: ['green', 'blue'], synth: false }, io));
    expect(io.stderr.text).toBe('Error: --stack was given 2 times ("green", "blue"); import works on one stack: give --stack once, with that stack\'s name\n');
    expect(code).toBe(1);
    expect(recorded('blue')).toEqual([]);
  });

  test('--stack naming another stack than ADDRESS starts with is refused, naming both and the fix, before any request', async () => {
    const before = dev.requestCount;
    const result = await cli(['blue/deployer', 'auth/blue-users/users/deployer', '--stack', 'green']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'Error: --stack green does not hold blue/deployer: an address starts with its stack\'s name, so it is in stack blue. ' +
        'Drop --stack (the address names its stack), or give --stack blue\n',
    );
    expect(dev.requestCount).toBe(before);
    expect([recorded('blue'), recorded('green')]).toEqual([[], []]);
  });

  test('a --stack pattern is refused with the stacks it matches, whether one or several', async () => {
    const one = await cli(['--all', '--stack', 'b*']);
    expect(one.code).toBe(1);
    expect(one.stderr).toBe("Error: --stack 'b*' is a pattern, matching blue; import --all works on one stack and takes its name: --stack blue (patterns are for plan, apply, destroy, show and graph)\n");
    const several = await cli(['--all', '--stack', '*']);
    expect(several.code).toBe(1);
    expect(several.stderr).toContain("--stack '*' is a pattern, matching blue, green; import --all works on one stack and takes its name: --stack blue or --stack green");
    expect([recorded('blue'), recorded('green')]).toEqual([[], []]);
  });

  test('one --stack by name: import --all adopts that stack\'s objects and leaves the other stack alone', async () => {
    const result = await cli(['--all', '--stack', 'green']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('2 imported, 0 not found, 0 already in state.');
    expect([recorded('blue'), recorded('green')]).toEqual([[], ['green/deployer', 'green/users']]);
  });

  test('--stack naming the address\'s own stack: the object is imported there', async () => {
    const before = dev.requestLog.length;
    const result = await cli(['blue/deployer', 'auth/blue-users/users/deployer', '--stack', 'blue']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Imported auth/blue-users/users/deployer as blue/deployer (userpass_user).');
    expect(recorded('blue')).toEqual(['blue/deployer']);
    // A read that looked like its object is the proof: no token lookup.
    expect(dev.requestLog.slice(before).filter((entry) => entry.path === 'auth/token/lookup-self')).toEqual([]);
  });
});

test('no secret value reaches any output or state file', () => {
  const states = ['blue', 'green'].map(statePath).filter((file) => existsSync(file)).map((file) => readFileSync(file, 'utf8'));
  for (const text of [...transcript, ...states]) {
    expect(text).not.toContain(PASSWORD);
    expect(text).not.toContain(TOKEN);
  }
});
