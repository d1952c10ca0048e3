import { SLICE_LENGTH, writeSliced } from '../../src/cli/run/sliced-write';
import { terminalText } from '../../src/cli/run/terminal-output';

/** A stream that keeps each write apart. */
function recorder(): { writes: string[]; write(chunk: string): boolean } {
  const writes: string[] = [];
  return { writes, write: (chunk: string) => (writes.push(chunk), true) };
}

describe('writeSliced', () => {
  test('a text shorter than a slice is one write of the text itself', () => {
    const stream = recorder();
    writeSliced(stream, 'short\ntext');
    expect(stream.writes).toEqual(['short\ntext']);
  });

  test('an empty text is still written once, as before', () => {
    const stream = recorder();
    writeSliced(stream, '');
    expect(stream.writes).toEqual(['']);
  });

  test('a long text is written in slices of whole lines, no longer than a slice, that join to the text', () => {
    const lines = Array.from({ length: 5000 }, (_, i) => `  "line ${i}": "${'x'.repeat(i % 400)}",`);
    const text = `${lines.join('\n')}\n}`;
    const stream = recorder();
    writeSliced(stream, text, 64 * 1024);
    expect(stream.writes.length).toBeGreaterThan(10);
    expect(stream.writes.join('')).toBe(text);
    for (const slice of stream.writes.slice(0, -1)) {
      expect(slice.endsWith('\n')).toBe(true);
      expect(slice.length).toBeLessThanOrEqual(64 * 1024);
    }
  });

  test('a line longer than a slice is written whole, never cut (a surrogate pair or colour code stays in one write)', () => {
    const long = `${'\u{1F600}'.repeat(40)}\x1b[31m${'y'.repeat(200)}\x1b[39m`;
    const text = `first\n${long}\nlast`;
    const stream = recorder();
    writeSliced(stream, text, 16);
    expect(stream.writes).toEqual(['first\n', `${long}\n`, 'last']);
    // What the terminal guard makes of the slices is what it makes of the whole text.
    expect(stream.writes.map((slice) => terminalText(slice, true)).join('')).toBe(terminalText(text, true));
    expect(stream.writes.map((slice) => terminalText(slice, false)).join('')).toBe(terminalText(text, false));
  });

  test('a text of several megabytes is written in slices of about a mebibyte', () => {
    const line = `${'z'.repeat(99)}\n`;
    const text = line.repeat(30_000);
    const stream = recorder();
    writeSliced(stream, text);
    expect(stream.writes.join('')).toBe(text);
    expect(stream.writes.length).toBe(Math.ceil(text.length / (Math.floor(SLICE_LENGTH / line.length) * line.length)));
  });
});
