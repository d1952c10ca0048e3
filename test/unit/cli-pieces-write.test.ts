/**
 * writePieces (cli/run/pieces-write.ts): the text written is the pieces joined, in slices of whole pieces; on a
 * stream that takes writes at once all is written before it returns; on one that holds writes (a full pipe) the
 * next slice is made after a turn of the event loop, and the making waits once the stream holds more than the
 * backlog; a failed write stops it; and through a real pipe to a slow reader the reader gets every byte.
 */
import { spawn } from 'node:child_process';
import { writePieces } from '../../src/cli/run/pieces-write';

/** A stream that keeps each write apart and takes it at once (a file, a terminal, a test's capture). */
function recorder(): { writes: string[]; write(chunk: string): boolean } {
  const writes: string[] = [];
  return { writes, write: (chunk: string) => (writes.push(chunk), true) };
}

/** A stream that holds each write until `release` (as a full pipe does), with node's `writableLength`. */
function holdingStream() {
  const writes: string[] = [];
  const held: Array<(error?: Error | null) => void> = [];
  const stream = {
    writes,
    writableLength: 0,
    write(chunk: string, callback?: (error?: Error | null) => void) {
      writes.push(chunk);
      stream.writableLength += chunk.length;
      held.push((error) => {
        stream.writableLength -= chunk.length;
        callback?.(error);
      });
      return false;
    },
    release(error?: Error) {
      held.shift()!(error);
    },
    get holding() {
      return held.length;
    },
  };
  return stream;
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('writePieces', () => {
  test('writes the pieces joined, in slices of whole pieces of at least the slice length, all before it returns', () => {
    const pieces = Array.from({ length: 100 }, (_, i) => `piece ${i};`);
    const stream = recorder();
    void writePieces(stream, pieces, 50);
    expect(stream.writes.join('')).toBe(pieces.join(''));
    for (const slice of stream.writes.slice(0, -1)) expect(slice.length).toBeGreaterThanOrEqual(50);
    // Each slice ends where a piece does.
    for (const slice of stream.writes) expect(slice.endsWith(';')).toBe(true);
  });

  test('a text shorter than a slice is one write; no pieces, no write', async () => {
    const short = recorder();
    await writePieces(short, ['{', '}', '\n']);
    expect(short.writes).toEqual(['{}\n']);
    const none = recorder();
    await writePieces(none, []);
    expect(none.writes).toEqual([]);
  });

  test('while the stream holds less than the backlog, the next slice is made and written after a turn of the loop; above it, the making waits', async () => {
    const made: number[] = [];
    function* pieces() {
      for (let i = 0; i < 6; i++) {
        made.push(i);
        yield `${'x'.repeat(9)}${i}`;
      }
    }
    const stream = holdingStream();
    // Slices of 10 characters; the stream may hold 25 before the making waits.
    const done = writePieces(stream, pieces(), 10, 25);
    // The first slice written and held: nothing more before the event loop has turned (the pipe refilled).
    expect(stream.writes).toEqual(['xxxxxxxxx0']);
    expect(made).toEqual([0]);
    await turn();
    await turn();
    await turn();
    // Held 30 > 25 after the third: the making waits for the stream.
    expect(stream.writes).toHaveLength(3);
    expect(made).toEqual([0, 1, 2]);
    stream.release();
    await turn();
    await turn();
    expect(made).toEqual([0, 1, 2, 3]);
    expect(stream.writes).toHaveLength(4);
    for (let i = 0; i < 6; i++) {
      if (stream.holding > 0) stream.release();
      await turn();
    }
    await done;
    expect(stream.writes.join('')).toBe(Array.from({ length: 6 }, (_, i) => `${'x'.repeat(9)}${i}`).join(''));
  });

  test('a write that fails stops the writing: nothing more is made or written', async () => {
    const made: number[] = [];
    function* pieces() {
      for (let i = 0; i < 10; i++) {
        made.push(i);
        yield `${i}`.padStart(10, '.');
      }
    }
    const stream = holdingStream();
    const done = writePieces(stream, pieces(), 10, 0);
    stream.release(new Error('EPIPE'));
    await done;
    expect(stream.writes).toHaveLength(1);
    expect(made).toEqual([0]);
  });

  test('through a pipe to a reader slower than the writer, the reader gets every byte in order', async () => {
    // A child that reads its stdin slowly and prints how many bytes it got and their sum.
    const reader = spawn(process.execPath, ['-e', `
      let bytes = 0, sum = 0;
      process.stdin.on('data', (chunk) => { bytes += chunk.length; for (const b of chunk) sum = (sum * 31 + b) % 1000000007; const until = Date.now() + 1; while (Date.now() < until); });
      process.stdin.on('end', () => process.stdout.write(bytes + ' ' + sum));
    `], { stdio: ['pipe', 'pipe', 'inherit'] });
    let answer = '';
    reader.stdout.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
    const closed = new Promise((resolve) => reader.on('close', resolve));
    const pieces = Array.from({ length: 3000 }, (_, i) => `{"item": ${i}, "text": "${'é'.repeat(i % 50)}"},\n`);
    await writePieces(reader.stdin, pieces);
    reader.stdin.end();
    await closed;
    const bytes = Buffer.from(pieces.join(''));
    let sum = 0;
    for (const b of bytes) sum = (sum * 31 + b) % 1000000007;
    expect(answer).toBe(`${bytes.length} ${sum}`);
  });
});
