/**
 * Shared setup of the engine's end-to-end tests: a dev server on a free port with a directory of our own, a
 * temporary project directory for the state file, and engine options pointing at both.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { App, TerraformStack } from 'cdktf';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import type { ApplyOptions } from '../../src';

export const ROOT_TOKEN = 'engine-test-root';
export const BASE_DN = 'dc=engine,dc=test';
export const USERS_DN = `ou=users,${BASE_DN}`;
export const ADMIN_DN = `cn=admin,${BASE_DN}`;
export const ADMIN_PASSWORD = 'admin-initial-pass-9f1';
export const ACCOUNTS = ['svc-a', 'svc-b', 'svc-c', 'svc-d'];

export interface Harness {
  server: DevServer;
  /** Temporary project directory (state under `.secretform/`). */
  dir: string;
  env: NodeJS.ProcessEnv;
  /** Engine options for an in-memory stack. */
  options(stack: TerraformStack, extra?: Partial<ApplyOptions>): ApplyOptions;
  /** A request with the root token: `{status, body}`. */
  call(method: string, path: string, body?: unknown, contentType?: string): Promise<{ status: number; body: any }>;
  /** The raw text of the state file of stack `test`. */
  stateText(): Promise<string>;
  state(): Promise<any>;
  /** Requests logged since the last `markLog()` (or since start). */
  logSince(): DevServer['requestLog'];
  markLog(): void;
  close(): Promise<void>;
}

export async function startHarness(env: NodeJS.ProcessEnv = {}, options: { kvMount?: boolean; latencyMs?: number } = {}): Promise<Harness> {
  const server = await startDevServer({
    port: 0,
    rootToken: ROOT_TOKEN,
    latencyMs: options.latencyMs,
    seed: {
      mounts: options.kvMount === false ? [] : [{ path: 'secret', type: 'kv', options: { version: '2' } }],
      directory: [
        { dn: BASE_DN, attributes: { objectClass: ['domain'], dc: ['engine'] } },
        { dn: USERS_DN, attributes: { objectClass: ['organizationalUnit'], ou: ['users'] } },
        { dn: ADMIN_DN, attributes: { objectClass: ['person'], cn: ['admin'], sn: ['admin'], userPassword: [ADMIN_PASSWORD] } },
        ...ACCOUNTS.map((name) => ({
          dn: `cn=${name},${USERS_DN}`,
          attributes: { objectClass: ['person'], cn: [name], sn: [name], userPassword: [`${name}-initial`] },
        })),
      ],
    },
  });
  const dir = await mkdtemp(path.join(tmpdir(), 'secretform-engine-'));
  const fullEnv: NodeJS.ProcessEnv = { SERVICE_ADDR: server.url, SERVICE_TOKEN: ROOT_TOKEN, SECRETFORM_STATE_KEY: 'engine-test-state-key', ...env };
  let mark = 0;
  const statePath = path.join(dir, '.secretform', 'test.state.json');
  return {
    server,
    dir,
    env: fullEnv,
    options: (stack, extra = {}) => ({ desired: { kind: 'stack', stack }, cwd: dir, env: fullEnv, ...extra }),
    async call(method, apiPath, body, contentType) {
      const response = await fetch(`${server.url}/v1/${apiPath}`, {
        method,
        headers: { 'x-service-token': ROOT_TOKEN, ...(body !== undefined ? { 'content-type': contentType ?? 'application/json' } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
    },
    stateText: () => readFile(statePath, 'utf8'),
    state: async () => JSON.parse(await readFile(statePath, 'utf8')),
    logSince: () => server.requestLog.slice(mark),
    markLog() {
      mark = server.requestLog.length;
    },
    async close() {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A fresh in-memory stack named `test` (each test run of a configuration builds its own). */
export function newStack(): TerraformStack {
  const app = new App({ outdir: path.join(tmpdir(), 'secretform-engine-unused-out') });
  return new TerraformStack(app, 'test');
}

/** The value of a successful Result, or a thrown error with its message (keeps test failures readable). */
export function unwrap<T>(result: { ok: true; value: T } | { ok: false; error: Error }): T {
  if (!result.ok) throw new Error(`expected success, got ${result.error.name}: ${result.error.message}`);
  return result.value;
}

/** Actions of a plan by address (only those that are not no-op unless `all`). */
export function actions(plan: { changes: readonly { address: string; action: string }[] }, all = false): Record<string, string> {
  return Object.fromEntries(plan.changes.filter((c) => all || c.action !== 'no-op').map((c) => [c.address, c.action]));
}
