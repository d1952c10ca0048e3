/**
 * The real CLI believes a read only when it looks like the object, and calls an object deleted only when it
 * knows it talks to the service: malformed 200 answers fail the run naming the object, a wrong SERVICE_ADDR
 * (ending in /v1, or another server answering 404 to everything) is a run-level error naming SERVICE_ADDR,
 * and destroy never drops live objects from state on such answers.
 * Every server here is another address in front of one stack's state, so the runs pass --migrate-state (the
 * state records the service it was applied to; a plan writes nothing).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { cliEnv, createProject, runCli } from './cli-harness';
import { startRawServer, type RawHandler, type RawServer } from './client-raw-server';

jest.setTimeout(120_000);

const ADDRESSES = ['e2e/alice', 'e2e/bob', 'e2e/kv', 'e2e/userpass'];
const TOKEN = 'read-trust-root';

let dev: DevServer;
let project: string;
const raws: RawServer[] = [];

const env = (extra: Record<string, string | undefined> = {}) => cliEnv(dev, { SF_E2E_USERS: 'alice,bob', ...extra });
const statePath = () => join(project, '.secretform', 'e2e.state.json');
const recorded = (): string[] => (existsSync(statePath()) ? Object.keys(JSON.parse(readFileSync(statePath(), 'utf8')).resources ?? {}).sort() : []);

async function raw(handler: RawHandler): Promise<RawServer> {
  const server = await startRawServer(handler);
  raws.push(server);
  return server;
}

/** A proxy in front of the dev server that counts the requests of each path (to see the service check). */
async function countingProxy(): Promise<{ server: RawServer; paths: string[] }> {
  const paths: string[] = [];
  const server = await raw(async (request) => {
    paths.push(`${request.method} ${request.path}`);
    const response = await fetch(`${dev.url}${request.path}`, {
      method: request.method,
      headers: { 'x-service-token': request.headers['x-service-token'] ?? '', 'content-type': request.headers['content-type'] ?? 'application/json' },
      body: request.body === '' ? undefined : request.body,
    });
    return { status: response.status, headers: { 'content-type': 'application/json' }, body: await response.text() };
  });
  return { server, paths };
}

beforeAll(async () => {
  dev = await startDevServer({ port: 0, rootToken: TOKEN });
  project = createProject();
  const applied = await runCli(['apply', '--auto-approve'], project, env());
  expect(applied.code).toBe(0);
  expect(recorded()).toEqual(ADDRESSES);
});

afterAll(async () => {
  await Promise.all(raws.map((server) => server.close()));
  await dev?.close();
});

describe('a 200 that does not look like the object', () => {
  const MALFORMED: Array<[string, unknown, string]> = [
    ['a JSON number', 42, 'a JSON number instead of an object'],
    ['a JSON string', '"ok"', 'a JSON string instead of an object'],
    ['an empty array', [], 'a JSON array instead of an object'],
    ['an empty object', {}, 'an empty object, none of the fields such a read returns'],
    ['an envelope with null data', { request_id: 'x', data: null }, 'an envelope whose data is null'],
  ];

  test.each(MALFORMED)('%s: plan fails naming each object and what was wrong, never "deleted"', async (_name, body, problem) => {
    const server = await raw(() => ({ status: 200, headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) }));
    const result = await runCli(['plan', '--migrate-state', '--no-synth', '--detailed-exitcode'], project, env({ SERVICE_ADDR: server.url }));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`e2e/alice: GET /v1/auth/userpass/users/alice answered HTTP 200 with ${problem}`);
    expect(result.stderr).toContain('not a userpass_user object, nor its absence');
    expect(result.stderr).toContain('SERVICE_ADDR');
    expect(result.stdout).not.toMatch(/deleted outside|will be created|must be replaced/);
  });

  test.each(MALFORMED)('%s: destroy fails, says nothing is done, and keeps every object in state', async (_name, body) => {
    const server = await raw((request) =>
      request.method === 'GET' || request.method === 'LIST'
        ? { status: 200, headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) }
        : { status: 204 },
    );
    const result = await runCli(['destroy', '--migrate-state', '--no-synth', '--auto-approve'], project, env({ SERVICE_ADDR: server.url }));
    expect(result.code).toBe(1);
    expect(result.stdout).not.toContain('Nothing to do');
    expect(result.stdout).not.toContain('Destroy complete');
    expect(server.requests.filter((r) => r.method !== 'GET' && r.method !== 'LIST')).toEqual([]);
    expect(recorded()).toEqual(ADDRESSES);
  });
});

describe('a SERVICE_ADDR that is not the service', () => {
  test('ending in /v1: plan, apply and destroy stop with one error naming SERVICE_ADDR; nothing is recreated or forgotten', async () => {
    for (const command of [['plan', '--detailed-exitcode'], ['apply', '--auto-approve'], ['destroy', '--auto-approve']]) {
      const before = dev.requestCount;
      const result = await runCli([...command, '--migrate-state', '--no-synth'], project, env({ SERVICE_ADDR: `${dev.url}/v1` }));
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`the server at SERVICE_ADDR (${dev.url}/v1) does not answer like the secrets service, so no object is taken as deleted`);
      expect(result.stderr).toContain('SERVICE_ADDR ends in /v1, which the client adds itself');
      expect(result.stderr).toContain('no handler for route');
      expect(result.stdout).not.toMatch(/deleted outside|will be created|Nothing to do/);
      // The reads (the two mounts share their listings' reads) and one check of the token.
      expect(dev.requestCount - before).toBeLessThanOrEqual(ADDRESSES.length + 1);
    }
    expect(recorded()).toEqual(ADDRESSES);
    const plan = await runCli(['plan', '--migrate-state', '--no-synth', '--detailed-exitcode'], project, env());
    expect(plan.code).toBe(0);
  });

  test('another HTTP server answering 404 to everything: a run-level error naming SERVICE_ADDR (exit 1), not "everything deleted"', async () => {
    const server = await raw(() => ({ status: 404, headers: { 'content-type': 'text/html' }, body: '<html><body>Not Found</body></html>' }));
    const result = await runCli(['plan', '--migrate-state', '--no-synth', '--detailed-exitcode'], project, env({ SERVICE_ADDR: server.url }));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`the server at SERVICE_ADDR (${server.url}) does not answer like the secrets service`);
    expect(result.stderr).toContain('GET /v1/auth/token/lookup-self answered HTTP 404');
    expect(result.stdout).not.toContain('deleted outside');
    expect(server.requests.filter((r) => r.path === '/v1/auth/token/lookup-self')).toHaveLength(1);
  });
});

describe('objects really deleted outside secretform', () => {
  test('one object gone among live ones: shown as deleted, without any extra request', async () => {
    const deleted = await fetch(`${dev.url}/v1/auth/userpass/users/bob`, { method: 'DELETE', headers: { 'x-service-token': TOKEN } });
    expect(deleted.status).toBe(204);
    const proxy = await countingProxy();
    const result = await runCli(['plan', '--migrate-state', '--no-synth', '--detailed-exitcode'], project, env({ SERVICE_ADDR: proxy.server.url }));
    expect(result.code).toBe(2);
    expect(result.stdout).toContain('e2e/bob');
    expect(result.stdout).toContain('deleted outside secretform');
    expect(proxy.paths.filter((path) => path.includes('lookup-self'))).toEqual([]);
  });

  test('every object gone: the token lookup confirms the service once, then all are shown as deleted', async () => {
    for (const path of ['auth/userpass/users/alice', 'sys/auth/userpass', 'sys/mounts/apps']) {
      const response = await fetch(`${dev.url}/v1/${path}`, { method: 'DELETE', headers: { 'x-service-token': TOKEN } });
      expect(response.status).toBe(204);
    }
    const proxy = await countingProxy();
    const result = await runCli(['plan', '--migrate-state', '--no-synth', '--detailed-exitcode'], project, env({ SERVICE_ADDR: proxy.server.url }));
    expect(result.code).toBe(2);
    for (const address of ADDRESSES) expect(result.stdout).toContain(address);
    expect(result.stdout).toContain('Plan: 4 to add');
    expect(proxy.paths.filter((path) => path.includes('lookup-self'))).toEqual(['GET /v1/auth/token/lookup-self']);
  });
});
