import { createHash, createHmac } from 'node:crypto';
import { FingerprintKey, fingerprintKeyFromEnv, isSlowFingerprint } from '../../src/engine/state/fingerprint';
import { resolveFingerprintKey, slowHashingHint, type FingerprintKeySource, type KeyCreate, type KeyLoad } from '../../src/engine/state/fingerprint-key-source';

/** Every fast unsalted digest of `value` in the encodings a state file could hold. */
function unsaltedDigests(value: string): string[] {
  const digests: string[] = [];
  for (const algorithm of ['md5', 'sha1', 'sha256', 'sha512']) {
    const digest = createHash(algorithm).update(value, 'utf8').digest();
    digests.push(digest.toString('hex'), digest.toString('base64'), digest.toString('base64url'));
  }
  return digests;
}

function expectNoValueNorUnsaltedHash(fingerprint: string, value: string): void {
  expect(fingerprint).not.toContain(value);
  expect(fingerprint).not.toContain(Buffer.from(value).toString('base64url'));
  for (const digest of unsaltedDigests(value)) expect(fingerprint).not.toContain(digest);
}

describe('secret fingerprints', () => {
  it('recognises the same secret and a changed one with the slow salted scheme (prepared on the thread pool)', async () => {
    const key = FingerprintKey.none('test');
    const fp = await key.fingerprint('hunter2-secret');
    expect(isSlowFingerprint(fp)).toBe(true);
    expectNoValueNorUnsaltedHash(fp, 'hunter2-secret');
    // Salted: the same value fingerprints differently each time.
    expect(await key.fingerprint('hunter2-secret')).not.toBe(fp);

    const reader = FingerprintKey.none('test');
    await reader.prepare([['hunter2-secret', fp], ['hunter3-secret', fp], ['hunter2-secret', fp]]);
    expect(reader.compare('hunter2-secret', fp)).toBe('same');
    expect(reader.compare('hunter3-secret', fp)).toBe('different');
    expect(reader.hashingMs).toBeGreaterThanOrEqual(0);
  });

  it('refuses to compare a slow fingerprint that was not prepared (it would block the event loop)', async () => {
    const fp = await FingerprintKey.none('test').fingerprint('value-1');
    expect(() => FingerprintKey.none('test').compare('value-1', fp)).toThrow(/before FingerprintKey.prepare/);
  });

  it('uses HMAC with a key and calls a fingerprint made with another key, or without the key, incomparable', async () => {
    const key = FingerprintKey.keyed(Buffer.from('state-key-1'), 'test');
    const fp = await key.fingerprint('s3cret-value');
    expect(fp.startsWith(`hmac-sha256:${key.keyId}:`)).toBe(true);
    expectNoValueNorUnsaltedHash(fp, 's3cret-value');
    expect(key.compare('s3cret-value', fp)).toBe('same');
    expect(key.compare('other-value', fp)).toBe('different');
    expect(FingerprintKey.keyed(Buffer.from('state-key-2'), 'test').compare('s3cret-value', fp)).toBe('incomparable');
    expect(FingerprintKey.none('test').compare('s3cret-value', fp)).toBe('incomparable');
    // Keyed: the mac is not an HMAC with any key an attacker could guess from the state (the key id is public).
    expect(fp).not.toContain(createHmac('sha256', key.keyId!).update('s3cret-value').digest('base64url'));
  });

  it('treats unknown and out-of-bounds fingerprints as incomparable instead of hashing with them', async () => {
    const key = FingerprintKey.none('test');
    const huge = 'scrypt:1073741824:8:1:c2FsdA:aGFzaA';
    expect(isSlowFingerprint(huge)).toBe(false);
    await key.prepare([['v', huge]]);
    expect(key.compare('v', huge)).toBe('incomparable');
    expect(key.compare('v', 'md5:abc')).toBe('incomparable');
  });

  it('reads SECRETFORM_STATE_KEY from the environment', () => {
    expect(fingerprintKeyFromEnv({})).toBeUndefined();
    expect(fingerprintKeyFromEnv({ SECRETFORM_STATE_KEY: 'k' })?.hasKey).toBe(true);
  });
});

/** A key source in memory, counting its calls. */
function memorySource(initial?: Buffer, failCreate = false): FingerprintKeySource & { key?: Buffer; loads: number; creates: number } {
  return {
    description: 'memory',
    key: initial,
    loads: 0,
    creates: 0,
    async load(): Promise<KeyLoad> {
      this.loads++;
      return { ok: true, key: this.key };
    },
    async create(key: Buffer): Promise<KeyCreate> {
      this.creates++;
      if (failCreate) return { ok: false, reason: 'no place to write' };
      this.key ??= key;
      return { ok: true, key: this.key };
    },
  };
}

describe('the fingerprint key of a run', () => {
  it('prefers SECRETFORM_STATE_KEY and then asks no source', async () => {
    const source = memorySource();
    const key = await resolveFingerprintKey({ SECRETFORM_STATE_KEY: 'k' }, () => source, 'write');
    expect(key.hasKey).toBe(true);
    expect(source.loads + source.creates).toBe(0);
  });

  it('only reads when planning, creates a random key once when writing, and reuses it afterwards', async () => {
    const source = memorySource();
    const planned = await resolveFingerprintKey({}, () => source, 'read');
    expect(planned.hasKey).toBe(false);
    expect(planned.origin).toMatch(/no key exists yet in the memory/);
    expect(source.creates).toBe(0);

    const first = await resolveFingerprintKey({}, () => source, 'write');
    expect(first.hasKey).toBe(true);
    expect(source.key).toHaveLength(32);
    const second = await resolveFingerprintKey({}, () => source, 'write');
    expect(second.keyId).toBe(first.keyId);
    expect(source.creates).toBe(1);
  });

  it('falls back to the slow salted scheme, with the reason, when the key cannot be stored', async () => {
    const key = await resolveFingerprintKey({}, () => memorySource(undefined, true), 'write');
    expect(key.hasKey).toBe(false);
    expect(key.origin).toBe('no place to write');
    expect(isSlowFingerprint(await key.fingerprint('x'))).toBe(true);
  });
});

describe('the slow hashing hint', () => {
  it('is one line, only after more than a second of slow hashing, saying why and what to set', () => {
    const key = FingerprintKey.none('cannot create the KV v2 secret secret/x on the service (a KV v2 mount "secret" the token can write is needed): 404');
    key.hashingMs = 1000;
    expect(slowHashingHint(key)).toBeUndefined();
    key.hashingMs = 2345;
    const hint = slowHashingHint(key)!;
    expect(hint).not.toContain('\n');
    expect(hint).toMatch(/^secret fingerprints took 2\.3 s of slow hashing because no fingerprint key is available \(cannot create/);
    expect(hint).toContain('Set SECRETFORM_STATE_KEY');
    expect(hint).toContain('SECRETFORM_FINGERPRINT_KEY_MOUNT');
  });
});
