// Throw-away certificates for the client's TLS tests, made with the openssl binary: a CA, a server
// certificate for 127.0.0.1/localhost signed by it, and a client certificate for mutual TLS.
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../support/temp-dir';

export interface TestPki {
  dir: string;
  caCertPath: string;
  serverCertPath: string;
  serverKeyPath: string;
  clientCertPath: string;
  clientKeyPath: string;
  /** A second, unrelated CA: verification against it must fail. */
  otherCaCertPath: string;
  read(path: string): string;
  remove(): void;
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
}

const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

function makeCa(dir: string, name: string): void {
  openssl(dir, ['req', '-x509', ...EC_KEY, '-keyout', `${name}.key`, '-out', `${name}.pem`, '-days', '2', '-subj', `/CN=${name}`]);
}

function makeLeaf(dir: string, name: string, ca: string, extensions: string): void {
  writeFileSync(join(dir, `${name}.ext`), extensions);
  openssl(dir, ['req', ...EC_KEY, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`]);
  openssl(dir, [
    'x509', '-req', '-in', `${name}.csr`, '-CA', `${ca}.pem`, '-CAkey', `${ca}.key`, '-CAcreateserial',
    '-out', `${name}.pem`, '-days', '2', '-extfile', `${name}.ext`,
  ]);
}

export function createTestPki(): TestPki {
  const dir = tempDir('secretform-client-pki-');
  makeCa(dir, 'test-ca');
  makeCa(dir, 'other-ca');
  makeLeaf(dir, 'server', 'test-ca', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  makeLeaf(dir, 'client', 'test-ca', 'extendedKeyUsage=clientAuth\n');
  return {
    dir,
    caCertPath: join(dir, 'test-ca.pem'),
    serverCertPath: join(dir, 'server.pem'),
    serverKeyPath: join(dir, 'server.key'),
    clientCertPath: join(dir, 'client.pem'),
    clientKeyPath: join(dir, 'client.key'),
    otherCaCertPath: join(dir, 'other-ca.pem'),
    read: (path) => readFileSync(path, 'utf8'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
