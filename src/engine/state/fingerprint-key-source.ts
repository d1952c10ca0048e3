/**
 * Where a stack's fingerprint key lives when SECRETFORM_STATE_KEY is not set: anywhere but the state, so the
 * state alone never lets anyone test password guesses. The default keeps a random 256-bit key per stack in the
 * service itself, in a KV v2 secret the operator's token can already reach (`secret/secretform/fingerprint-keys/
 * <stack>`, configurable); a state backend with a place of its own (PostgreSQL's `fingerprint_keys` table) keeps it
 * there instead, so the default works on a server without a KV v2 mount.
 * Without any key the engine falls back to slow salted hashes on the thread pool (see fingerprint.ts).
 */
import { randomBytes } from 'node:crypto';
import type { ServiceClient } from '../../client';
import { FingerprintKey, fingerprintKeyFromEnv, STATE_KEY_ENV } from './fingerprint';

export const KEY_MOUNT_ENV = 'SECRETFORM_FINGERPRINT_KEY_MOUNT';
export const KEY_PATH_ENV = 'SECRETFORM_FINGERPRINT_KEY_PATH';
export const DEFAULT_KEY_MOUNT = 'secret';
const KEY_FIELD = 'fingerprint_key';
const KEY_BYTES = 32;

export type KeyLoad = { ok: true; key: Buffer | undefined } | { ok: false; reason: string };
export type KeyCreate = { ok: true; key: Buffer } | { ok: false; reason: string };

/** A place that keeps one stack's fingerprint key outside the state. */
export interface FingerprintKeySource {
  /** Where the key is, for messages (never the key). */
  readonly description: string;
  /** The key, `undefined` when none was created yet, or why it cannot be read. */
  load(): Promise<KeyLoad>;
  /** Stores `key` unless a key exists already; answers the key that is now in place (the existing one wins). */
  create(key: Buffer): Promise<KeyCreate>;
}

/** The default source: a KV v2 secret on the service. */
export class ServiceKvKeySource implements FingerprintKeySource {
  readonly description: string;

  constructor(
    private readonly client: ServiceClient,
    private readonly mount: string,
    private readonly path: string,
  ) {
    this.description = `KV v2 secret ${mount}/${path} on the service`;
  }

  static forStack(client: ServiceClient, stack: string, env: NodeJS.ProcessEnv): ServiceKvKeySource {
    const mount = trimSlashes(env[KEY_MOUNT_ENV] || DEFAULT_KEY_MOUNT);
    const path = trimSlashes(env[KEY_PATH_ENV] || `secretform/fingerprint-keys/${stack}`);
    return new ServiceKvKeySource(client, mount, path);
  }

  async load(): Promise<KeyLoad> {
    const result = await this.client.get(this.#dataPath());
    if (!result.ok) {
      // 404: no key yet, or no KV v2 mount there (a write then tells which).
      if (result.error.status === 404) return { ok: true, key: undefined };
      return { ok: false, reason: `cannot read the ${this.description}: ${result.error.message}` };
    }
    const stored = (result.data as { data?: Record<string, unknown> } | undefined)?.data?.[KEY_FIELD];
    if (stored === undefined) return { ok: true, key: undefined };
    const key = typeof stored === 'string' ? Buffer.from(stored, 'base64url') : Buffer.alloc(0);
    if (key.length < 16) return { ok: false, reason: `the ${this.description} holds no valid "${KEY_FIELD}" (expected ${KEY_BYTES} random bytes, base64url)` };
    return { ok: true, key };
  }

  async create(key: Buffer): Promise<KeyCreate> {
    // cas 0: written only if the secret does not exist, so two first applies cannot end with two keys.
    const written = await this.client.post(this.#dataPath(), { data: { [KEY_FIELD]: key.toString('base64url') }, options: { cas: 0 } });
    if (written.ok) return { ok: true, key };
    const again = await this.load();
    if (again.ok && again.key) return { ok: true, key: again.key };
    return { ok: false, reason: `cannot create the ${this.description} (a KV v2 mount "${this.mount}" the token can write is needed): ${written.error.message}` };
  }

  #dataPath(): string {
    return `${this.mount}/data/${this.path}`;
  }
}

/**
 * The backend's own place first; a key made earlier on the service (before the backend had a place) is still
 * found there, so fingerprints recorded with it keep comparing. New keys go to the backend's place.
 */
export function backendKeySourceFirst(backend: FingerprintKeySource, service: FingerprintKeySource): FingerprintKeySource {
  return {
    description: backend.description,
    async load(): Promise<KeyLoad> {
      const own = await backend.load();
      if (!own.ok || own.key) return own;
      const earlier = await service.load();
      return earlier.ok && earlier.key ? earlier : { ok: true, key: undefined };
    },
    create: (key) => backend.create(key),
  };
}

/** How a run gets its key: only reads (plan), or creates the stack's key when there is none (apply, import). */
export type KeyUse = 'read' | 'write';

/**
 * The fingerprint key of a run: SECRETFORM_STATE_KEY when set (no request), else the source's key (one request;
 * created on the first run that writes fingerprints), else none, with the reason.
 */
export async function resolveFingerprintKey(env: NodeJS.ProcessEnv, source: () => FingerprintKeySource, use: KeyUse): Promise<FingerprintKey> {
  const fromEnv = fingerprintKeyFromEnv(env);
  if (fromEnv) return fromEnv;
  const place = source();
  const loaded = await place.load();
  if (!loaded.ok) return FingerprintKey.none(loaded.reason);
  if (loaded.key) return FingerprintKey.keyed(loaded.key, place.description);
  if (use === 'read') return FingerprintKey.none(`no key exists yet in the ${place.description} (the first apply creates it)`);
  const created = await place.create(randomBytes(KEY_BYTES));
  if (!created.ok) return FingerprintKey.none(created.reason);
  return FingerprintKey.keyed(created.key, place.description);
}

/** A plan that spent more than this on slow hashes says how to avoid them. */
export const SLOW_HASHING_HINT_MS = 1000;

/** The one-line hint of a plan that spent more than a second on slow hashes; undefined otherwise. */
export function slowHashingHint(key: FingerprintKey): string | undefined {
  if (key.hashingMs <= SLOW_HASHING_HINT_MS) return undefined;
  return (
    `secret fingerprints took ${(key.hashingMs / 1000).toFixed(1)} s of slow hashing because no fingerprint key is available ` +
    `(${key.origin}). Set ${STATE_KEY_ENV}, or let secretform keep a key on the service: enable a KV v2 mount ` +
    `"${DEFAULT_KEY_MOUNT}" (or set ${KEY_MOUNT_ENV}) and apply once.`
  );
}

function trimSlashes(value: string): string {
  return value.replace(/^\/+|\/+$/g, '');
}
