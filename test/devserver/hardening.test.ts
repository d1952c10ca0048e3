// The dev server under attack (issue 9): the token is checked before a body is read, bodies are bounded,
// the request log keeps no bodies, request heads have a deadline, no JSON key reaches a prototype, and
// templates are bounded. Each test here failed on the server before these limits existed.
import net from 'node:net';
import v8 from 'node:v8';
import vm from 'node:vm';
import { DEFAULT_HEADERS_TIMEOUT_MS, DEFAULT_MAX_REQUEST_BYTES } from '../../src/devserver/http/server';
import type { DevServer } from '../../src/devserver/server';
import { renderTemplate, TEMPLATE_LIMITS, TemplateLimitError } from '../../src/devserver/template';
import { ENDPOINTS } from './endpoints';
import { call, enableAuth, mount, startTestServer, TEST_ROOT_TOKEN } from './http';
import { exchange } from './raw-http';

const head = (method: string, path: string, headers: Record<string, string | number>) =>
  `${method} /v1/${path} HTTP/1.1\r\nHost: x\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`;

describe('the token is checked before the body is read', () => {
  let server: DevServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  test('a POST without a token announcing 10 MB is answered 403 after 1 KB, and the connection is closed', async () => {
    const result = await exchange(
      server.port,
      [head('POST', 'secret/data/x', { 'Content-Length': 10_000_000, 'Content-Type': 'application/json' }), 'x'.repeat(1024)],
      { waitMs: 1500 },
    );
    expect(result.responses.map((r) => [r.status, r.body])).toEqual([[403, { errors: ['permission denied'] }]]);
    expect(result.responses[0].headers.connection).toBe('close');
    expect(result.closedByServer).toBe(true);
  });

  test('a wrong token with Expect: 100-continue gets 403 and never 100 Continue', async () => {
    const result = await exchange(
      server.port,
      [head('PUT', 'secret/data/x', { 'Content-Length': 50_000_000, 'X-Service-Token': 'wrong', Expect: '100-continue' })],
      { waitMs: 1500 },
    );
    expect(result.responses.map((r) => r.status)).toEqual([403]);
    expect(result.responses[0].body).toEqual({ errors: ['permission denied', 'invalid token'] });
  });

  test('a chunked upload without a token is refused after its first chunk', async () => {
    const result = await exchange(server.port, [head('POST', 'secret/data/x', { 'Transfer-Encoding': 'chunked' }), '400\r\n' + 'y'.repeat(1024) + '\r\n'], {
      waitMs: 1500,
    });
    expect(result.responses.map((r) => r.status)).toEqual([403]);
    expect(result.closedByServer).toBe(true);
  });

  test('a refused request without a body keeps the connection: a pipelined good request is answered too', async () => {
    const result = await exchange(
      server.port,
      [head('GET', 'sys/mounts', { 'X-Service-Token': 'wrong' }) + head('GET', 'sys/mounts', { 'X-Service-Token': TEST_ROOT_TOKEN })],
      { expectResponses: 2 },
    );
    expect(result.responses.map((r) => r.status)).toEqual([403, 200]);
  });

  test('20 unauthenticated 10 MB POSTs do not grow memory: no body is buffered, parsed or logged', async () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const body = Buffer.from(JSON.stringify({ data: { blob: 'z'.repeat(10 * 1024 * 1024) } }));
    const before = server.requestCount;
    gc();
    const baseline = process.memoryUsage();
    for (let round = 0; round < 4; round += 1) {
      const results = await Promise.all(
        Array.from({ length: 5 }, () =>
          exchange(server.port, [head('POST', 'secret/data/big', { 'Content-Length': body.length, 'X-Service-Token': 'wrong' }), body], { waitMs: 5000 }),
        ),
      );
      expect(results.map((r) => r.responses.map((x) => x.status))).toEqual(Array(5).fill([403]));
    }
    gc();
    const after = process.memoryUsage();
    const grown = after.heapUsed + after.arrayBuffers - (baseline.heapUsed + baseline.arrayBuffers);
    // Keeping the bodies would hold 200 MB (they were parsed and kept in the request log before).
    expect(grown).toBeLessThan(30 * 1024 * 1024);
    const entries = server.requestLog.slice(-(server.requestCount - before));
    expect(entries).toHaveLength(20);
    expect(entries.every((entry) => entry.status === 403 && entry.fields.length === 0)).toBe(true);
  });
});

describe('request bodies have a size limit', () => {
  test('the default limit is 4 MiB: a 5 MiB authenticated body is refused with 413 before it is sent', async () => {
    expect(DEFAULT_MAX_REQUEST_BYTES).toBe(4 * 1024 * 1024);
    const server = await startTestServer();
    try {
      const result = await exchange(
        server.port,
        [head('POST', 'secret/data/x', { 'Content-Length': 5 * 1024 * 1024, 'X-Service-Token': TEST_ROOT_TOKEN })],
        { waitMs: 1500 },
      );
      expect(result.responses.map((r) => [r.status, r.body])).toEqual([[413, { errors: ['http: request body too large'] }]]);
      expect(result.closedByServer).toBe(true);
      const fits = await call(server, 'POST', 'secret/data/x', { data: { blob: 'q'.repeat(3 * 1024 * 1024) } });
      expect(fits.status).toBe(200);
      expect(server.requestLog.at(-1)).toMatchObject({ method: 'POST', path: 'secret/data/x', status: 200 });
    } finally {
      await server.close();
    }
  });
});

describe('the request log keeps no bodies', () => {
  test('no value sent in a body appears in the log; only the top-level field names do', async () => {
    const server = await startTestServer();
    try {
      await mount(server, 'ldap', 'ldap');
      await enableAuth(server, 'userpass', 'userpass');
      const kvValue = 'kv-value-8f2e1c';
      const password = 'user-password-77a1';
      expect((await call(server, 'POST', 'secret/data/app', { data: { token: kvValue } })).status).toBe(200);
      expect((await call(server, 'POST', 'auth/userpass/users/ann', { password })).status).toBe(204);
      expect((await call(server, 'POST', 'auth/userpass/login/ann', { password }, { token: null })).status).toBe(200);
      const bindpass = 'admin-password';
      const config = { binddn: 'cn=admin,dc=example,dc=org', bindpass, userdn: 'ou=users,dc=example,dc=org' };
      expect((await call(server, 'POST', 'ldap/config', config)).status).toBe(204);
      const text = JSON.stringify(server.requestLog);
      for (const value of [kvValue, password, bindpass]) expect(text).not.toContain(value);
      expect(server.requestLog.find((e) => e.path === 'secret/data/app')?.fields).toEqual(['data']);
      expect(server.requestLog.find((e) => e.path === 'ldap/config')?.fields).toEqual(['binddn', 'bindpass', 'userdn']);
      expect(Object.keys(server.requestLog[0]).sort()).toEqual(['fields', 'method', 'path', 'query', 'status']);
    } finally {
      await server.close();
    }
  });
});

describe('request heads must arrive in time', () => {
  test('the default deadline is 10 s and the option is validated', async () => {
    expect(DEFAULT_HEADERS_TIMEOUT_MS).toBe(10_000);
    await expect(startTestServer({ headersTimeoutMs: 0 })).rejects.toThrow('headersTimeoutMs must be an integer > 0, got 0');
  });

  test('a head trickled one byte at a time is cut off with 408 at the deadline (slowloris)', async () => {
    const server = await startTestServer({ headersTimeoutMs: 300 });
    try {
      const started = Date.now();
      const bytes = `GET /v1/sys/mounts HTTP/1.1\r\nX-Service-Token: ${TEST_ROOT_TOKEN}\r\nX-Padding: ${'p'.repeat(200)}\r\n\r\n`;
      const parts: string[] = [];
      // 60 ms apart: the whole head would take far longer than the deadline.
      const trickle = exchangeTrickle(server.port, bytes, 60, parts);
      const result = await trickle;
      const elapsed = Date.now() - started;
      expect(result.status).toBe(408);
      expect(result.closed).toBe(true);
      expect(elapsed).toBeLessThan(1500);
      expect(parts.length).toBeLessThan(bytes.length);
    } finally {
      await server.close();
    }
  });

  test('a connection that sends nothing is closed with 408 at the deadline', async () => {
    const server = await startTestServer({ headersTimeoutMs: 300 });
    try {
      const result = await exchange(server.port, [], { waitMs: 1500 });
      expect(result.closedByServer).toBe(true);
      expect(result.responses.map((r) => r.status)).toEqual([408]);
    } finally {
      await server.close();
    }
  });

  test('an idle kept-alive connection is not cut by the deadline: the next request is served', async () => {
    const server = await startTestServer({ headersTimeoutMs: 300 });
    try {
      const first = head('GET', 'sys/mounts', { 'X-Service-Token': TEST_ROOT_TOKEN });
      const result = await exchangeTwice(server.port, first, 600);
      expect(result).toEqual([200, 200]);
    } finally {
      await server.close();
    }
  });
});

describe('no JSON key reaches a prototype', () => {
  let server: DevServer;
  beforeAll(async () => {
    server = await startTestServer();
    await mount(server, 'cloud', 'cloud');
    await mount(server, 'ldap', 'ldap');
    await enableAuth(server, 'userpass', 'userpass');
  });
  afterAll(() => server.close());
  afterEach(() => {
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  const payloads = (key: string) => [`{"${key}": {"polluted": "yes"}}`, `{"data": {"${key}": {"polluted": "yes"}}}`, `{"a": [{"b": {"${key}": {"polluted": 1}}}]}`];

  test.each(['__proto__', 'constructor', 'prototype'])('KV PATCH and POST with a "%s" key anywhere: 400, nothing stored', async (key) => {
    expect((await call(server, 'POST', 'secret/data/p', { data: { a: 1 } })).status).toBe(200);
    for (const raw of payloads(key)) {
      for (const method of ['PATCH', 'POST']) {
        const result = await call(server, method, 'secret/data/p', undefined, { rawBody: raw, headers: { 'Content-Type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' } });
        expect(result.status).toBe(400);
        expect(result.body.errors[0]).toContain(`the key "${key}" is not accepted`);
      }
    }
    expect((await call(server, 'GET', 'secret/data/p')).body.data.data).toEqual({ a: 1 });
  });

  test('every POST and PATCH endpoint refuses a __proto__ body, and the server keeps serving correctly', async () => {
    for (const [method, path] of ENDPOINTS.filter(([m]) => m === 'POST' || m === 'PATCH')) {
      const result = await call(server, method, path, undefined, {
        rawBody: '{"__proto__": {"polluted": "yes", "disabled": true}}',
        headers: { 'Content-Type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' },
      });
      expect([method, path, result.status]).toEqual([method, path, 400]);
    }
    expect((await call(server, 'GET', 'sys/sync/config')).body.data).toEqual({ disabled: false, queue_capacity: 1000000 });
    expect((await call(server, 'PATCH', 'sys/sync/config', { disabled: false })).status).toBe(200);
    expect((await call(server, 'POST', 'secret/data/after', { data: { ok: true } })).status).toBe(200);
    expect((await call(server, 'GET', 'secret/data/after')).body.data.data).toEqual({ ok: true });
    expect((await call(server, 'LIST', 'secret/metadata')).status).toBe(200);
  });

  test('headers named __proto__ or constructor are ordinary headers', async () => {
    const result = await exchange(
      server.port,
      [head('GET', 'sys/mounts', { ['__proto__']: 'x', constructor: 'y', 'X-Service-Token': TEST_ROOT_TOKEN })],
      { expectResponses: 1 },
    );
    expect(result.responses.map((r) => r.status)).toEqual([200]);
  });
});

describe('templates are bounded', () => {
  const render = (source: string) => () => renderTemplate(source, { Name: 'n' }, { ldif: true });

  test.each([
    ['random N over the limit', '{{random 100000000}}', /random 100000000: the length may be at most 4096/],
    ['range over a huge integer', '{{range 100000000}}x{{end}}', /range over 100000000 items/],
    ['output size', '{{printf "%999999d" 1}}', /output larger than 262144 characters/],
    ['replace that multiplies the text', `{{"${'a'.repeat(1000)}" | replace "" "${'b'.repeat(1000)}"}}`, /output larger than/],
    ['steps', '{{range 90000}}{{$.Name}}{{$.Name}}{{end}}', /more than 100000 steps/],
    ['time', '{{range 60000}}{{if printf "%200000d" 1 | sha256}}{{end}}{{end}}', /more than 500 ms/],
    ['nesting', `${'{{if 1}}'.repeat(150)}${'{{end}}'.repeat(150)}`, /nested deeper than 100 levels/],
    ['source length', 'x'.repeat(70_000), /longer than 65536 characters/],
  ])('%s: TemplateLimitError, quickly', (_name, source, message) => {
    const started = Date.now();
    expect(render(source)).toThrow(TemplateLimitError);
    expect(render(source)).toThrow(message);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  test('printf widths over 1e6 are Go\'s BADWIDTH, and invalid code points print U+FFFD', () => {
    expect(renderTemplate('{{printf "%2000000d" 1}}', {})).toBe('%!(BADWIDTH)1');
    expect(renderTemplate('{{printf "%c" -1}}', {})).toBe('\ufffd');
    expect(renderTemplate('{{printf "%.150f" 1.5}}', {})).toBe(`1.5${'0'.repeat(149)}`);
  });

  test('limits are generous for real templates', () => {
    expect(TEMPLATE_LIMITS.maxRandomLength).toBe(4096);
    expect(renderTemplate('{{random 4096}}', {})).toHaveLength(4096);
    expect(renderTemplate('{{range 1000}}{{.}},{{end}}', {}).split(',')).toHaveLength(1001);
  });

  describe('over HTTP: 400 in the service\'s error style, and the server stays responsive', () => {
    let server: DevServer;
    beforeAll(async () => {
      server = await startTestServer();
      await mount(server, 'ldap', 'ldap');
      const config = { binddn: 'cn=admin,dc=example,dc=org', bindpass: 'admin-password', userdn: 'ou=users,dc=example,dc=org' };
      expect((await call(server, 'POST', 'ldap/config', config)).status).toBe(204);
    });
    afterAll(() => server.close());

    const ldif = (extra: string) =>
      `dn: cn={{.Username}},ou=users,dc=example,dc=org\nchangetype: add\nobjectClass: person\ncn: {{.Username}}\nsn: ${extra}\n`;
    const deletion = 'dn: cn={{.Username}},ou=users,dc=example,dc=org\nchangetype: delete\n';

    test('a creation LDIF with {{random 100000000}} is refused at write with 400', async () => {
      const started = Date.now();
      const result = await call(server, 'POST', 'ldap/role/big', { creation_ldif: ldif('{{random 100000000}}'), deletion_ldif: deletion });
      expect(result.status).toBe(400);
      expect(result.body.errors).toEqual([expect.stringMatching(/^invalid creation_ldif template: template: random 100000000: the length may be at most 4096$/)]);
      expect(Date.now() - started).toBeLessThan(2000);
    });

    test('a username template over the limits fails creds with 400, nothing is created', async () => {
      const write = await call(server, 'POST', 'ldap/role/user', { creation_ldif: ldif('x'), deletion_ldif: deletion, username_template: '{{range 100000000}}u{{end}}' });
      expect(write.status).toBe(204);
      const before = server.directory.all().length;
      const creds = await call(server, 'GET', 'ldap/creds/user');
      expect(creds.status).toBe(400);
      expect(creds.body.errors[0]).toMatch(/^failed to render username_template: template: range over 100000000 items/);
      expect(server.directory.all().length).toBe(before);
      expect((await call(server, 'GET', 'sys/mounts')).status).toBe(200);
    });

    test('a secret_name_template over the limits is refused with 400', async () => {
      const result = await call(server, 'POST', 'sys/sync/destinations/cloud1-sm/d', { secret_name_template: '{{random 100000000}}' });
      expect(result.status).toBe(400);
      expect(result.body.errors[0]).toMatch(/invalid "secret_name_template": template: random 100000000/);
    });
  });
});

/** Sends `bytes` one byte every `intervalMs`; resolves with the response status when the server closes. */
function exchangeTrickle(port: number, bytes: string, intervalMs: number, sent: string[]): Promise<{ status: number; closed: boolean }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    let index = 0;
    const timer = setInterval(() => {
      if (index >= bytes.length || socket.destroyed) return;
      sent.push(bytes[index]);
      socket.write(bytes[index++]);
    }, intervalMs);
    const giveUp = setTimeout(() => socket.destroy(), 3000);
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      clearTimeout(giveUp);
      resolve({ status: Number(received.split(' ')[1]), closed: index < bytes.length });
    });
  });
}

/** Sends `request`, waits `pauseMs` after the answer, sends it again on the same connection. */
function exchangeTwice(port: number, request: string, pauseMs: number): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const statuses: number[] = [];
    socket.on('data', (chunk) => {
      statuses.push(Number(chunk.toString('latin1').split(' ')[1]));
      if (statuses.length === 1) setTimeout(() => socket.write(request), pauseMs);
      else {
        socket.destroy();
        resolve(statuses);
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(statuses));
    socket.write(request);
  });
}

// Issue 19 item 11: each of these failed on the server before: 30,000 segments cost 5.5 s of CPU before the
// 403, a login body could trickle forever, 60 login bodies of 4 MiB held 307 MB, and 600 `%999999d` verbs
// answered 500 ("Invalid string length").
describe('unauthenticated requests cost little: linear paths, body deadlines, a memory budget', () => {
  const loginHead = (length: number | 'chunked') =>
    `POST /v1/auth/userpass/login/alice HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${length === 'chunked' ? 'Transfer-Encoding: chunked' : `Content-Length: ${length}`}\r\n\r\n`;

  test('a POST under auth/ with 30,000 path segments and no token is refused quickly, and so is a LIST with the root token', async () => {
    const server = await startTestServer();
    try {
      await enableAuth(server, 'userpass', 'userpass');
      const path = `auth/${'a/'.repeat(30_000)}x`;
      const started = performance.now();
      const unauthenticated = await exchange(server.port, [head('POST', path, { 'Content-Length': 2 }), '{}'], { expectResponses: 1 });
      const refusedMs = performance.now() - started;
      expect(unauthenticated.responses.map((r) => r.status)).toEqual([403]);
      const rooted = await exchange(server.port, [head('GET', `${path}?list=true`, { 'X-Service-Token': TEST_ROOT_TOKEN })], { expectResponses: 1 });
      expect(rooted.responses.map((r) => r.status)).toEqual([404]);
      // Linear work is a few ms; the quadratic prefix search took seconds. Generous for a loaded machine.
      expect(refusedMs).toBeLessThan(1000);
      expect(performance.now() - started).toBeLessThan(2000);
      // Longest-prefix matching still works for nested mounts.
      await enableAuth(server, 'team/userpass', 'userpass');
      expect((await call(server, 'POST', 'auth/team/userpass/users/bob', { password: 'bob-password-1' })).status).toBe(204);
      expect((await call(server, 'GET', 'auth/team/userpass/users/bob')).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  test('a login body trickled one byte at a time is cut off with 408 at the body deadline (slowloris), an authenticated one too', async () => {
    const server = await startTestServer({ bodyTimeoutMs: 400 });
    try {
      await enableAuth(server, 'userpass', 'userpass');
      const body = JSON.stringify({ password: 'p'.repeat(100) });
      for (const request of [
        loginHead(body.length) + body,
        `${head('POST', 'secret/data/x', { 'Content-Length': body.length, 'X-Service-Token': TEST_ROOT_TOKEN, 'Content-Type': 'application/json' })}${body}`,
      ]) {
        const headLength = request.indexOf('\r\n\r\n') + 4;
        const socket = net.connect(server.port, '127.0.0.1');
        const started = Date.now();
        const answer = new Promise<{ status: number; ms: number }>((resolve) => {
          let received = '';
          socket.on('data', (chunk) => (received += chunk.toString('latin1')));
          socket.on('error', () => undefined);
          socket.on('close', () => resolve({ status: Number(received.split(' ')[1]), ms: Date.now() - started }));
        });
        socket.write(request.slice(0, headLength));
        let index = headLength;
        const timer = setInterval(() => (index < request.length && !socket.destroyed ? socket.write(request[index++]) : undefined), 50);
        const giveUp = setTimeout(() => socket.destroy(), 5000);
        const result = await answer;
        clearInterval(timer);
        clearTimeout(giveUp);
        expect(result.status).toBe(408);
        expect(result.ms).toBeLessThan(3000);
        expect(index).toBeLessThan(request.length);
      }
      expect((await call(server, 'GET', 'sys/mounts')).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  test('login bodies have a small limit, and those being read share a budget: 60 connections cannot hold 4 MiB each', async () => {
    const server = await startTestServer({ unauthenticatedBodyBudgetBytes: 100 * 1024 });
    try {
      await enableAuth(server, 'userpass', 'userpass');
      // 4 MiB announced, 1 MiB sent: refused before the body is read (the limit for logins is 64 KiB).
      const big = await Promise.all(
        Array.from({ length: 60 }, () => exchange(server.port, [loginHead(4 * 1024 * 1024), Buffer.alloc(1024 * 1024, 0x61)], { expectResponses: 1, waitMs: 5000 })),
      );
      expect(big.map((r) => r.responses[0]?.status)).toEqual(Array(60).fill(413));

      // Two logins of 60 KiB each, half sent and held open, reserve 120 KiB of the 100 KiB budget: the second waits for none of it.
      const held = [net.connect(server.port, '127.0.0.1'), net.connect(server.port, '127.0.0.1')];
      const answers = held.map(
        (socket) =>
          new Promise<number>((resolve) => {
            let received = '';
            socket.on('data', (chunk) => {
              received += chunk.toString('latin1');
              if (received.includes('\r\n\r\n')) resolve(Number(received.split(' ')[1]));
            });
            socket.on('error', () => undefined);
            socket.on('close', () => resolve(Number(received.split(' ')[1]) || 0));
          }),
      );
      held[0].write(loginHead(60 * 1024) + 'x'.repeat(30 * 1024));
      await new Promise((resolve) => setTimeout(resolve, 200));
      held[1].write(loginHead(60 * 1024) + 'x'.repeat(30 * 1024));
      expect(await answers[1]).toBe(503);
      held.forEach((socket) => socket.destroy());
      await answers[0];
      // Once the held one is gone its reservation is returned: a normal login is served.
      expect((await call(server, 'POST', 'auth/userpass/login/nobody', { password: 'x' }, null)).status).toBe(400);
    } finally {
      await server.close();
    }
  });

  test('600 %999999d verbs in a template are the documented 400 output limit, not a 500', async () => {
    const source = `{{printf "${'%999999d'.repeat(600)}" ${'1 '.repeat(600)}}}`;
    expect(() => renderTemplate(source, {})).toThrow(TemplateLimitError);
    const server = await startTestServer();
    try {
      const started = Date.now();
      const result = await call(server, 'POST', 'sys/sync/destinations/cloud1-sm/d', { secret_name_template: source });
      expect(result.status).toBe(400);
      expect(result.body.errors[0]).toMatch(/output larger than 262144 characters/);
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      await server.close();
    }
  });
});
