/**
 * `secretform generate` through the real binary, against one dev server and servers that are not the service:
 * an empty listing (a 404, as the service answers a LIST with no entries) is believed only once the run knows it
 * talks to the service (the token lookup that plan, apply and import use), and a listing answered 200 must be of
 * the shape the service answers, so a wrong SERVICE_ADDR, or a proxy that gets some paths wrong, is an error and
 * never an empty or partial app. An object listed that then reads as not there is a warning.
 */
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { cliEnv, ROOT, runCli, transcript } from './cli-harness';
import { startServiceProxy } from '../support/service-proxy';
import { envelopeOf, startRawServer, type RawHandler, type RawReply, type RawRequest, type RawServer } from './client-raw-server';
import { tempDir } from '../support/temp-dir';

jest.setTimeout(60_000);

const PASSWORD = 'generate-e2e-deployer-password-7c1a';
const TOKEN = 'generate-e2e-root-token';
const LOOKUP_SELF = '/v1/auth/token/lookup-self';

let dev: DevServer;
let dir: string;
const raws: RawServer[] = [];

const env = (extra: Record<string, string | undefined> = {}) => cliEnv(dev, extra);
const generate = (extra: Record<string, string | undefined> = {}) => runCli(['generate', '--out-file', 'main.ts'], dir, env(extra));
const outFile = () => join(dir, 'main.ts');

async function raw(handler: RawHandler): Promise<RawServer> {
  const server = await startRawServer(handler);
  raws.push(server);
  return server;
}

/** The dev server behind a proxy that answers some paths itself (test/support/service-proxy.ts). */
async function proxy(own: (request: RawRequest) => RawReply | undefined): Promise<RawServer> {
  const server = await startServiceProxy(dev.url, own);
  raws.push(server);
  return server;
}

async function call(method: string, path: string, body: unknown): Promise<void> {
  const answer = await fetch(`${dev.url}/v1/${path}`, { method, headers: { 'x-service-token': TOKEN, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${await answer.text()}`);
}

beforeAll(async () => {
  dev = await startDevServer({ port: 0, rootToken: TOKEN });
  await call('POST', 'sys/auth/team-users', { type: 'userpass' });
  await call('POST', 'auth/team-users/users/deployer', { password: PASSWORD, token_policies: ['default'] });
});

// Each test writes into a fresh directory: what a run wrote is all there is.
beforeEach(() => {
  dir = tempDir('secretform-generate-');
});

afterAll(async () => {
  await Promise.all(raws.map((server) => server.close()));
  await dev?.close();
});

describe('a SERVICE_ADDR that is not the service', () => {
  test('another HTTP server answering 404 to everything: exit 1 naming SERVICE_ADDR and the fix, nothing written', async () => {
    const server = await raw(() => ({ status: 404, headers: { 'content-type': 'text/html' }, body: '<html><body>Not Found</body></html>' }));
    const result = await generate({ SERVICE_ADDR: server.url });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`the server at SERVICE_ADDR (${server.url}) does not answer like the secrets service, so no area is taken as empty`);
    expect(result.stderr).toMatch(/The listing sys\/auth and \d+ more read as empty \(GET \/v1\/sys\/auth: HTTP 404\)/);
    expect(result.stderr).toContain(`GET ${LOOKUP_SELF} answered HTTP 404`);
    expect(result.stderr).toContain("Set SERVICE_ADDR to the secrets service's base address");
    expect(result.stdout).toBe('');
    expect(existsSync(outFile())).toBe(false);
    // One token lookup: the proof plan, apply and import use, asked once.
    expect(server.requests.filter((request) => request.path === LOOKUP_SELF)).toHaveLength(1);
  });

  test('SERVICE_ADDR ending in /v1: exit 1 saying the client adds /v1 itself, nothing written', async () => {
    const result = await generate({ SERVICE_ADDR: `${dev.url}/v1` });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`the server at SERVICE_ADDR (${dev.url}/v1) does not answer like the secrets service`);
    expect(result.stderr).toContain('read as empty (GET /v1/v1/sys/auth: HTTP 404: no handler for route');
    expect(result.stderr).toContain('SERVICE_ADDR ends in /v1, which the client adds itself');
    expect(result.stdout).toBe('');
    expect(existsSync(outFile())).toBe(false);
  });

  // Refused before the proof: the first listing (the secrets mounts) is not one.
  test('a server answering 200 with JSON that is not the service: exit 1 naming SERVICE_ADDR, nothing written', async () => {
    const server = await raw(() => ({ status: 200, headers: { 'content-type': 'application/json' }, body: { status: 'ok', service: 'something else' } }));
    const result = await generate({ SERVICE_ADDR: server.url });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('GET /v1/sys/mounts answered HTTP 200 with an object with keys that are not mount paths ending in "/" ("status", "service")');
    expect(result.stderr).toContain(`Check that SERVICE_ADDR (${server.url}) points at the secrets service itself`);
    expect(result.stdout).toBe('');
    expect(existsSync(outFile())).toBe(false);
  });

  test('a plain HTTP server answering LIST with 501: exit 1 naming SERVICE_ADDR and the fix, nothing written', async () => {
    const server = await raw((request) => (request.method === 'LIST' ? { status: 501, body: 'Unsupported method' } : { status: 404 }));
    const result = await generate({ SERVICE_ADDR: server.url });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`the server at SERVICE_ADDR (${server.url}) does not answer like the secrets service, so nothing is written`);
    expect(result.stderr).toMatch(/LIST \/v1\/\S+ failed \(.*501/);
    expect(result.stderr).toContain('Set SERVICE_ADDR to the secrets service\'s base address');
    expect(existsSync(outFile())).toBe(false);
    expect(existsSync(join(dir, 'cdktf.json'))).toBe(false);
  });

  test('to stdout (no --out-file): a wrong SERVICE_ADDR prints no app', async () => {
    const server = await raw(() => ({ status: 404, body: { errors: [] } }));
    const result = await runCli(['generate'], dir, env({ SERVICE_ADDR: server.url }));
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('does not answer like the secrets service');
  });
});

describe('a server that answers some paths like the service, and a listing not as the service lists', () => {
  const USERS = '/v1/auth/team-users/users';
  test.each<[string, string, RawReply, string]>([
    ['data without keys', `LIST /v1/sys/sync/github-apps`, { status: 200, body: envelopeOf({}) }, 'LIST /v1/sys/sync/github-apps answered HTTP 200 with an object without "keys" where a list was expected'],
    ['{}', `LIST ${USERS}`, { status: 200, body: {} }, `LIST ${USERS} answered HTTP 200 with an object without "keys" where a list was expected`],
    ['no body', `LIST ${USERS}`, { status: 200 }, `LIST ${USERS} answered HTTP 200 with no body`],
    ['keys that are not all strings', `LIST ${USERS}`, { status: 200, body: envelopeOf({ keys: ['deployer', 7] }) }, 'with a list with entries that are not strings (a number)'],
    ['mount entries without a type', 'GET /v1/sys/auth', { status: 200, body: envelopeOf({ 'team-users/': { accessor: 'auth_userpass_1' } }) }, 'GET /v1/sys/auth answered HTTP 200 with a mount listing whose entries "team-users/" have no "type"'],
    ['associated secrets without key_info', 'LIST /v1/sys/sync/associations', { status: 200, body: envelopeOf({ keys: ['secret/app'] }) }, 'LIST /v1/sys/sync/associations answered HTTP 200 with a listing without "key_info"'],
  ])('a listing answered 200 with %s: exit 1 naming the endpoint and what is wrong, nothing written', async (_name, wrong, reply, said) => {
    const server = await proxy((request) => (`${request.method} ${request.path}` === wrong ? reply : undefined));
    const result = await generate({ SERVICE_ADDR: server.url });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(said);
    expect(result.stderr).toContain('Nothing is concluded from it (read as a listing, its area would look empty or partial) and nothing is written');
    expect(result.stderr).toContain(`Check that SERVICE_ADDR (${server.url}) points at the secrets service itself, not at a proxy or another server.`);
    expect(result.stdout).toBe('');
    expect(existsSync(outFile())).toBe(false);
  });

  test('an object listed whose read answers 404: a warning on stderr naming it, the rest of the app written', async () => {
    const server = await proxy((request) =>
      `${request.method} ${request.path}` === `LIST ${USERS}` ? { status: 200, body: envelopeOf({ keys: ['deployer', 'ghost'] }) } : undefined,
    );
    const result = await generate({ SERVICE_ADDR: server.url });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(
      'Warning: auth/team-users/users/ghost was listed, but its read (GET /v1/auth/team-users/users/ghost) found nothing, so it is left out of ' +
        'the app. It was deleted between the listing and the read, or the server lists objects it does not have: run generate again to see which.\n',
    );
    const source = readFileSync(outFile(), 'utf8');
    expect(source).toContain("new UserpassUser(stack, 'deployer'");
    expect(source).not.toContain('ghost');
  });
});

describe('the service itself', () => {
  test('empty listings are believed once a read looked like its object: the app is written, no token lookup sent', async () => {
    const before = dev.requestLog.length;
    const result = await generate();
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Generated \d+ objects in stack imported \(main\.ts\)\.$/m);
    const source = readFileSync(outFile(), 'utf8');
    expect(source).toContain("new UserpassUser(stack, 'deployer'");
    expect(source).not.toContain('new SyncDestination');
    const sent = dev.requestLog.slice(before);
    // Listings of what is not there answered 404 (the service's "empty list")...
    expect(sent.some((entry) => entry.method === 'LIST' && entry.status === 404)).toBe(true);
    // ...and the objects read back were the proof.
    expect(sent.filter((entry) => entry.path === 'auth/token/lookup-self')).toEqual([]);
  });
});

describe('the project it writes', () => {
  /** node_modules as a user's project has them: secretform (this checkout), the framework, constructs and tsx. */
  function linkProjectModules(project: string): void {
    mkdirSync(join(project, 'node_modules'));
    symlinkSync(ROOT, join(project, 'node_modules', 'secretform'), 'dir');
    for (const name of ['cdktf', 'constructs', 'tsx']) symlinkSync(join(ROOT, 'node_modules', name), join(project, 'node_modules', name), 'dir');
  }

  test('a cdktf.json beside the app, so that synth runs it as it stands', async () => {
    const result = await generate();
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Wrote cdktf.json: secretform synth runs the app with node --import tsx');
    expect(JSON.parse(readFileSync(join(dir, 'cdktf.json'), 'utf8'))).toEqual({ language: 'typescript', app: 'node --import tsx main.ts' });
    linkProjectModules(dir);
    const synth = await runCli(['synth'], dir, env());
    expect(synth.stderr).toBe('');
    expect(synth.code).toBe(0);
    expect(existsSync(join(dir, 'cdktf.out', 'stacks', 'imported', 'cdk.tf.json'))).toBe(true);
  });

  test('an existing cdktf.json is the user\'s: left as it is, and said so', async () => {
    writeFileSync(join(dir, 'cdktf.json'), '{ "app": "node app.js" }\n');
    const result = await generate();
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('cdktf.json exists beside it and was left as it is: its "app" must run main.ts.');
    expect(readFileSync(join(dir, 'cdktf.json'), 'utf8')).toBe('{ "app": "node app.js" }\n');
  });

  test('to stdout: the report on stderr names the cdktf.json to write', async () => {
    const result = await runCli(['generate'], dir, env());
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('Save the app as main.ts beside a cdktf.json such as {"language":"typescript","app":"node --import tsx main.ts"}');
    expect(existsSync(join(dir, 'cdktf.json'))).toBe(false);
  });
});

test('no secret value reaches any output', () => {
  for (const text of transcript) {
    expect(text).not.toContain(PASSWORD);
    expect(text).not.toContain(TOKEN);
  }
});
