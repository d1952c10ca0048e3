import { createHmac, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * A secret's fingerprint in state: enough to tell whether the desired value changed since it was applied,
 * never enough to recover it, and never testable against guesses with the state alone. Two schemes:
 * - `hmac-sha256:<key id>:<mac>`: keyed with a key that never enters the state (SECRETFORM_STATE_KEY, or the
 *   stack's random key kept on the service: see fingerprint-key-source.ts). Fast: plans stay at the network floor.
 * - `scrypt:N:r:p:<salt>:<hash>`: a slow salted hash (per-fingerprint random salt), the fallback when no key is
 *   available. Computed on libuv's thread pool (async crypto.scrypt), never synchronously on the event loop.
 * A fast unsalted hash is never used: it would let anyone holding the state test guesses at full speed.
 */
export type Fingerprint = string;

export const STATE_KEY_ENV = 'SECRETFORM_STATE_KEY';

const SCRYPT = { N: 1 << 14, r: 8, p: 1, keylen: 32 } as const;
const KEY_ID_LABEL = 'secretform-state-key-id';

export type FingerprintComparison = 'same' | 'different' | 'incomparable';

/**
 * The fingerprint key of one run, and the comparisons made with it. Comparisons of the slow scheme are made
 * ahead of the diff (`prepare`, on the thread pool, memoised), so the diff itself compares synchronously.
 */
export class FingerprintKey {
  readonly #key: Buffer | undefined;
  readonly #keyId: string | undefined;
  /** Slow comparisons started by `prepare`: fingerprint -> value -> same? (memory only). */
  readonly #slow = new Map<Fingerprint, Map<string, Promise<boolean>>>();
  readonly #settled = new Map<Fingerprint, Map<string, boolean>>();
  /** Milliseconds of wall time spent waiting for slow hashes in this run. */
  hashingMs = 0;

  private constructor(
    key: Buffer | undefined,
    /** Where the key comes from, or why there is none (for hints; never the key). */
    readonly origin: string,
  ) {
    this.#key = key;
    this.#keyId = key ? keyId(key) : undefined;
  }

  /** A key known to this run (HMAC fingerprints). */
  static keyed(key: Buffer, origin: string): FingerprintKey {
    if (key.length === 0) throw new Error('a fingerprint key must not be empty');
    return new FingerprintKey(Buffer.from(key), origin);
  }

  /** No key: new fingerprints use the slow salted hash; `reason` says why (for the hint). */
  static none(reason: string): FingerprintKey {
    return new FingerprintKey(undefined, reason);
  }

  get hasKey(): boolean {
    return this.#key !== undefined;
  }

  /** The public id of the key (in every HMAC fingerprint), undefined without a key. */
  get keyId(): string | undefined {
    return this.#keyId;
  }

  /**
   * A keyed MAC (HMAC-SHA256, base64url) of `data` for `purpose` (e.g. a saved plan's content), under a key derived
   * from this one for that purpose only, so a MAC is never a fingerprint of the same text. Undefined without a key.
   */
  mac(purpose: string, data: string): string | undefined {
    if (!this.#key) return undefined;
    const derived = createHmac('sha256', this.#key).update(`secretform mac: ${purpose}`, 'utf8').digest();
    return hmac(derived, data).toString('base64url');
  }

  /** The fingerprint of a value about to be written (or adopted). */
  async fingerprint(value: string): Promise<Fingerprint> {
    if (this.#key) return `hmac-sha256:${this.#keyId}:${hmac(this.#key, value).toString('base64url')}`;
    const salt = randomBytes(16);
    const started = Date.now();
    const hash = await scryptAsync(value, salt, SCRYPT.keylen, { N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p });
    this.hashingMs += Date.now() - started;
    return `scrypt:${SCRYPT.N}:${SCRYPT.r}:${SCRYPT.p}:${salt.toString('base64url')}:${hash.toString('base64url')}`;
  }

  /**
   * Makes the slow comparisons of these (value, fingerprint) pairs, all at once on the thread pool, so that
   * `compare` can answer them. Fast (keyed) fingerprints need no preparation. Repeated pairs are hashed once.
   */
  async prepare(pairs: Iterable<readonly [value: string, fingerprint: Fingerprint]>): Promise<void> {
    const pending: Promise<void>[] = [];
    for (const [value, fingerprint] of pairs) {
      const parsed = parseScrypt(fingerprint);
      if (!parsed) continue;
      let byValue = this.#slow.get(fingerprint);
      if (!byValue) this.#slow.set(fingerprint, (byValue = new Map<string, Promise<boolean>>()));
      if (byValue.has(value)) continue;
      const check = scryptAsync(value, parsed.salt, parsed.expected.length, parsed.options).then((actual) => equalBytes(parsed.expected, actual));
      byValue.set(value, check);
      pending.push(check.then((same) => {
        let settled = this.#settled.get(fingerprint);
        if (!settled) this.#settled.set(fingerprint, (settled = new Map<string, boolean>()));
        settled.set(value, same);
      }));
    }
    if (pending.length === 0) return;
    const started = Date.now();
    await Promise.all(pending);
    this.hashingMs += Date.now() - started;
  }

  /**
   * Whether `value` is the secret that `fingerprint` was made from. `incomparable` when the fingerprint was
   * made with another key (or with a key this run does not have), or is of an unknown form. A slow fingerprint
   * must have been `prepare`d: comparing it here would block the event loop.
   */
  compare(value: string, fingerprint: Fingerprint): FingerprintComparison {
    const parts = fingerprint.split(':');
    if (parts[0] === 'hmac-sha256' && parts.length === 3) {
      if (!this.#key || this.#keyId !== parts[1]) return 'incomparable';
      return equalBytes(Buffer.from(parts[2], 'base64url'), hmac(this.#key, value)) ? 'same' : 'different';
    }
    if (parseScrypt(fingerprint)) {
      const same = this.#settled.get(fingerprint)?.get(value);
      if (same === undefined) throw new Error('internal error: a slow fingerprint was compared before FingerprintKey.prepare');
      return same ? 'same' : 'different';
    }
    return 'incomparable';
  }
}

/** Whether a fingerprint is of the slow scheme (its comparison needs `prepare`). */
export function isSlowFingerprint(fingerprint: Fingerprint): boolean {
  return parseScrypt(fingerprint) !== undefined;
}

/** The key of SECRETFORM_STATE_KEY, or undefined when it is not set. */
export function fingerprintKeyFromEnv(env: NodeJS.ProcessEnv = process.env): FingerprintKey | undefined {
  const key = env[STATE_KEY_ENV];
  return key ? FingerprintKey.keyed(Buffer.from(key, 'utf8'), STATE_KEY_ENV) : undefined;
}

/** Compares with a run's key (see FingerprintKey.compare). */
export function compareSecret(value: string, fingerprint: Fingerprint, fpKey: FingerprintKey): FingerprintComparison {
  return fpKey.compare(value, fingerprint);
}

/** A short public id of the HMAC key, so a fingerprint made with another key is recognised as incomparable. */
function keyId(key: Buffer): string {
  return createHmac('sha256', key).update(KEY_ID_LABEL).digest('base64url').slice(0, 12);
}

function hmac(key: Buffer, value: string): Buffer {
  return createHmac('sha256', key).update(value, 'utf8').digest();
}

interface ParsedScrypt {
  options: ScryptOptions;
  salt: Buffer;
  expected: Buffer;
}

/** The parameters of a `scrypt:` fingerprint, within sane bounds (a damaged state must not exhaust memory). */
function parseScrypt(fingerprint: Fingerprint): ParsedScrypt | undefined {
  const parts = fingerprint.split(':');
  if (parts[0] !== 'scrypt' || parts.length !== 6) return undefined;
  const [N, r, p] = parts.slice(1, 4).map((n) => (/^\d+$/.test(n) ? parseInt(n, 10) : NaN));
  if (!(N >= 2 && N <= 1 << 20 && (N & (N - 1)) === 0 && r >= 1 && r <= 32 && p >= 1 && p <= 16)) return undefined;
  const salt = Buffer.from(parts[4], 'base64url');
  const expected = Buffer.from(parts[5], 'base64url');
  if (expected.length === 0) return undefined;
  return { options: { N, r, p, maxmem: 256 * N * r + 1024 * 1024 }, salt, expected };
}

function scryptAsync(value: string, salt: Buffer, keylen: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(value, salt, keylen, options, (error, derived) => (error ? reject(error) : resolve(derived)));
  });
}

function equalBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
