import net from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DevServer } from '../../src/devserver/server';
import { DEFAULT_SEED, loadSeedFile, parseSeed } from '../../src/devserver/seed';
import { createCloudArea } from '../../src/devserver/cloud';
import { FaultInjector } from '../../src/devserver/faults';
import { HttpServer } from '../../src/devserver/http/server';
import { createLdapArea } from '../../src/devserver/ldap';
import { MountRegistry } from '../../src/devserver/mounts';
import { Router } from '../../src/devserver/router';
import { InMemoryTokenStore } from '../../src/devserver/tokens';
import type { ServerContext } from '../../src/devserver/types';
import { createUserpassArea } from '../../src/devserver/userpass';
import { call, sendRaw, startTestServer, TEST_ROOT_TOKEN } from './http';
import { tempDir } from '../support/temp-dir';

/** Opens a connection, writes `requests`, and collects complete responses until `count` have arrived. */
function exchange(server: DevServer, writes: (string | Buffer)[], count: number): Promise<{ responses: string[]; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(server.port, '127.0.0.1');
    let received = '';
    let closed = false;
    const responses = (): string[] => {
      const found: string[] = [];
      let rest = received;
      for (;;) {
        const headEnd = rest.indexOf('\r\n\r\n');
        if (headEnd < 0) break;
        const head = rest.slice(0, headEnd);
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? '0');
        if (rest.length < headEnd + 4 + length) break;
        found.push(rest.slice(0, headEnd + 4 + length));
        rest = rest.slice(headEnd + 4 + length);
      }
      return found;
    };
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`timed out; received so far: ${received}`));
    }, 5000);
    socket.on('data', (chunk) => {
      received += chunk.toString('utf8');
      if (responses().length >= count) {
        clearTimeout(timer);
        // Give the server a moment to close (or not) before reporting.
        setTimeout(() => {
          resolve({ responses: responses(), closed });
          socket.destroy();
        }, 100);
      }
    });
    socket.on('close', () => {
      closed = true;
    });
    socket.on('error', reject);
    for (const w of writes) socket.write(w);
  });
}

function statusOf(response: string): number {
  return Number(response.split(' ')[1]);
}

function bodyOf(response: string): any {
  const text = response.slice(response.indexOf('\r\n\r\n') + 4);
  return text === '' ? undefined : JSON.parse(text);
}

describe('dev server core: HTTP and routing', () => {
  let server: DevServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  test('answers the LIST method and GET ?list=true alike', async () => {
    await call(server, 'POST', 'secret/data/app/one', { data: { a: '1' } });
    await call(server, 'POST', 'secret/data/app/two/nested', { data: { a: '2' } });
    const listed = await call(server, 'LIST', 'secret/metadata/app');
    expect(listed.status).toBe(200);
    expect(listed.body.data.keys).toEqual(['one', 'two/']);
    const viaQuery = await call(server, 'GET', 'secret/metadata/app?list=true');
    expect(viaQuery.status).toBe(200);
    expect(viaQuery.body.data.keys).toEqual(['one', 'two/']);
    expect(server.requestLog.at(-1)).toMatchObject({ method: 'LIST', path: 'secret/metadata/app', status: 200 });
  });

  test('answers 404 with no errors for paths outside /v1/', async () => {
    const result = await call(server, 'GET', '/v2/secret/data/x');
    expect(result).toMatchObject({ status: 404, body: { errors: [] } });
  });

  test('answers 404 "no handler for route" when no mount matches', async () => {
    const result = await call(server, 'GET', 'nothing-here/data/x');
    expect(result.status).toBe(404);
    expect(result.body).toEqual({ errors: ['no handler for route "nothing-here/data/x"'] });
  });

  test('answers 404 "unsupported path" for an unknown path inside a mount', async () => {
    const result = await call(server, 'GET', 'secret/unknown-section/x');
    expect(result).toMatchObject({ status: 404, body: { errors: ['unsupported path'] } });
  });

  test('answers 405 "unsupported operation" for a wrong method', async () => {
    const onMount = await call(server, 'LIST', 'secret/data/app/one');
    expect(onMount).toMatchObject({ status: 405, body: { errors: ['unsupported operation'] } });
    const onSys = await call(server, 'DELETE', 'sys/mounts');
    expect(onSys).toMatchObject({ status: 405, body: { errors: ['unsupported operation'] } });
  });

  test('refuses PATCH without the merge-patch content type with 415', async () => {
    const result = await call(server, 'PATCH', 'secret/data/app/one', { data: { b: 1 } }, { headers: { 'Content-Type': 'application/json' } });
    expect(result.status).toBe(415);
    expect(result.body).toEqual({ errors: ['PATCH requires Content-Type application/merge-patch+json'] });
    const read = await call(server, 'GET', 'secret/data/app/one');
    expect(read.body.data.data).toEqual({ a: '1' });
  });

  test('accepts PATCH with application/merge-patch+json', async () => {
    const result = await call(server, 'PATCH', 'secret/data/app/one', { data: { b: 'x' } });
    expect(result.status).toBe(200);
    const read = await call(server, 'GET', 'secret/data/app/one');
    expect(read.body.data.data).toEqual({ a: '1', b: 'x' });
  });

  test('answers malformed JSON with 400 "failed to parse JSON input"', async () => {
    const result = await call(server, 'POST', 'secret/data/bad', undefined, {
      rawBody: '{"data": {',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(result.status).toBe(400);
    expect(result.body.errors).toHaveLength(1);
    expect(result.body.errors[0]).toMatch(/^failed to parse JSON input: /);
  });

  test('answers a JSON body that is not an object with 400', async () => {
    const result = await call(server, 'POST', 'secret/data/bad', undefined, { rawBody: '[1,2]' });
    expect(result.status).toBe(400);
    expect(result.body.errors[0]).toMatch(/^failed to parse JSON input: .*object/);
  });

  test('answers 204 without body and without Content-Type', async () => {
    const raw = await sendRaw(
      server,
      `DELETE /v1/secret/data/app/one HTTP/1.1\r\nHost: x\r\nX-Service-Token: ${TEST_ROOT_TOKEN}\r\nConnection: close\r\n\r\n`,
    );
    expect(raw.startsWith('HTTP/1.1 204 No Content\r\n')).toBe(true);
    expect(raw).not.toMatch(/content-type/i);
    expect(raw.endsWith('\r\n\r\n')).toBe(true);
  });

  test('serves two requests on one keep-alive connection, then honours Connection: close', async () => {
    const request = (extra: string) =>
      `GET /v1/secret/data/app/two/nested HTTP/1.1\r\nHost: x\r\nX-Service-Token: ${TEST_ROOT_TOKEN}\r\n${extra}\r\n`;
    const { responses, closed } = await exchange(server, [request(''), request('Connection: close\r\n')], 2);
    expect(responses.map(statusOf)).toEqual([200, 200]);
    expect(responses[0]).toMatch(/\r\nConnection: keep-alive\r\n/);
    expect(responses[1]).toMatch(/\r\nConnection: close\r\n/);
    expect(bodyOf(responses[1]).data.data).toEqual({ a: '2' });
    expect(closed).toBe(true);
  });

  test('keeps a connection open after a response when the client did not ask to close', async () => {
    const request = `GET /v1/secret/config HTTP/1.1\r\nHost: x\r\nX-Service-Token: ${TEST_ROOT_TOKEN}\r\n\r\n`;
    const { responses, closed } = await exchange(server, [request], 1);
    expect(statusOf(responses[0])).toBe(200);
    expect(closed).toBe(false);
  });

  test('reads a chunked request body', async () => {
    const json = JSON.stringify({ data: { chunked: 'yes', n: 42 } });
    const first = json.slice(0, 10);
    const second = json.slice(10);
    const head = `POST /v1/secret/data/chunked HTTP/1.1\r\nHost: x\r\nX-Service-Token: ${TEST_ROOT_TOKEN}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n`;
    const body = `${first.length.toString(16)}\r\n${first}\r\n${second.length.toString(16)};ext=1\r\n${second}\r\n0\r\n\r\n`;
    const { responses } = await exchange(server, [head, body], 1);
    expect(statusOf(responses[0])).toBe(200);
    expect(bodyOf(responses[0]).data.version).toBe(1);
    const read = await call(server, 'GET', 'secret/data/chunked');
    expect(read.body.data.data).toEqual({ chunked: 'yes', n: 42 });
  });

  test('sends 100 Continue before reading a body when asked to', async () => {
    const body = JSON.stringify({ data: { via: 'continue' } });
    const socket = net.connect(server.port, '127.0.0.1');
    const received: string[] = [];
    await new Promise<void>((resolve, reject) => {
      socket.on('error', reject);
      socket.on('data', (chunk) => {
        received.push(chunk.toString());
        const all = received.join('');
        if (all.startsWith('HTTP/1.1 100 Continue\r\n\r\n') && received.length === 1) socket.write(body);
        if (all.includes('\r\n\r\n{')) resolve();
      });
      socket.write(
        `POST /v1/secret/data/continued HTTP/1.1\r\nHost: x\r\nX-Service-Token: ${TEST_ROOT_TOKEN}\r\nExpect: 100-continue\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
      );
    });
    socket.destroy();
    expect(received.join('')).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 OK\r\n/);
    expect((await call(server, 'GET', 'secret/data/continued')).body.data.data).toEqual({ via: 'continue' });
  });

  test('answers a malformed request line with 400 and closes the connection', async () => {
    const raw = await sendRaw(server, 'NOT A VALID REQUEST LINE\r\n\r\n');
    expect(statusOf(raw)).toBe(400);
    expect(bodyOf(raw)).toEqual({ errors: ['malformed request line'] });
  });

  test('answers a malformed header line with 400', async () => {
    const raw = await sendRaw(server, 'GET /v1/sys/mounts HTTP/1.1\r\nthis is not a header\r\n\r\n');
    expect(statusOf(raw)).toBe(400);
    expect(bodyOf(raw)).toEqual({ errors: ['malformed header line'] });
  });

  test('survives a client that disconnects in the middle of a body', async () => {
    await new Promise<void>((resolve, reject) => {
      const socket = net.connect(server.port, '127.0.0.1', () => {
        socket.write(
          `POST /v1/secret/data/half HTTP/1.1\r\nHost: x\r\nX-Service-Token: ${TEST_ROOT_TOKEN}\r\nContent-Length: 1000\r\n\r\n{"data":`,
        );
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 50);
      });
      socket.on('error', reject);
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const after = await call(server, 'GET', 'secret/data/half');
    expect(after).toMatchObject({ status: 404, body: { errors: [] } });
  });

  test('turns an exception inside an area into a 500 "internal error"', async () => {
    const mounts = new MountRegistry(
      {
        kv: () => ({
          handle() {
            throw new TypeError('boom in the area');
          },
        }),
        cloud: createCloudArea,
        ldap: createLdapArea,
        userpass: createUserpassArea,
      },
      () => ({}) as ServerContext,
    );
    mounts.enable({ path: 'broken', type: 'kv', auth: false });
    const router = new Router({
      mounts,
      tokens: new InMemoryTokenStore('t', Date.now),
      sync: { handle: () => ({ status: 204 }) },
      faults: new FaultInjector(),
      now: Date.now,
      log: () => undefined,
    });
    const http = new HttpServer((head, readBody) => router.handle(head, readBody));
    const address = await http.listen(0, '127.0.0.1');
    try {
      const response = await fetch(`http://127.0.0.1:${address.port}/v1/broken/x`, { headers: { 'X-Service-Token': 't' } });
      expect(response.status).toBe(500);
      expect(await response.json()).toEqual({ errors: ['internal error: boom in the area'] });
    } finally {
      await http.close();
    }
  });

  test('the HTTP layer answers a throwing handler with 500 and keeps serving', async () => {
    let calls = 0;
    const http = new HttpServer(() => {
      calls += 1;
      if (calls === 1) return Promise.reject(new Error('handler exploded'));
      return Promise.resolve({ status: 200, body: { ok: true } });
    });
    const address = await http.listen(0, '127.0.0.1');
    try {
      const first = await fetch(`http://127.0.0.1:${address.port}/v1/x`);
      expect(first.status).toBe(500);
      expect(await first.json()).toEqual({ errors: ['internal error: handler exploded'] });
      const second = await fetch(`http://127.0.0.1:${address.port}/v1/x`);
      expect(second.status).toBe(200);
      expect(await second.json()).toEqual({ ok: true });
    } finally {
      await http.close();
    }
  });
});

describe('dev server core: request size limit', () => {
  test('answers a body larger than maxRequestBytes with 413 and leaves the data unchanged', async () => {
    const server = await startTestServer({ maxRequestBytes: 1024 });
    try {
      const big = JSON.stringify({ data: { blob: 'x'.repeat(5000) } });
      const result = await call(server, 'POST', 'secret/data/big', undefined, { rawBody: big });
      expect(result.status).toBe(413);
      expect(result.body).toEqual({ errors: ['http: request body too large'] });
      const small = await call(server, 'POST', 'secret/data/small', { data: { ok: true } });
      expect(small.status).toBe(200);
      expect((await call(server, 'GET', 'secret/data/big')).status).toBe(404);
    } finally {
      await server.close();
    }
  });

  test('answers an oversized chunked body with 413', async () => {
    const server = await startTestServer({ maxRequestBytes: 100 });
    try {
      const chunk = 'a'.repeat(80);
      const raw = await sendRaw(
        server,
        `POST /v1/secret/data/big HTTP/1.1\r\nHost: x\r\nX-Service-Token: ${TEST_ROOT_TOKEN}\r\nTransfer-Encoding: chunked\r\n\r\n` +
          `50\r\n${chunk}\r\n50\r\n${chunk}\r\n0\r\n\r\n`,
      );
      expect(statusOf(raw)).toBe(413);
      expect(bodyOf(raw)).toEqual({ errors: ['http: request body too large'] });
    } finally {
      await server.close();
    }
  });

  test('accepts bodies under the default limit: a 1 MiB secret is written and read back', async () => {
    const server = await startTestServer();
    try {
      const blob = 'y'.repeat(1024 * 1024);
      const write = await call(server, 'POST', 'secret/data/large', { data: { blob } });
      expect(write.status).toBe(200);
      const read = await call(server, 'GET', 'secret/data/large');
      expect(read.body.data.data.blob).toHaveLength(blob.length);
    } finally {
      await server.close();
    }
  });
});

describe('dev server core: close', () => {
  test('close() stops listening and closes idle keep-alive connections', async () => {
    const server = await startTestServer();
    const socket = net.connect(server.port, '127.0.0.1');
    await new Promise((resolve) => socket.on('connect', resolve));
    const socketClosed = new Promise((resolve) => socket.on('close', resolve));
    await server.close();
    await socketClosed;
    await expect(fetch(`${server.url}/v1/sys/mounts`)).rejects.toThrow();
  });
});

describe('dev server seed', () => {
  test('the default seed mounts KV v2 at secret and fills the directory', async () => {
    const server = await startTestServer();
    try {
      const mounts = await call(server, 'GET', 'sys/mounts');
      expect(Object.keys(mounts.body.data)).toEqual(['secret/']);
      expect(mounts.body.data['secret/']).toMatchObject({ type: 'kv', options: { version: '2' } });
      expect(server.directory.password('cn=admin,dc=example,dc=org')).toBe('admin-password');
      const alice = server.directory.get('cn=alice,ou=users,dc=example,dc=org');
      expect(alice?.attributes).toMatchObject({
        objectClass: ['inetOrgPerson'],
        cn: ['alice'],
        uid: ['alice'],
        userPrincipalName: ['alice@example.org'],
        racfid: ['ALICE'],
      });
      for (const name of ['bob', 'carol', 'dave']) expect(server.directory.has(`cn=${name},ou=users,dc=example,dc=org`)).toBe(true);
      for (let i = 1; i <= 6; i += 1) {
        expect(server.directory.has(`cn=svc-app-${i},ou=service-accounts,dc=example,dc=org`)).toBe(true);
      }
      expect(server.directory.has('ou=dynamic,dc=example,dc=org')).toBe(true);
    } finally {
      await server.close();
    }
  });

  test('a seed enables its mounts (auth too), writes KV secrets and adds directory entries', async () => {
    const server = await startTestServer({
      seed: {
        mounts: [
          { path: 'kv', type: 'kv', options: { version: '2' } },
          { path: 'team/ldap', type: 'ldap', description: 'team directory' },
          { path: 'userpass', type: 'userpass' },
        ],
        kv: [{ mount: 'kv', path: 'apps/db', data: { password: 'p1' } }],
        directory: [{ dn: 'dc=test', attributes: { dc: 'test', objectClass: ['top', 'domain'] } }],
        passwordPolicies: { short: { length: 8 } },
      },
    });
    try {
      const read = await call(server, 'GET', 'kv/data/apps/db');
      expect(read.status).toBe(200);
      expect(read.body.data.data).toEqual({ password: 'p1' });
      const mounts = await call(server, 'GET', 'sys/mounts');
      expect(Object.keys(mounts.body.data).sort()).toEqual(['kv/', 'team/ldap/']);
      expect(mounts.body.data['team/ldap/']).toMatchObject({ type: 'ldap', description: 'team directory' });
      const auths = await call(server, 'GET', 'sys/auth');
      expect(auths.body.data['userpass/']).toMatchObject({ type: 'userpass' });
      expect(server.directory.get('dc=test')?.attributes.dc).toEqual(['test']);
      expect(server.directory.has('dc=example,dc=org')).toBe(false);
    } finally {
      await server.close();
    }
  });

  test('an invalid seed is refused with an error naming the field', async () => {
    await expect(startTestServer({ seed: { mounts: [{ path: 'x', type: 'nosuch' as 'kv' }] } })).rejects.toThrow(
      /invalid seed: mounts\[0\] \(path "x"\): type: /,
    );
    expect(() => parseSeed({ passwordPolicies: { p: { length: 'ten' } } })).toThrow(/passwordPolicies\.p: length: /);
    expect(() => parseSeed({ mounts: [], extra: 1 })).toThrow(/invalid seed: .*extra/);
  });

  test('a seed that adds to the defaults keeps them, and its own mount or directory entry wins over the default one', async () => {
    const server = await startTestServer({
      seedAddsToDefaults: true,
      seedSource: 'seed file extra.json',
      seed: {
        mounts: [{ path: 'secret', type: 'kv', options: { version: '1' } }, { path: 'team', type: 'kv', options: { version: '2' } }],
        directory: [{ dn: 'cn=svc-app-1,ou=service-accounts,dc=example,dc=org', attributes: { cn: 'svc-app-1', userPassword: 'own' } }],
        passwordPolicies: { short: { length: 8 } },
      },
    });
    try {
      const mounts = (await call(server, 'GET', 'sys/mounts')).body.data as Record<string, { options?: Record<string, string> }>;
      expect(mounts['secret/'].options).toEqual({ version: '1' });
      expect(mounts['team/']).toBeDefined();
      expect(server.directory.get('cn=svc-app-1,ou=service-accounts,dc=example,dc=org')?.attributes.userPassword).toEqual(['own']);
      expect(server.directory.has('cn=alice,ou=users,dc=example,dc=org')).toBe(true);
    } finally {
      await server.close();
    }
    await expect(
      startTestServer({ seedAddsToDefaults: true, seedSource: 'seed file extra.json', seed: { directory: [{ dn: 'cn=x,ou=nowhere,dc=example,dc=org', attributes: { cn: 'x' } }] } }),
    ).rejects.toThrow(/invalid seed file extra\.json: directory: .*ou=nowhere/);
    const alone = await startTestServer({ seedAddsToDefaults: true, seed: { replaceDefaults: true } });
    try {
      expect(alone.directory.has('dc=example,dc=org')).toBe(false);
    } finally {
      await alone.close();
    }
  });

  test('a seed KV secret for a mount that is not KV v2 is refused naming the entry', async () => {
    await expect(startTestServer({ seed: { kv: [{ mount: 'nope', path: 'a', data: {} }] } })).rejects.toThrow(
      'invalid seed: kv[0] (nope/a): mount: "nope" is not a KV version 2 mount of the seed',
    );
  });

  test('loadSeedFile reads a JSON file and names the file in errors', () => {
    const dir = tempDir('seed-');
    const good = join(dir, 'good.json');
    writeFileSync(good, JSON.stringify({ mounts: [{ path: 'kv', type: 'kv', options: { version: '2' } }] }));
    expect(loadSeedFile(good)).toEqual({ mounts: [{ path: 'kv', type: 'kv', options: { version: '2' } }] });
    const notJson = join(dir, 'bad.json');
    writeFileSync(notJson, '{ nope');
    expect(() => loadSeedFile(notJson)).toThrow(`seed file ${notJson} is not valid JSON`);
    const wrongShape = join(dir, 'shape.json');
    writeFileSync(wrongShape, JSON.stringify({ kv: [{ mount: 'kv', path: 'a' }] }));
    expect(() => loadSeedFile(wrongShape)).toThrow(`invalid seed file ${wrongShape}: kv[0] (kv/a): data:`);
    expect(() => loadSeedFile(join(dir, 'missing.json'))).toThrow(/cannot read seed file/);
  });

  test('DEFAULT_SEED passes its own validation', () => {
    expect(() => parseSeed(DEFAULT_SEED)).not.toThrow();
  });
});
