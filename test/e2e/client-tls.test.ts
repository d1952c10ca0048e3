// TLS: a server certificate from a CA generated in the test (openssl), verified with SERVICE_CACERT,
// refused without it, accepted with SERVICE_SKIP_VERIFY, and client certificates for mutual TLS.
import { ServiceClient } from '../../src/client/service-client';
import { loadClientConfig } from '../../src/client/config';
import { envelopeOf, startRawServer, type RawServer } from './client-raw-server';
import { createTestPki, type TestPki } from './client-test-pki';

let pki: TestPki;
let server: RawServer;
let mutualServer: RawServer;

beforeAll(async () => {
  pki = createTestPki();
  const serverTls = { cert: pki.read(pki.serverCertPath), key: pki.read(pki.serverKeyPath) };
  server = await startRawServer(() => ({ status: 200, body: envelopeOf({ tls: 'yes' }) }), serverTls);
  mutualServer = await startRawServer(() => ({ status: 200, body: envelopeOf({ mutual: 'yes' }) }), {
    ...serverTls,
    ca: pki.read(pki.caCertPath),
    requestCert: true,
    rejectUnauthorized: true,
  });
});
afterAll(async () => {
  await server?.close();
  await mutualServer?.close();
  pki?.remove();
});

async function readConfig(env: Record<string, string>) {
  const loaded = loadClientConfig({ SERVICE_TOKEN: 'root', ...env });
  if (!loaded.ok) throw new Error(loaded.error.message);
  const client = new ServiceClient(loaded.config, { retry: { maxAttempts: 1 } });
  try {
    return await client.readObject('ldap/config');
  } finally {
    await client.close();
  }
}

it('verifies the server with the CA from SERVICE_CACERT', async () => {
  expect(await readConfig({ SERVICE_ADDR: server.url, SERVICE_CACERT: pki.caCertPath })).toEqual({ ok: true, value: { tls: 'yes' }, warnings: [] });
});

it('verifies the server by host name (localhost is in the certificate)', async () => {
  const url = server.url.replace('127.0.0.1', 'localhost');
  expect((await readConfig({ SERVICE_ADDR: url, SERVICE_CACERT: pki.caCertPath })).ok).toBe(true);
});

it('refuses a server whose CA is not trusted, with a tls error that names SERVICE_CACERT', async () => {
  const result = await readConfig({ SERVICE_ADDR: server.url });
  expect(result.ok).toBe(false);
  if (!result.ok) {
    expect(result.error.code).toBe('tls');
    expect(result.error.causeCode).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
    expect(result.error.message).toContain(`GET /v1/ldap/config: TLS with ${server.url} failed (UNABLE_TO_VERIFY_LEAF_SIGNATURE`);
    expect(result.error.message).toContain('set SERVICE_CACERT to its PEM file');
  }
});

it('refuses the server when SERVICE_CACERT holds a different CA', async () => {
  const result = await readConfig({ SERVICE_ADDR: server.url, SERVICE_CACERT: pki.otherCaCertPath });
  expect(result.ok).toBe(false);
  if (!result.ok) expect(result.error.code).toBe('tls');
});

it('accepts the untrusted server with SERVICE_SKIP_VERIFY=true', async () => {
  expect(await readConfig({ SERVICE_ADDR: server.url, SERVICE_SKIP_VERIFY: 'true' })).toEqual({ ok: true, value: { tls: 'yes' }, warnings: [] });
});

it('presents the client certificate from SERVICE_CLIENT_CERT/KEY to a server that requires one', async () => {
  const result = await readConfig({
    SERVICE_ADDR: mutualServer.url,
    SERVICE_CACERT: pki.caCertPath,
    SERVICE_CLIENT_CERT: pki.clientCertPath,
    SERVICE_CLIENT_KEY: pki.clientKeyPath,
  });
  expect(result).toEqual({ ok: true, value: { mutual: 'yes' }, warnings: [] });
});

it('says a client certificate is required when the server asks for one and none is configured (not "server closed the connection")', async () => {
  const handledBefore = mutualServer.requests.length;
  // TLS 1.3 shows the refusal as an alert or as a closed socket, depending on timing: both must read the same.
  for (let run = 0; run < 3; run++) {
    const result = await readConfig({ SERVICE_ADDR: mutualServer.url, SERVICE_CACERT: pki.caCertPath });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe('client_certificate_required');
      expect(result.error.runFailure).toBe('client_certificate_required');
      expect(result.error.message).toContain('requires a client certificate');
      expect(result.error.message).toContain('SERVICE_CLIENT_CERT');
      expect(result.error.message).not.toContain('closed the connection');
    }
  }
  expect(mutualServer.requests).toHaveLength(handledBefore);
});

it('says the server speaks plain HTTP when an https address points at an http server', async () => {
  const httpServer = await import('node:http').then(({ createServer }) => createServer((_request, response) => response.end('{}')));
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = httpServer.address() as { port: number };
    const result = await readConfig({ SERVICE_ADDR: `https://127.0.0.1:${port}`, SERVICE_CACERT: pki.caCertPath });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe('not_tls');
      expect(result.error.runFailure).toBe('not_tls');
      expect(result.error.message).toContain(`Use http://127.0.0.1:${port} in SERVICE_ADDR`);
    }
  } finally {
    await new Promise((resolve) => httpServer.close(resolve));
  }
});
