/**
 * README.md "Pointing it at a real service": its block run by bash as written, in a project whose stack has no
 * ServiceConnection, against a service at an https address that requires a client certificate. The service is
 * the dev server behind a TLS front (test/support/service-proxy.ts) with the test PKI's certificates
 * (client-test-pki.ts). What differs from a reader's terminal, each said where it is done: the placeholders
 * (address, token, CA file, state key) are filled with the test's; the client certificate and key are the test
 * PKI's, copied to the names the block uses; SERVICE_SKIP_VERIFY stays commented out, so the server's
 * certificate is verified.
 */
import { runBash, type BashRun } from '../support/run-bash';
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { readmeBlock } from '../support/readme-blocks';
import { startServiceProxy } from '../support/service-proxy';
import { cliEnv, createLinkedProject } from './cli-harness';
import type { RawServer } from './client-raw-server';
import { createTestPki, type TestPki } from './client-test-pki';

jest.setTimeout(180_000);

const PASSWORD = 'real-service-password-2b7d';

const APP = `
const { App, TerraformStack } = require('cdktf');
const sf = require('secretform');
const app = new App();
const stack = new TerraformStack(app, 'prod');
const userpass = new sf.AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass' });
new sf.UserpassUser(stack, 'ci-bot', { mount: userpass, username: 'ci-bot', password: sf.SecretValue.fromFile('password.txt'), tokenTtl: '1h' });
app.synth();
`;

let pki: TestPki;
let dev: DevServer;
let service: RawServer;

beforeAll(async () => {
  pki = createTestPki();
  dev = await startDevServer({ port: 0, rootToken: 'real-service-root' });
  // Mutual TLS: the server's certificate from the test CA, and a client certificate of that CA required.
  service = await startServiceProxy(dev.url, () => undefined, {
    cert: pki.read(pki.serverCertPath),
    key: pki.read(pki.serverKeyPath),
    ca: pki.read(pki.caCertPath),
    requestCert: true,
    rejectUnauthorized: true,
  });
});

afterAll(async () => {
  await service?.close();
  await dev?.close();
  pki?.remove();
});

function bash(script: string, cwd: string, environment: NodeJS.ProcessEnv): Promise<BashRun> {
  return runBash(script, cwd, environment);
}

/** `text` with `placeholder` (which must be there) replaced by `value`. */
function fill(text: string, placeholder: string, value: string): string {
  expect(text).toContain(placeholder);
  return text.split(placeholder).join(value);
}

test('real-service.sh plans against an https service with a CA file and a client certificate', async () => {
  const dir = createLinkedProject('secretform-readme-real-service-', APP, 'cdktf');
  writeFileSync(join(dir, 'password.txt'), `${PASSWORD}\n`);
  copyFileSync(pki.clientCertPath, join(dir, 'client.pem'));
  copyFileSync(pki.clientKeyPath, join(dir, 'client-key.pem'));
  const written = readmeBlock('real-service.sh');
  expect(written).toMatch(/^# export SERVICE_SKIP_VERIFY=true/m);
  let script = fill(written, 'https://secrets.example.com:8200', service.url);
  script = fill(script, 'SERVICE_TOKEN=...', `SERVICE_TOKEN=${dev.rootToken}`);
  script = fill(script, '/etc/ssl/secrets-ca.pem', pki.caCertPath);
  script = fill(script, 'SECRETFORM_STATE_KEY=...', 'SECRETFORM_STATE_KEY=real-service-state-key');
  // Nothing of the service's connection comes from the test's environment: the block sets all of it.
  const environment = cliEnv(dev, { SERVICE_ADDR: undefined, SERVICE_TOKEN: undefined, SECRETFORM_STATE_KEY: undefined });

  const ran = await bash(script, dir, environment);
  expect(ran.stderr).toBe('');
  expect(ran.code).toBe(0);
  expect(ran.stdout).toContain('prod/ci-bot will be created');
  expect(ran.stdout).toMatch(/Plan: 2 to add, 0 to change, 0 to destroy/);
  expect(ran.stdout).not.toContain(PASSWORD);
  // The plan read the service through the TLS front, over connections that presented the client certificate.
  expect(service.requests.length).toBeGreaterThan(0);
  expect(service.requests.every((request) => request.headers['x-service-token'] === dev.rootToken)).toBe(true);

  // The same block without the client certificate fails, naming what the server asks for: the lines matter.
  const withoutClientCert = await bash(script.replace(/^export SERVICE_CLIENT_CERT=.*$/m, ''), dir, environment);
  expect(withoutClientCert.code).toBe(1);
  expect(withoutClientCert.stderr).toContain('client certificate');
});
