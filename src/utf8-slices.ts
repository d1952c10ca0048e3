/**
 * A long text (the 15 MB `cdk.tf.json` of 10,000 objects) as UTF-8 bytes, encoded a slice at a time into one
 * reused 1 MB buffer rather than into one fresh buffer as large as the text: every 4 KB page of fresh memory is
 * a page fault on first touch (~14 us each on a small VM, ~70 ms for 15 MB). For bytes consumed at once: hashed
 * (the digest record) or written to a file (the stack's file).
 */

const SLICE_BYTES = 1 << 20;
let buffer: Buffer | undefined;

/**
 * Calls `consume` with consecutive slices of the UTF-8 bytes of `pieces` one after the other; a slice is valid only
 * during its call (the buffer is reused), and small pieces share a slice.
 */
export function forEachUtf8Slice(pieces: Iterable<string>, consume: (bytes: Buffer) => void): void {
  buffer ??= Buffer.allocUnsafe(SLICE_BYTES);
  const chunk = buffer;
  let used = 0;
  const flush = (): void => {
    if (used > 0) consume(chunk.subarray(0, used));
    used = 0;
  };
  for (const piece of pieces) {
    for (let at = 0; at < piece.length;) {
      // A UTF-16 unit takes at most 3 bytes in UTF-8 (a surrogate pair, two units, takes 4).
      let end = Math.min(piece.length, at + Math.floor((SLICE_BYTES - used) / 3));
      // A surrogate pair is never cut: each half alone would be encoded as U+FFFD.
      const last = piece.charCodeAt(end - 1);
      if (end < piece.length && last >= 0xd800 && last <= 0xdbff) end--;
      if (end - at < 2 && end < piece.length) {
        flush();
        continue;
      }
      used += chunk.write(at === 0 && end === piece.length ? piece : piece.slice(at, end), used, 'utf8');
      at = end;
    }
  }
  flush();
}
