/**
 * SHA-256 (FIPS 180-4) whose running state can be saved after a prefix of the input and resumed later with the
 * rest: node's `crypto` hashes faster but cannot hand out its state.
 *
 * Why: a stack's desired-state digest (desired-digest.ts) is SHA-256 over a canonical text whose last part is the
 * service address the run talks to, which synth does not know (it comes from SERVICE_ADDR at plan time). Synth
 * hashes everything before it once and writes the state down (desired-digest-record.ts); `secretform stacks`
 * then hashes the few bytes after it, instead of reading, parsing and re-hashing the whole synth output. The
 * digest is the same as hashing the whole text in one go: a unit test checks it against node's `crypto`.
 *
 * Only ever used on text that holds no secret value (secrets are references in the digest's input).
 */

/** Where a hash stands after some input: the chaining value, the whole blocks hashed, the bytes after them. */
export interface Sha256State {
  /** The eight 32-bit words of the chaining value, as 64 hex digits. */
  readonly chain: string;
  /** How many bytes the chaining value covers: a multiple of 64. */
  readonly hashedBytes: number;
  /** The input after those (fewer than 64 bytes), not hashed yet. */
  readonly pending: Uint8Array;
}

const BLOCK = 64;

const INITIAL = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

export class ResumableSha256 {
  private readonly chain: Int32Array;
  private readonly words = new Int32Array(64);
  private readonly block = new Uint8Array(BLOCK);
  private blockLength = 0;
  private hashedBytes: number;

  constructor(state?: Sha256State) {
    if (state === undefined) {
      this.chain = Int32Array.from(INITIAL);
      this.hashedBytes = 0;
      return;
    }
    if (!/^[0-9a-f]{64}$/.test(state.chain) || !Number.isSafeInteger(state.hashedBytes) || state.hashedBytes < 0 || state.hashedBytes % BLOCK !== 0 || state.pending.length >= BLOCK) {
      throw new RangeError('not a SHA-256 state: 64 hex digits, a whole number of 64-byte blocks and fewer than 64 bytes pending');
    }
    this.chain = new Int32Array(8);
    for (let i = 0; i < 8; i++) this.chain[i] = parseInt(state.chain.slice(i * 8, i * 8 + 8), 16) | 0;
    this.hashedBytes = state.hashedBytes;
    this.block.set(state.pending);
    this.blockLength = state.pending.length;
  }

  update(input: Uint8Array): this {
    let at = 0;
    if (this.blockLength > 0) {
      const taken = Math.min(BLOCK - this.blockLength, input.length);
      this.block.set(input.subarray(0, taken), this.blockLength);
      this.blockLength += taken;
      at = taken;
      if (this.blockLength < BLOCK) return this;
      this.compress(this.block, 0);
      this.blockLength = 0;
    }
    for (; at + BLOCK <= input.length; at += BLOCK) this.compress(input, at);
    this.block.set(input.subarray(at), 0);
    this.blockLength = input.length - at;
    return this;
  }

  /** Where the hash stands now, to resume it later (the instance can go on too). */
  state(): Sha256State {
    return { chain: hexOfWords(this.chain), hashedBytes: this.hashedBytes, pending: this.block.slice(0, this.blockLength) };
  }

  /** The digest as 64 hex digits; the instance is spent. */
  hexDigest(): string {
    const bits = (this.hashedBytes + this.blockLength) * 8;
    const padding = new Uint8Array((this.blockLength < 56 ? 56 : 120) - this.blockLength + 8);
    padding[0] = 0x80;
    const view = new DataView(padding.buffer);
    // The length in bits as a 64-bit big-endian number (inputs here stay far below 2^53 bits).
    view.setUint32(padding.length - 8, Math.floor(bits / 0x100000000));
    view.setUint32(padding.length - 4, bits >>> 0);
    this.update(padding);
    return hexOfWords(this.chain);
  }

  private compress(input: Uint8Array, at: number): void {
    const w = this.words;
    for (let i = 0; i < 16; i++, at += 4) w[i] = (input[at] << 24) | (input[at + 1] << 16) | (input[at + 2] << 8) | input[at + 3];
    for (let i = 16; i < 64; i++) {
      const a = w[i - 15];
      const b = w[i - 2];
      const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
      const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
    }
    const chain = this.chain;
    let a = chain[0], b = chain[1], c = chain[2], d = chain[3], e = chain[4], f = chain[5], g = chain[6], h = chain[7];
    for (let i = 0; i < 64; i++) {
      const t1 = (h + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + ((e & f) ^ (~e & g)) + K[i] + w[i]) | 0;
      const t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      h = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    chain[0] = (chain[0] + a) | 0;
    chain[1] = (chain[1] + b) | 0;
    chain[2] = (chain[2] + c) | 0;
    chain[3] = (chain[3] + d) | 0;
    chain[4] = (chain[4] + e) | 0;
    chain[5] = (chain[5] + f) | 0;
    chain[6] = (chain[6] + g) | 0;
    chain[7] = (chain[7] + h) | 0;
    this.hashedBytes += BLOCK;
  }
}

function hexOfWords(words: Int32Array): string {
  let text = '';
  for (const word of words) text += (word >>> 0).toString(16).padStart(8, '0');
  return text;
}
