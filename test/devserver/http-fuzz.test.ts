// A bounded HTTP fuzzer of the dev server (issue 9), with fixed seeds so every run sends the same cases:
// raw-socket framing, methods on every endpoint, path encodings, and wrong JSON types for every write
// endpoint of service-api.md. Properties: no 5xx outside the service's own error style (an `internal error`
// is a bug), no crash, a normal request is served after every case, memory stays bounded.
import v8 from 'node:v8';
import vm from 'node:vm';
import fc from 'fast-check';
import type { DevServer } from '../../src/devserver/server';
import { ENDPOINTS } from './endpoints';
import { call, enableAuth, mount, startTestServer, TEST_ROOT_TOKEN } from './http';
import { exchange, type RawResponse } from './raw-http';
import { WRITE_FIELDS, type FieldKind } from './write-fields';

const SEED = 20261124;
/** Cases run per property, printed at the end (the issue's closing note cites them). */
const counts: Record<string, number> = {};
const count = (property: string, by = 1) => (counts[property] = (counts[property] ?? 0) + by);

let server: DevServer;
let gc: () => void;
let baselineBytes = 0;

beforeAll(async () => {
  v8.setFlagsFromString('--expose-gc');
  gc = vm.runInNewContext('gc') as () => void;
  server = await startTestServer();
  await prepare(server);
  gc();
  baselineBytes = memoryBytes();
});

afterAll(async () => {
  await server.close();
  const lines = Object.entries(counts).map(([name, n]) => `  ${name}: ${n}`);
  process.stdout.write(`dev server HTTP fuzz (seed ${SEED}), cases per property:\n${lines.join('\n')}\n`);
});

const memoryBytes = () => {
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
};

/** Configures every area so writes reach their validation (an unconfigured engine refuses early). */
async function prepare(s: DevServer): Promise<void> {
  await mount(s, 'cloud', 'cloud');
  await mount(s, 'ldap', 'ldap');
  await enableAuth(s, 'userpass', 'userpass');
  const setup: [string, string, unknown][] = [
    ['POST', 'cloud/config', { subscription_id: 'sub', tenant_id: 'tenant', client_id: 'client', client_secret: 'secret' }],
    ['POST', 'cloud/roles/r1', { cloud_roles: JSON.stringify([{ role_name: 'Reader', scope: '/subscriptions/sub' }]) }],
    ['POST', 'auth/userpass/users/u1', { password: 'pw' }],
    ['POST', 'ldap/config', { binddn: 'cn=admin,dc=example,dc=org', bindpass: 'admin-password', userdn: 'ou=users,dc=example,dc=org' }],
    ['POST', 'ldap/static-role/r1', { username: 'alice', rotation_period: '1h' }],
    ['POST', 'ldap/library/s1', { service_account_names: ['bob', 'carol'] }],
    ['POST', 'secret/data/s1', { data: { k: 'v' } }],
    ['POST', 'sys/sync/destinations/cloud1-sm/d1', { region: 'us-east-1' }],
  ];
  for (const [method, path, body] of setup) {
    const result = await call(s, method, path, body);
    if (result.status >= 300) throw new Error(`setup ${method} ${path}: ${result.status} ${JSON.stringify(result.body)}`);
  }
}

/** The service's error style: `{"errors": [strings]}`; an `internal error` is an unhandled exception. */
function problemWith(status: number, body: unknown): string | undefined {
  if (status < 100 || status > 599) return `status ${status}`;
  if (status < 400) return undefined;
  const errors = (body as { errors?: unknown } | undefined)?.errors;
  if (!Array.isArray(errors) || errors.some((e) => typeof e !== 'string')) return `status ${status} without {"errors": [...]}: ${JSON.stringify(body)}`;
  if (errors.some((e: string) => e.startsWith('internal error'))) return `unhandled exception: ${status} ${JSON.stringify(body)}`;
  return undefined;
}

async function stillServing(): Promise<void> {
  const result = await call(server, 'GET', 'sys/mounts');
  if (result.status !== 200 || !result.body?.data?.['secret/']) throw new Error(`server stopped serving: ${result.status} ${JSON.stringify(result.body)}`);
}

function checkResponses(responses: RawResponse[], what: string): void {
  for (const response of responses) {
    const problem = problemWith(response.status, response.body);
    if (problem) throw new Error(`${what}: ${problem}`);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Raw framing

const methodArb = fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'LIST', 'HEAD', 'OPTIONS', 'TRACE', 'FOO', 'get', '', 'G\tET', 'GET\x00');
const targetArb = fc.oneof(
  fc.constantFrom(...ENDPOINTS.map(([, path]) => `/v1/${path}`)),
  fc.constantFrom(
    '*',
    '/',
    '/v1',
    '/v1/',
    'http://example/v1/sys/mounts',
    '/v1/../sys/mounts',
    '/v1/secret/data/%2e%2e/%2e%2e/sys',
    '/v1/secret/data/a%',
    '/v1/secret/data/%zz',
    '/v1/secret/data/%ff%fe',
    '/v1/secret/data/%00',
    '/v1/secret/data/\xff\xfe',
    '/v1/sys/mounts?list=true&list=%',
    `/v1/${'a'.repeat(70_000)}`,
  ),
  fc.string({ maxLength: 40 }).map((s) => `/v1/${s}`),
);
const versionArb = fc.constantFrom('HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'http/1.1', 'HTTP/1.10', '', 'HTTP/1.1 x');
const tokenArb = fc.constantFrom<string | undefined>(TEST_ROOT_TOKEN, TEST_ROOT_TOKEN, 'wrong', undefined, '');
const lengthArb = fc.constantFrom('exact', 'exact', 'none', 'less', 'more', 'duplicate-same', 'duplicate-different', 'negative', 'text', 'huge', 'plus', 'chunked', 'chunked-and-length', 'gzip');
const extraHeadersArb = fc.array(
  fc.constantFrom(
    'Connection: close',
    'Connection: keep-alive',
    'Expect: 100-continue',
    'Content-Type: application/merge-patch+json',
    'Content-Type: application/json; charset=latin1',
    'NoColon',
    ' folded: x',
    ': empty-name',
    'Bad Name: x',
    '__proto__: x',
    'constructor: y',
    `X-Huge: ${'h'.repeat(70_000)}`,
    Array.from({ length: 250 }, (_, i) => `X-Many-${i}: v`).join('\r\n'),
  ),
  { maxLength: 3 },
);
const bodyArb = fc.oneof(
  fc.constantFrom('', '{}', '{"data": {"a": 1}}', '[1,2]', 'null', '"text"', '{bad json', '{"data": {"__proto__": {"x": 1}}}', '\xff\xfe\x00garbage'),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 200 }),
);
const chunkedArb = fc.constantFrom(
  (b: string) => `${Buffer.byteLength(b, 'latin1').toString(16)}\r\n${b}\r\n0\r\n\r\n`,
  (b: string) => `${Buffer.byteLength(b, 'latin1').toString(16)};ext=1\r\n${b}\r\n0\r\nTrailer: x\r\n\r\n`,
  () => '0\r\n\r\n',
  () => 'zz\r\nabc\r\n0\r\n\r\n',
  () => '-1\r\n\r\n',
  () => 'ffffffff\r\nabc',
  (b: string) => `${Buffer.byteLength(b, 'latin1').toString(16)}\r\n${b}XX0\r\n\r\n`,
  (b: string) => `${(Buffer.byteLength(b, 'latin1') + 10).toString(16)}\r\n${b}`,
  () => `3\r\nabc\r\n0\r\n${'T: x\r\n'.repeat(20_000)}\r\n`,
);
const pipelineArb = fc.constantFrom('', '', `GET /v1/sys/mounts HTTP/1.1\r\nX-Service-Token: ${TEST_ROOT_TOKEN}\r\n\r\n`, 'garbage\r\n\r\n');

const rawRequestArb = fc.record({
  method: methodArb,
  target: targetArb,
  version: versionArb,
  token: tokenArb,
  length: lengthArb,
  extra: extraHeadersArb,
  body: bodyArb,
  chunked: chunkedArb,
  pipelined: pipelineArb,
});

type RawCase = typeof rawRequestArb extends fc.Arbitrary<infer T> ? T : never;

function buildRaw(c: RawCase): string {
  const size = Buffer.byteLength(c.body, 'latin1');
  const headers = ['Host: fuzz'];
  if (c.token !== undefined) headers.push(`X-Service-Token: ${c.token}`);
  let body = c.body;
  switch (c.length) {
    case 'exact':
      headers.push(`Content-Length: ${size}`);
      break;
    case 'less':
      headers.push(`Content-Length: ${Math.max(0, size - 3)}`);
      break;
    case 'more':
      headers.push(`Content-Length: ${size + 10}`);
      break;
    case 'duplicate-same':
      headers.push(`Content-Length: ${size}`, `Content-Length: ${size}`);
      break;
    case 'duplicate-different':
      headers.push(`Content-Length: ${size}`, `Content-Length: ${size + 1}`);
      break;
    case 'negative':
      headers.push('Content-Length: -1');
      break;
    case 'text':
      headers.push('Content-Length: ten');
      break;
    case 'huge':
      headers.push('Content-Length: 99999999999999999999999');
      break;
    case 'plus':
      headers.push(`Content-Length: +${size}`);
      break;
    case 'chunked':
      headers.push('Transfer-Encoding: chunked');
      body = c.chunked(c.body);
      break;
    case 'chunked-and-length':
      headers.push('Transfer-Encoding: chunked', `Content-Length: ${size}`);
      body = c.chunked(c.body);
      break;
    case 'gzip':
      headers.push('Transfer-Encoding: gzip, chunked');
      body = c.chunked(c.body);
      break;
    case 'none':
      break;
  }
  headers.push(...c.extra);
  return `${c.method} ${c.target} ${c.version}`.trimEnd() + `\r\n${headers.join('\r\n')}\r\n\r\n${body}${c.pipelined}`;
}

test('raw framing: malformed, truncated, pipelined and oversized requests never crash the server', async () => {
  await fc.assert(
    fc.asyncProperty(rawRequestArb, async (c) => {
      count('raw framing');
      const raw = buildRaw(c);
      const result = await exchange(server.port, [Buffer.from(raw, 'latin1')], { endAfterWrite: true, waitMs: 3000 });
      checkResponses(result.responses, `raw request ${JSON.stringify(raw.slice(0, 200))}`);
      await stillServing();
    }),
    { seed: SEED, numRuns: 250 },
  );
});

test('raw framing: requests split into single bytes and sent without closing are answered like whole ones', async () => {
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...ENDPOINTS), fc.boolean(), async ([method, path], withToken) => {
      count('split writes');
      const body = method === 'POST' || method === 'PATCH' ? '{}' : '';
      const raw =
        `${method} /v1/${path} HTTP/1.1\r\nHost: x\r\n${withToken ? `X-Service-Token: ${TEST_ROOT_TOKEN}\r\n` : ''}` +
        `Content-Type: application/merge-patch+json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
      const result = await exchange(server.port, [...Buffer.from(raw)].map((b) => Buffer.from([b])), { expectResponses: 1, waitMs: 3000 });
      expect(result.responses).toHaveLength(1);
      checkResponses(result.responses, `${method} ${path}`);
      if (!withToken && !path.includes('/login/')) expect(result.responses[0].status).toBe(403);
    }),
    { seed: SEED, numRuns: 60 },
  );
});

// ---------------------------------------------------------------------------------------------------------
// Methods and encodings

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'LIST', 'HEAD', 'OPTIONS', 'PROPFIND', 'list'];

test('every method on every endpoint of the document, with the root token: no unhandled error', async () => {
  // Its own server: DELETE on every endpoint undoes the configuration the other properties need.
  const own = await startTestServer();
  await prepare(own);
  try {
    await everyMethodOnEveryEndpoint(own);
  } finally {
    await own.close();
  }
});

async function everyMethodOnEveryEndpoint(target: DevServer): Promise<void> {
  for (const [, path] of ENDPOINTS) {
    for (const method of METHODS) {
      count('methods x endpoints');
      const result = await exchange(
        target.port,
        [`${method} /v1/${path} HTTP/1.1\r\nHost: x\r\nX-Service-Token: ${TEST_ROOT_TOKEN}\r\nContent-Type: application/merge-patch+json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`],
        { waitMs: 3000, head: method === 'HEAD' },
      );
      expect([method, path, result.responses.length]).toEqual([method, path, 1]);
      // A HEAD response has no body to check; its status must still not be an unhandled error.
      if (method === 'HEAD') expect([method, path, result.responses[0].status < 500]).toEqual([method, path, true]);
      else checkResponses(result.responses, `${method} ${path}`);
    }
  }
  const after = await call(target, 'GET', 'sys/mounts');
  expect(after.status).toBe(200);
}

const segmentArb = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '..', '.', '%2e%2e', '%2F', '%00', '%ff', '%C3%A9', 'a%20b', '%25', '%', '~', 'A', ''),
  fc.string({ unit: 'binary', maxLength: 12 }).map((s) => encodeURIComponent(s)),
  fc.string({ maxLength: 12 }),
);

test('path encodings: dot segments, percent-encoding, non-UTF-8 and prototype names in every endpoint', async () => {
  const names = /\b(r1|u1|s1|d1|a1|team)\b/;
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...ENDPOINTS), segmentArb, fc.constantFrom('POST', 'GET', 'LIST', 'DELETE', 'PATCH'), async ([, path], segment, method) => {
      count('path encodings');
      const target = `/v1/${names.test(path) ? path.replace(names, segment) : `${path}/${segment}`}`;
      const raw = `${method} ${target} HTTP/1.1\r\nHost: x\r\nX-Service-Token: ${TEST_ROOT_TOKEN}\r\nContent-Type: application/merge-patch+json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`;
      const result = await exchange(server.port, [Buffer.from(raw, 'latin1')], { waitMs: 3000 });
      checkResponses(result.responses, `${method} ${target}`);
      expect(({} as Record<string, unknown>).x).toBeUndefined();
    }),
    { seed: SEED, numRuns: 200 },
  );
  await stillServing();
});

// ---------------------------------------------------------------------------------------------------------
// Wrong JSON types for every write endpoint

/** A JSON value that no field of this kind accepts, even with the service's weak typing ("true", 30 -> "30"). */
function wrongValueArb(kind: FieldKind): fc.Arbitrary<unknown> {
  const object = fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 });
  const array = fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 });
  switch (kind) {
    case 'string':
    case 'bool':
    case 'int':
    case 'duration':
      return fc.oneof(object, array.filter((a) => !(kind === 'string' && a.length === 0)));
    case 'list':
      return fc.oneof(object, array.filter((a) => a.some((item) => typeof item !== 'string')));
    case 'object':
      return fc.oneof(fc.string(), fc.integer(), fc.boolean(), array);
  }
}

const writeEndpoints = Object.entries(WRITE_FIELDS);

test('a field of the wrong JSON type is a 4xx in the service\'s error style, on every write endpoint', async () => {
  await wrongTypes(server, 'wrong field types');
});

test('a field of the wrong JSON type is a 4xx also when no engine is configured yet', async () => {
  const bare = await startTestServer();
  try {
    await mount(bare, 'cloud', 'cloud');
    await mount(bare, 'ldap', 'ldap');
    await enableAuth(bare, 'userpass', 'userpass');
    await wrongTypes(bare, 'wrong field types, unconfigured');
  } finally {
    await bare.close();
  }
});

async function wrongTypes(target: DevServer, property: string): Promise<void> {
  for (const [endpoint, fields] of writeEndpoints) {
    const [method, path] = endpoint.split(' ');
    const entries = Object.entries(fields);
    if (entries.length === 0) continue;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...entries).chain(([field, kind]) => wrongValueArb(kind).map((value) => ({ field, value }))),
        async ({ field, value }) => {
          count(property);
          const token = path.includes('/login/') ? null : undefined;
          const result = await call(target, method, path, { [field]: value }, { token });
          const problem = problemWith(result.status, result.body);
          if (problem) throw new Error(`${endpoint} {${field}: ${JSON.stringify(value)}}: ${problem}`);
          if (result.status < 400 || result.status > 499) {
            throw new Error(`${endpoint} {${field}: ${JSON.stringify(value)}}: expected a 4xx, got ${result.status} ${JSON.stringify(result.body)}`);
          }
        },
      ),
      { seed: SEED, numRuns: 8 },
    );
  }
  expect((await call(target, 'GET', 'sys/mounts')).status).toBe(200);
}

test('a body that is not a JSON object is a 400 on every write endpoint', async () => {
  for (const [endpoint] of writeEndpoints) {
    const [method, path] = endpoint.split(' ');
    for (const raw of ['[{"a": 1}]', '"text"', '42', 'null', '{\xff']) {
      count('non-object bodies');
      const result = await call(server, method, path, undefined, {
        rawBody: Buffer.from(raw, 'latin1'),
        token: path.includes('/login/') ? null : undefined,
        headers: { 'Content-Type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' },
      });
      expect([endpoint, raw, result.status, result.body]).toEqual([endpoint, raw, 400, { errors: [expect.stringMatching(/^failed to parse JSON input: /)] }]);
    }
  }
});

test('any JSON values in any field of every write endpoint: no unhandled error, and the server keeps serving', async () => {
  for (const [endpoint, fields] of writeEndpoints) {
    const [method, path] = endpoint.split(' ');
    const names = Object.keys(fields);
    const bodyArb = fc.dictionary(names.length > 0 ? fc.constantFrom(...names) : fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
    await fc.assert(
      fc.asyncProperty(bodyArb, async (body) => {
        count('any field values');
        const result = await call(server, method, path, body, { token: path.includes('/login/') ? null : undefined });
        const problem = problemWith(result.status, result.body);
        if (problem) throw new Error(`${endpoint} ${JSON.stringify(body).slice(0, 300)}: ${problem}`);
      }),
      { seed: SEED, numRuns: 10 },
    );
  }
  await stillServing();
});

test('memory stays bounded over the whole fuzz run', () => {
  gc();
  const grown = memoryBytes() - baselineBytes;
  count('memory checks');
  process.stdout.write(`dev server HTTP fuzz: memory growth after GC ${(grown / 1024 / 1024).toFixed(1)} MiB\n`);
  expect(grown).toBeLessThan(64 * 1024 * 1024);
});
