import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { loadClientConfig, type ClientConfig, type ClientConfigResult } from '../../src/client/config';
import { createTestPki, type TestPki } from '../e2e/client-test-pki';

let pki: TestPki;
beforeAll(() => {
  pki = createTestPki();
});
afterAll(() => pki.remove());

function configOf(result: ClientConfigResult): ClientConfig {
  if (!result.ok) throw new Error(`expected a config, got ${result.error.code}: ${result.error.message}`);
  return result.config;
}

describe('loadClientConfig', () => {
  it('defaults to http://127.0.0.1:8200 with verification on and no token', () => {
    const config = configOf(loadClientConfig({}));
    expect(config.address).toBe('http://127.0.0.1:8200');
    expect(config.token).toBeUndefined();
    expect(config.tls).toEqual({ rejectUnauthorized: true });
    expect(config.warnings).toEqual([]);
  });

  it('reads SERVICE_ADDR without its trailing slash and keeps a path prefix', () => {
    expect(configOf(loadClientConfig({ SERVICE_ADDR: 'https://secrets.example.com:8200/' })).address).toBe('https://secrets.example.com:8200');
    expect(configOf(loadClientConfig({ SERVICE_ADDR: 'https://proxy.example.com/secrets/' })).address).toBe('https://proxy.example.com/secrets');
  });

  it('rejects a SERVICE_ADDR that is not an http(s) URL', () => {
    for (const value of ['localhost:8200', 'ftp://h', 'http://user:pw@h:1', 'http://h:1/?x=1']) {
      const result = loadClientConfig({ SERVICE_ADDR: value });
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error).toMatchObject({ code: 'invalid_address', variable: 'SERVICE_ADDR' });
    }
  });

  it('never quotes credentials or a query of SERVICE_ADDR in its error, and shows the address to use instead', () => {
    for (const value of ['https://admin:hunter2-pw@secrets.example.com:8200/', 'https://secrets.example.com:8200/?token=hunter2-pw']) {
      const result = loadClientConfig({ SERVICE_ADDR: value });
      if (result.ok) throw new Error(`expected ${value} to be rejected`);
      expect(result.error.message).not.toContain('hunter2-pw');
      expect(result.error.message).toContain('"https://secrets.example.com:8200"');
    }
  });

  it('does not quote a SERVICE_ADDR without a scheme that carries credentials (it parses as an odd scheme)', () => {
    for (const value of ['admin:hunter2-pw@secrets.example.com:8200', 'not a url @hunter2-pw']) {
      const result = loadClientConfig({ SERVICE_ADDR: value });
      if (result.ok) throw new Error(`expected ${value} to be rejected`);
      expect(result.error.message).not.toContain('hunter2-pw');
      expect(result.error.message).toMatch(/not shown/);
    }
    const typo = loadClientConfig({ SERVICE_ADDR: 'ftp://secrets.example.com' });
    expect(!typo.ok && typo.error.message).toContain('"ftp://secrets.example.com"');
  });

  it('keeps the token but never shows it when printed, inspected or serialised', () => {
    const config = configOf(loadClientConfig({ SERVICE_TOKEN: 's.super-secret' }));
    expect(config.token?.reveal()).toBe('s.super-secret');
    expect(String(config.token)).not.toContain('super-secret');
    expect(JSON.stringify(config)).not.toContain('super-secret');
    expect(inspect(config, { depth: 5 })).not.toContain('super-secret');
  });

  it('treats an empty SERVICE_TOKEN as unset', () => {
    expect(configOf(loadClientConfig({ SERVICE_TOKEN: '' })).token).toBeUndefined();
  });

  describe('SERVICE_SKIP_VERIFY', () => {
    it.each([
      ['true', false],
      ['1', false],
      ['TRUE', false],
      ['false', true],
      ['0', true],
      ['', true],
    ])('%j sets rejectUnauthorized to %s', (value, rejectUnauthorized) => {
      expect(configOf(loadClientConfig({ SERVICE_ADDR: 'https://h:1', SERVICE_SKIP_VERIFY: value })).tls.rejectUnauthorized).toBe(rejectUnauthorized);
    });

    it.each(['yes', 'on', 'tru', '2'])('rejects %j and lists the allowed values', (value) => {
      const result = loadClientConfig({ SERVICE_SKIP_VERIFY: value });
      expect(result).toEqual({
        ok: false,
        error: {
          code: 'invalid_skip_verify',
          variable: 'SERVICE_SKIP_VERIFY',
          message: `SERVICE_SKIP_VERIFY has the value "${value}"; allowed are "true" or "1" (turn TLS verification off) and "false", "0" or unset (verify). Leave it unset unless you are testing.`,
        },
      });
    });
  });

  describe('TLS files', () => {
    it('reads the CA bundle and the client certificate and key', () => {
      const config = configOf(
        loadClientConfig({
          SERVICE_ADDR: 'https://127.0.0.1:8200',
          SERVICE_CACERT: pki.caCertPath,
          SERVICE_CLIENT_CERT: pki.clientCertPath,
          SERVICE_CLIENT_KEY: pki.clientKeyPath,
        }),
      );
      expect(config.tls.ca).toBe(pki.read(pki.caCertPath));
      expect(config.tls.cert).toBe(pki.read(pki.clientCertPath));
      expect(config.tls.key).toBe(pki.read(pki.clientKeyPath));
      expect(config.tls.rejectUnauthorized).toBe(true);
    });

    it('accepts a bundle of several CA certificates', () => {
      const bundle = join(pki.dir, 'bundle.pem');
      writeFileSync(bundle, pki.read(pki.caCertPath) + pki.read(pki.otherCaCertPath));
      expect(configOf(loadClientConfig({ SERVICE_CACERT: bundle })).tls.ca).toContain('END CERTIFICATE');
    });

    it('names the variable and the path of a missing file', () => {
      const missing = join(pki.dir, 'nope.pem');
      expect(loadClientConfig({ SERVICE_CACERT: missing })).toEqual({
        ok: false,
        error: {
          code: 'unreadable_file',
          variable: 'SERVICE_CACERT',
          message: `SERVICE_CACERT names ${missing}, which cannot be read (ENOENT). Point SERVICE_CACERT at a readable PEM file.`,
        },
      });
    });

    it('rejects a CA file without certificates and one with a corrupt certificate', () => {
      const notPem = join(pki.dir, 'not.pem');
      writeFileSync(notPem, 'hello');
      const empty = loadClientConfig({ SERVICE_CACERT: notPem });
      expect(empty.ok).toBe(false);
      if (!empty.ok) {
        expect(empty.error.code).toBe('invalid_pem');
        expect(empty.error.message).toContain(`SERVICE_CACERT names ${notPem}, which holds no PEM certificate`);
      }
      const corrupt = join(pki.dir, 'corrupt.pem');
      writeFileSync(corrupt, '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
      const bad = loadClientConfig({ SERVICE_CACERT: corrupt });
      expect(bad.ok).toBe(false);
      if (!bad.ok) expect(bad.error.message).toContain('holds a certificate (number 1) that does not parse');
    });

    it('requires both SERVICE_CLIENT_CERT and SERVICE_CLIENT_KEY', () => {
      const result = loadClientConfig({ SERVICE_CLIENT_CERT: pki.clientCertPath });
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.error).toMatchObject({ code: 'incomplete_client_certificate', variable: 'SERVICE_CLIENT_KEY' });
        expect(result.error.message).toContain('SERVICE_CLIENT_CERT is set but SERVICE_CLIENT_KEY is not');
      }
    });

    it('rejects a client key that is not a key, or not the key of the certificate', () => {
      const notKey = loadClientConfig({ SERVICE_CLIENT_CERT: pki.clientCertPath, SERVICE_CLIENT_KEY: pki.clientCertPath });
      expect(notKey.ok).toBe(false);
      if (!notKey.ok) {
        expect(notKey.error).toMatchObject({ code: 'invalid_pem', variable: 'SERVICE_CLIENT_KEY' });
        expect(notKey.error.message).toContain(`SERVICE_CLIENT_KEY names ${pki.clientCertPath}, which is not an unencrypted PEM private key`);
      }
      const wrongKey = loadClientConfig({ SERVICE_CLIENT_CERT: pki.clientCertPath, SERVICE_CLIENT_KEY: pki.serverKeyPath });
      expect(wrongKey.ok).toBe(false);
      if (!wrongKey.ok) {
        expect(wrongKey.error.message).toBe(
          `SERVICE_CLIENT_KEY (${pki.serverKeyPath}) is not the private key of the certificate in SERVICE_CLIENT_CERT (${pki.clientCertPath}).`,
        );
      }
    });

    it('warns when TLS settings are given for an http address', () => {
      const config = configOf(loadClientConfig({ SERVICE_CACERT: pki.caCertPath }));
      expect(config.warnings).toEqual([
        'SERVICE_ADDR uses http, so the TLS settings (SERVICE_CACERT, SERVICE_CLIENT_*, SERVICE_SKIP_VERIFY) have no effect.',
      ]);
    });
  });
});
