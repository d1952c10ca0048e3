/**
 * The real CLI against misbehaving servers: failures that concern the whole run are reported once and stop it
 * early, redirects never count as success, an echoing server never gets a secret onto the screen or into state,
 * and the service's warnings are shown once per resource.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { cliEnv, createProject, runCli } from './cli-harness';
import { ATTACK_SECRETS, attackForms, attackLeaks, b64, leaks } from './client-echo-forms';
import { envelopeOf, startRawServer, type RawHandler, type RawServer } from './client-raw-server';
import { createTestPki, type TestPki } from './client-test-pki';

jest.setTimeout(120_000);

const USERS = Array.from({ length: 60 }, (_, i) => `user${i}`).join(',');
const RESOURCES = 62; // 60 users, the userpass mount and the kv mount
const PARALLELISM = 10; // the CLI's default

let dev: DevServer;
let big: string;
let small: string;
const raws: RawServer[] = [];

async function raw(handler: RawHandler, tls?: Parameters<typeof startRawServer>[1]): Promise<RawServer> {
  const server = await startRawServer(handler, tls);
  raws.push(server);
  return server;
}

const bigEnv = (extra: Record<string, string | undefined> = {}) => cliEnv(dev, { SF_E2E_USERS: USERS, ...extra });
const smallEnv = (extra: Record<string, string | undefined> = {}) => cliEnv(dev, { SF_E2E_USERS: 'alice,bob', ...extra });
const statePath = (project: string) => join(project, '.secretform', 'e2e.state.json');
const recorded = (project: string): string[] =>
  existsSync(statePath(project)) ? Object.keys(JSON.parse(readFileSync(statePath(project), 'utf8')).resources ?? {}) : [];
const count = (text: string, part: string) => text.split(part).length - 1;

beforeAll(async () => {
  dev = await startDevServer({ port: 0, rootToken: 'cli-failures-root' });
  big = createProject();
  small = createProject();
  const synthBig = await runCli(['synth'], big, bigEnv());
  expect(synthBig.code).toBe(0);
  const synthSmall = await runCli(['synth'], small, smallEnv());
  expect(synthSmall.code).toBe(0);
});

afterAll(async () => {
  await Promise.all(raws.map((server) => server.close()));
  await dev?.close();
});

/** One `Error:` line in all, and none of the per-resource kind. */
function expectReportedOnce(stderr: string, cause: string): void {
  expect(count(stderr, cause)).toBe(1);
  expect(count(stderr, 'Error:')).toBe(1);
  expect(stderr).not.toMatch(/e2e\/user\d+/);
}

describe('a failure of the whole run is reported once and stops the run', () => {
  test(`wrong token: plan and apply with ${RESOURCES} resources say so once and send few requests`, async () => {
    for (const command of [['plan'], ['apply', '--auto-approve']]) {
      const before = dev.requestCount;
      const result = await runCli([...command, '--no-synth'], big, bigEnv({ SERVICE_TOKEN: 'not-the-token' }));
      expect(result.code).toBe(1);
      expectReportedOnce(result.stderr, 'SERVICE_TOKEN is probably wrong, expired or revoked');
      expect(result.stderr).toContain('invalid token');
      expect(dev.requestCount - before).toBeLessThanOrEqual(PARALLELISM);
    }
    expect(recorded(big)).toEqual([]);
  });

  test('a stopped server: "down or unreachable", once', async () => {
    const stopped = await startRawServer(() => 'destroy');
    const address = stopped.url;
    await stopped.close();
    const started = Date.now();
    const result = await runCli(['plan', '--no-synth'], big, bigEnv({ SERVICE_ADDR: address }));
    expect(result.code).toBe(1);
    expectReportedOnce(result.stderr, 'the service is down or unreachable');
    expect(result.stderr).toContain('ECONNREFUSED');
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  test('a server that drops every connection: once, after a bounded number of requests', async () => {
    const dropping = await raw(() => 'destroy');
    const result = await runCli(['plan', '--no-synth'], big, bigEnv({ SERVICE_ADDR: dropping.url }));
    expect(result.code).toBe(1);
    expectReportedOnce(result.stderr, 'the service is down or unreachable');
    // At most every request in flight, each with its retries (5 attempts).
    expect(dropping.requests.length).toBeLessThanOrEqual(PARALLELISM * 5);
  });

  test('an https address on a plain-http server: "speaks plain HTTP", once', async () => {
    const before = dev.requestCount;
    const result = await runCli(['plan', '--no-synth'], big, bigEnv({ SERVICE_ADDR: dev.url.replace('http:', 'https:') }));
    expect(result.code).toBe(1);
    expectReportedOnce(result.stderr, 'SERVICE_ADDR uses https, but the server speaks plain HTTP');
    expect(dev.requestCount - before).toBe(0);
  });

  describe('with TLS', () => {
    let pki: TestPki;
    beforeAll(() => {
      pki = createTestPki();
    });
    afterAll(() => pki.remove());

    test('a server that requires a client certificate: says so once (not "server closed the connection")', async () => {
      const mutual = await raw(() => ({ status: 200, body: envelopeOf({}) }), {
        cert: pki.read(pki.serverCertPath),
        key: pki.read(pki.serverKeyPath),
        ca: pki.read(pki.caCertPath),
        requestCert: true,
        rejectUnauthorized: true,
      });
      const result = await runCli(['plan', '--no-synth'], big, bigEnv({ SERVICE_ADDR: mutual.url, SERVICE_CACERT: pki.caCertPath }));
      expect(result.code).toBe(1);
      expectReportedOnce(result.stderr, 'the service requires a client certificate');
      expect(result.stderr).not.toContain('closed the connection');
      expect(mutual.requests).toHaveLength(0);
    });

    test('an untrusted server certificate: a certificate problem, once', async () => {
      const untrusted = await raw(() => ({ status: 200, body: envelopeOf({}) }), { cert: pki.read(pki.serverCertPath), key: pki.read(pki.serverKeyPath) });
      const result = await runCli(['plan', '--no-synth'], big, bigEnv({ SERVICE_ADDR: untrusted.url }));
      expect(result.code).toBe(1);
      expectReportedOnce(result.stderr, 'a certificate problem');
      expect(result.stderr).toContain('SERVICE_CACERT');
    });
  });

  test('the service goes down during apply: one report, the rest not started, state records nothing', async () => {
    // Reads find nothing (everything is to be created); every write finds the connection dropped.
    const crashing = await raw((request) => (request.method === 'GET' || request.method === 'LIST' ? { status: 404, body: { errors: [] } } : 'destroy'));
    const result = await runCli(['apply', '--no-synth', '--auto-approve'], big, bigEnv({ SERVICE_ADDR: crashing.url }));
    expect(result.code).toBe(1);
    expectReportedOnce(result.stderr, 'the service is down or unreachable');
    expect(result.stderr).toMatch(/apply did not finish \(0 added, 0 changed, 0 destroyed; \d operations? failed with this error, \d+ not started\)/);
    const writes = crashing.requests.filter((r) => r.method === 'POST');
    expect(writes.length).toBeLessThanOrEqual(2 * 5); // the two mounts (users wait for theirs), 5 attempts each
    expect(recorded(big)).toEqual([]);
  });
});

describe('redirects never count as success', () => {
  test('apply against a server answering every request with 302: exit 1, nothing in state, status and Location named once', async () => {
    const moved = await raw(() => ({ status: 302, headers: { location: 'https://login.example.com/' } }));
    const result = await runCli(['apply', '--no-synth', '--auto-approve'], big, bigEnv({ SERVICE_ADDR: moved.url }));
    expect(result.code).toBe(1);
    expectReportedOnce(result.stderr, 'HTTP 302 (redirect to "https://login.example.com/")');
    expect(result.stdout).not.toContain('Apply complete');
    expect(moved.requests.length).toBeLessThanOrEqual(PARALLELISM);
    expect(recorded(big)).toEqual([]);
  });

  test('apply against a server whose writes answer 307 with an empty body: exit 1, nothing in state', async () => {
    const standby = await raw((request) => (request.method === 'GET' || request.method === 'LIST' ? { status: 404, body: { errors: [] } } : { status: 307 }));
    const result = await runCli(['apply', '--no-synth', '--auto-approve'], small, smallEnv({ SERVICE_ADDR: standby.url }));
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('Plan: 4 to add');
    expect(result.stdout).not.toContain('Apply complete');
    expectReportedOnce(result.stderr, 'HTTP 307 (redirect without a Location header)');
    expect(recorded(small)).toEqual([]);
  });
});

describe('an echoing server', () => {
  const PEM = '-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgq1Xe+/Zz\n-----END PRIVATE KEY-----\n';
  const TRICKY = 'b"o\\b\tpass\u00fc\u4e2d <&> +%/= end';

  test('never gets a secret (quotes, backslashes, newlines, unicode, PEM) onto the screen or into state, in any encoding', async () => {
    writeFileSync(join(small, 'user-password.txt'), `${TRICKY}\n`);
    // Mounts are accepted; user writes fail with 400 and the body quoted every way a server might.
    const echoing = await raw((request) => {
      if (request.method === 'GET' || request.method === 'LIST') return { status: 404, body: { errors: [] } };
      if (!request.path.includes('/users/')) return { status: 204 };
      const body = request.body;
      return {
        status: 400,
        body: {
          errors: [
            `1 error occurred:\n\t* invalid body ${body}\n\n`,
            `base64 ${b64(body)} url ${encodeURIComponent(body)} form ${new URLSearchParams({ b: body }).toString()} upper ${body.toUpperCase()}`,
            `trimmed ${body.replace(/\\n"/g, '"')} hex ${Buffer.from(body).toString('hex')}`,
          ],
        },
      };
    });
    const result = await runCli(['apply', '--no-synth', '--auto-approve'], small, smallEnv({ SERVICE_ADDR: echoing.url, SF_E2E_ALICE_PASSWORD: PEM }));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('invalid body {"password":"[redacted]"');
    expect(echoing.requests.some((r) => r.body.includes(JSON.stringify(PEM).slice(1, -1)))).toBe(true);
    const state = existsSync(statePath(small)) ? readFileSync(statePath(small), 'utf8') : '';
    for (const secret of [PEM, TRICKY]) {
      for (const text of [result.stdout, result.stderr, state]) expect(leaks(text, secret)).toEqual([]);
    }
    expect(recorded(small).sort()).toEqual(['e2e/kv', 'e2e/userpass']);
  });
});

describe('an echoing server, in the encodings the list of forms missed (issue 19)', () => {
  test('no secret with a quote, backslash, slash, plus, ampersand, non-ASCII, newline, nor a PEM key, leaves in an error', async () => {
    const pem = ATTACK_SECRETS['PEM key'];
    const mixed = `${ATTACK_SECRETS.punctuation} ${ATTACK_SECRETS['non-ASCII']}\nsecond line`;
    writeFileSync(join(small, 'user-password.txt'), `${mixed}\n`);
    const echoing = await raw((request) => {
      // The token's lookup answers as the service's does (state records the mounts the test above created).
      if (request.path === '/v1/auth/token/lookup-self') return { status: 200, body: envelopeOf({ accessor: 'a1', policies: ['root'] }) };
      if (request.method === 'GET' || request.method === 'LIST') return { status: 404, body: { errors: [] } };
      if (!request.path.includes('/users/')) return { status: 204 };
      // bob's write gets a 2xx whose body is not JSON: the body it was sent, as is.
      if (request.path.endsWith('/bob')) return { status: 200, headers: { 'content-type': 'text/plain' }, body: `received ${request.body}` };
      const password = (JSON.parse(request.body) as { password: string }).password;
      return {
        status: 400,
        body: {
          errors: [
            ...Object.entries(attackForms(password)).map(([name, form]) => `invalid password (${name}): ${form}`),
            ...Object.entries(attackForms(request.body)).map(([name, form]) => `invalid body (${name}): ${form}`),
            { field: 'password', received: JSON.parse(request.body) as unknown },
          ],
        },
      };
    });
    // Each echoing server is another address for the same stack: --migrate-state (the state records the last one).
    const result = await runCli(['apply', '--no-synth', '--auto-approve', '--migrate-state'], small, smallEnv({ SERVICE_ADDR: echoing.url, SF_E2E_ALICE_PASSWORD: pem }));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('POST /v1/auth/userpass/users/alice failed with HTTP 400');
    expect(result.stderr).toContain('[withheld: the server quoted a secret, encoded]');
    expect(result.stderr).toMatch(/POST \/v1\/auth\/userpass\/users\/bob returned HTTP 200 with a body that is not JSON \(\d+ characters, not shown/);
    const state = existsSync(statePath(small)) ? readFileSync(statePath(small), 'utf8') : '';
    for (const secret of [pem, mixed]) {
      for (const text of [result.stdout, result.stderr, state]) {
        expect(attackLeaks(text, secret)).toEqual([]);
        expect(leaks(text, secret)).toEqual([]);
      }
    }
  });
});

describe('the service\'s warnings', () => {
  test('are shown once per resource on stderr, secrets removed, and refresh warnings in the plan', async () => {
    const token = 'cli-failures-root';
    // A proxy in front of the dev server that adds warnings, as a server does for unknown body fields.
    let warnOnReads = false;
    const proxy = await raw(async (request) => {
      const response = await fetch(`${dev.url}${request.path}`, {
        method: request.method,
        headers: { 'x-service-token': request.headers['x-service-token'] ?? '', 'content-type': request.headers['content-type'] ?? 'application/json' },
        body: request.body === '' ? undefined : request.body,
      });
      const text = await response.text();
      const read = request.method === 'GET' || request.method === 'LIST';
      if (response.status >= 300 || (read && !warnOnReads)) return { status: response.status, headers: { 'content-type': 'application/json' }, body: text };
      const parsed = text === '' ? envelopeOf(null) : (JSON.parse(text) as Record<string, unknown>);
      const warnings = read ? ['this mount is deprecated'] : ['Endpoint ignored these unrecognized parameters: [extra]', `seen token ${token}`];
      return { status: 200, body: Array.isArray(parsed) ? parsed : { ...envelopeOf(null), ...parsed, warnings } };
    });
    writeFileSync(join(small, 'user-password.txt'), 'bob-warnings-password\n');
    const env = smallEnv({ SERVICE_ADDR: proxy.url });
    const applied = await runCli(['apply', '--no-synth', '--auto-approve', '--migrate-state'], small, env);
    expect(applied.code).toBe(0);
    for (const address of ['e2e/alice', 'e2e/bob', 'e2e/userpass', 'e2e/kv']) {
      expect(count(applied.stderr, `Warning: ${address}: the service warned: Endpoint ignored these unrecognized parameters: [extra]\n`)).toBe(1);
      expect(count(applied.stderr, `Warning: ${address}: the service warned: seen token [redacted]\n`)).toBe(1);
    }
    expect(applied.stderr).not.toContain(token);

    warnOnReads = true;
    const planned = await runCli(['plan', '--no-synth'], small, env);
    expect(planned.code).toBe(0);
    expect(count(planned.stdout, 'e2e/alice: the service warned: this mount is deprecated')).toBe(1);
  });
});
