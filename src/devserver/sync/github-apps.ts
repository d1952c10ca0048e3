// `sys/sync/github-apps/:name`: custom repository-host apps that repohost destinations authenticate with.
import { createHash } from 'node:crypto';
import { badRequest, envelope, noContent, notFound, ok, okEnvelope, unsupportedOperation } from '../respond';
import type { DevRequest, DevResponse } from '../types';
import type { GithubApp } from './model';
import type { SyncState } from './sync-state';

const PEM_PRIVATE_KEY = /^-----BEGIN ([A-Z ]*)PRIVATE KEY-----\r?\n[\s\S]+\r?\n-----END \1PRIVATE KEY-----\s*$/;

export function handleGithubApps(req: DevRequest, subpath: string, state: SyncState): DevResponse {
  if (subpath === '') {
    if (req.method !== 'LIST') throw unsupportedOperation();
    const keys = [...state.githubApps.keys()].sort();
    if (keys.length === 0) throw notFound();
    return ok(envelope({ keys }, { mountType: 'system' }));
  }
  const name = subpath;
  switch (req.method) {
    case 'POST':
      return appResponse(writeApp(state, name, req.body));
    case 'GET': {
      const app = state.githubApps.get(name);
      if (!app) throw notFound();
      return appResponse(app);
    }
    case 'DELETE':
      deleteApp(state, name);
      return noContent();
    default:
      throw unsupportedOperation();
  }
}

/** Creates or updates (fields not sent keep their values); `app_id` and `private_key` are needed on create. */
function writeApp(state: SyncState, name: string, body: Record<string, unknown>): GithubApp {
  const existing = state.githubApps.get(name);
  const appId = body.app_id !== undefined ? parseAppId(body.app_id) : existing?.appId;
  if (appId === undefined) throw badRequest(`github app "${name}": missing required field "app_id"`);
  let privateKey = existing?.privateKey;
  if (body.private_key !== undefined) {
    if (typeof body.private_key !== 'string' || !PEM_PRIVATE_KEY.test(body.private_key.trim())) {
      throw badRequest(
        `github app "${name}": "private_key" must be a PEM-encoded private key ` +
          '("-----BEGIN ... PRIVATE KEY-----" ... "-----END ... PRIVATE KEY-----")',
      );
    }
    privateKey = body.private_key;
  }
  if (privateKey === undefined) throw badRequest(`github app "${name}": missing required field "private_key"`);
  const app: GithubApp = { name, appId, privateKey, fingerprint: fingerprintOf(privateKey) };
  state.githubApps.set(name, app);
  return app;
}

function deleteApp(state: SyncState, name: string): void {
  const users = [...state.destinations.values()]
    .filter((d) => d.type === 'repohost' && d.connection.app_name === name)
    .map((d) => `repohost/${d.name}`);
  if (users.length > 0) {
    throw badRequest(`github app "${name}" cannot be deleted because destinations use it: ${users.join(', ')}`);
  }
  state.githubApps.delete(name);
}

/** `app_id` is a string on input ("123"); an integer is accepted too. It must be a positive integer. */
function parseAppId(value: unknown): number {
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || !/^[1-9]\d*$/.test(text.trim()) || !Number.isSafeInteger(Number(text))) {
    throw badRequest(`github app: "app_id" must be a positive integer (as a string), got ${JSON.stringify(value)}`);
  }
  return Number(text);
}

/** Lower-case hex SHA-256 over the private key exactly as it was sent (UTF-8). */
export function fingerprintOf(privateKey: string): string {
  return createHash('sha256').update(privateKey, 'utf8').digest('hex');
}

function appResponse(app: GithubApp): DevResponse {
  return okEnvelope(
    { app_id: app.appId, fingerprint: app.fingerprint, name: app.name, private_key: '*****' },
    { mountType: 'system' },
  );
}
