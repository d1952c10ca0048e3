// Shared setup for the secret-sync HTTP-level tests: a dev server on a manual clock (default seed: a KV v2
// mount at `secret`), a request helper with the root token, KV v2 writes, and the sync area's inspection.
import { ManualClock } from '../../src/devserver/clock';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import type { SyncInspection } from '../../src/devserver/sync';
import { call } from './http';

export const ROOT_TOKEN = 'sync-test-root';
export const START_MS = Date.UTC(2025, 0, 1);
/** The cloud1-sm destination the association and config tests create (CLOUD1_BODY). */
export const AWS = 'sys/sync/destinations/cloud1-sm/aws1';
/** A clock time as the RFC 3339 `updated_at` the sync area shows. */
export const iso = (ms: number): string => new Date(ms).toISOString();

export interface Reply {
  status: number;
  body: any;
}

export interface SyncFixture {
  server: DevServer;
  clock: ManualClock;
  /** Sends `method path` under /v1/ with the root token (test/devserver/http.ts `call`). */
  request(method: string, path: string, body?: unknown): Promise<Reply>;
  writeSecret(name: string, data: Record<string, unknown>, mount?: string): Promise<void>;
  deleteSecret(name: string, mount?: string): Promise<void>;
  /** The accessor of a secrets mount, as `GET sys/mounts` reports it. */
  accessorOf(mount: string): Promise<string>;
  inspect(): SyncInspection;
  close(): Promise<void>;
}

export async function startSyncFixture(): Promise<SyncFixture> {
  const clock = new ManualClock(START_MS);
  const server = await startDevServer({ port: 0, rootToken: ROOT_TOKEN, clock });
  const request = async (method: string, path: string, body?: unknown): Promise<Reply> => {
    const { status, body: replyBody } = await call(server, method, path, body);
    return { status, body: replyBody };
  };
  const expectOk = (what: string, reply: Reply): void => {
    if (reply.status >= 300) throw new Error(`${what} failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  };
  return {
    server,
    clock,
    request,
    async writeSecret(name, data, mount = 'secret') {
      expectOk(`writing ${mount}/${name}`, await request('POST', `${mount}/data/${name}`, { data }));
    },
    async deleteSecret(name, mount = 'secret') {
      expectOk(`deleting ${mount}/${name}`, await request('DELETE', `${mount}/data/${name}`));
    },
    async accessorOf(mount) {
      const reply = await request('GET', 'sys/mounts');
      expectOk('reading sys/mounts', reply);
      const entry = (reply.body.data ?? reply.body)[`${mount}/`];
      if (!entry?.accessor) throw new Error(`no accessor for mount ${mount}: ${JSON.stringify(reply.body)}`);
      return entry.accessor as string;
    },
    inspect: () => server.inspectSync() as SyncInspection,
    close: () => server.close(),
  };
}

/** A cloud1-sm destination body with every connection field set. */
export const CLOUD1_BODY = {
  access_key_id: 'AKIAEXAMPLE',
  secret_access_key: 'secret-key-value',
  role_arn: 'arn:cloud:iam::123456789012:role/sync',
  external_id: 'ext-1',
  region: 'us-east-1',
};

export const CLOUD2_BODY = {
  key_vault_uri: 'https://vault-1.example.net',
  client_id: 'client-1',
  client_secret: 'client-secret-1',
  tenant_id: 'tenant-1',
};

export const CLOUD3_BODY = { credentials: '{"type":"service_account"}' };

export const REPOHOST_BODY = { access_token: 'ghp_token', repository_owner: 'acme', repository_name: 'app' };

export const WEBHOST_BODY = { access_token: 'wh-token', project_id: 'prj_1', deployment_environments: ['production'] };

export const PRIVATE_KEY = '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAexample\n-----END RSA PRIVATE KEY-----\n';
