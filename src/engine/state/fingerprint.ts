import { createHmac, randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';

/**
 * A secret's fingerprint in state: enough to tell whether the desired value changed since it was applied,
 * never enough to recover it. Two schemes:
 * - `hmac-sha256`: keyed with SECRETFORM_STATE_KEY, which never enters the state; fast, so plans stay quick.
 * - `scrypt`: a slow salted hash (per-fingerprint random salt) when no key is configured.
 * A fast unsalted hash is never used: it would let anyone holding the state test guesses at full speed.
 */
export type Fingerprint = string;

export const STATE_KEY_ENV = 'SECRETFORM_STATE_KEY';

const SCRYPT = { N: 1 << 14, r: 8, p: 1, keylen: 32 } as const;
const KEY_ID_LABEL = 'secretform-state-key-id';

export interface FingerprintKey {
  /** The HMAC key, or undefined for the scrypt scheme. */
  key?: Buffer;
}

export function fingerprintKeyFromEnv(env: NodeJS.ProcessEnv = process.env): FingerprintKey {
  const key = env[STATE_KEY_ENV];
  return key ? { key: Buffer.from(key, 'utf8') } : {};
}

/** A short public id of the HMAC key, so a fingerprint made with another key is recognised as incomparable. */
function keyId(key: Buffer): string {
  return createHmac('sha256', key).update(KEY_ID_LABEL).digest('base64url').slice(0, 12);
}

export function fingerprintSecret(value: string, fpKey: FingerprintKey): Fingerprint {
  if (fpKey.key) {
    const mac = createHmac('sha256', fpKey.key).update(value, 'utf8').digest('base64url');
    return `hmac-sha256:${keyId(fpKey.key)}:${mac}`;
  }
  const salt = randomBytes(16);
  const hash = scryptSync(value, salt, SCRYPT.keylen, { N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p });
  return `scrypt:${SCRYPT.N}:${SCRYPT.r}:${SCRYPT.p}:${salt.toString('base64url')}:${hash.toString('base64url')}`;
}

export type FingerprintComparison = 'same' | 'different' | 'incomparable';

/**
 * Whether `value` is the secret that `fingerprint` was made from. `incomparable` when the fingerprint was
 * made with an HMAC key other than the one configured now (or with a key that is no longer configured).
 */
export function compareSecret(value: string, fingerprint: Fingerprint, fpKey: FingerprintKey): FingerprintComparison {
  const parts = fingerprint.split(':');
  if (parts[0] === 'hmac-sha256' && parts.length === 3) {
    if (!fpKey.key || keyId(fpKey.key) !== parts[1]) return 'incomparable';
    const expected = Buffer.from(parts[2], 'base64url');
    const actual = createHmac('sha256', fpKey.key).update(value, 'utf8').digest();
    return equalBytes(expected, actual) ? 'same' : 'different';
  }
  if (parts[0] === 'scrypt' && parts.length === 6) {
    const [N, r, p] = parts.slice(1, 4).map((n) => parseInt(n, 10));
    const salt = Buffer.from(parts[4], 'base64url');
    const expected = Buffer.from(parts[5], 'base64url');
    const actual = scryptSync(value, salt, expected.length, { N, r, p, maxmem: 256 * N * r + 1024 * 1024 });
    return equalBytes(expected, actual) ? 'same' : 'different';
  }
  return 'incomparable';
}

function equalBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
