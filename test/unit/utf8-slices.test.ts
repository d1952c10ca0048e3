/**
 * utf8-slices.ts: the slices of a text's UTF-8 bytes, joined, are exactly the text's bytes: surrogate pairs at the
 * reused buffer's edge are never cut, and many small pieces share slices.
 */
import { forEachUtf8Slice } from '../../src/utf8-slices';

function joined(pieces: string[]): { bytes: Buffer; slices: number } {
  const parts: Buffer[] = [];
  // Copied: a slice is valid only during its call.
  forEachUtf8Slice(pieces, (bytes) => parts.push(Buffer.from(bytes)));
  return { bytes: Buffer.concat(parts), slices: parts.length };
}

test('astral and two-byte characters across the buffer\'s edge come out whole', () => {
  for (const size of [1, 87_381, 262_143, 262_145, 600_000]) {
    const pieces = [`x${'\u{1F600}'.repeat(size)}`, 'é'.repeat(size), 'ascii'.repeat(size)];
    const { bytes } = joined(pieces);
    expect(bytes.equals(Buffer.from(pieces.join(''), 'utf8'))).toBe(true);
  }
});

test('small pieces share a slice, and nothing is consumed for an empty text', () => {
  const pieces = Array.from({ length: 10_000 }, (_, i) => `{"n":${i}}\u{1F600}`);
  const { bytes, slices } = joined(pieces);
  expect(bytes.equals(Buffer.from(pieces.join(''), 'utf8'))).toBe(true);
  expect(slices).toBe(1);
  expect(joined(['', '']).slices).toBe(0);
});
