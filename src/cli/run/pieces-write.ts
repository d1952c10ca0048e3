/**
 * A long text made in pieces (report/json-pieces.ts) written to a stream while it is being made.
 *
 * Why: stdout is often a pipe (a CI step, the bench, `| jq`) that holds 64 KB; its reader takes a 9 MB report in
 * ~140 reads. Written only once it is all made, the text waited in the process while the reader took it (~110 ms
 * for a plan of 10,000 objects, after ~170 ms of making it), and the writes queued behind the first were copied
 * into one more 8 MB buffer at once. Here each slice of ~64 KB is handed to the stream as soon as it is made, and
 * the next one is made while the reader takes it: the two overlap, and no write waits in a queue.
 *
 * Pieces are joined into slices without being cut, so a slice ends where a piece does: between two JSON tokens,
 * never inside a string (the terminal guard, terminal-output.ts, sees each character as in the whole text).
 */
import type { OutputStream } from './io';

/** A slice is written once it is at least this long (a pipe's capacity on Linux: an empty pipe takes it whole). */
export const PIECES_SLICE_LENGTH = 64 * 1024;

/** A stream whose writes may complete later (a node Writable: a pipe, a socket). */
interface QueueingStream extends OutputStream {
  write(chunk: string, callback?: (error?: Error | null) => void): unknown;
  readonly writableLength: number;
}

/**
 * Writes the pieces to `stream` in order, in slices of at least `sliceLength` characters (the last may be shorter).
 * A slice the stream could not pass on at once is waited for before the next slice is written, after that next
 * slice is made. On a stream that takes each write at once (a file, a terminal, a test's string) every write
 * happens before this returns, with no turn of the event loop. Stops at a write that fails (the reader went away:
 * the output guard, output-guard.ts, gives the exit code).
 */
export async function writePieces(stream: OutputStream, pieces: Iterable<string>, sliceLength = PIECES_SLICE_LENGTH): Promise<void> {
  const writes: Writes = { failed: false, pending: undefined };
  let slice = '';
  for (const piece of pieces) {
    slice += piece;
    if (slice.length < sliceLength) continue;
    // The slice before this one, if the stream still holds it, while this one was made: now it must be out.
    if (writes.pending !== undefined) await passedOn(writes);
    if (writes.failed) return;
    handOver(stream, slice, writes);
    slice = '';
  }
  if (writes.pending !== undefined) await passedOn(writes);
  if (slice.length > 0 && !writes.failed) stream.write(slice);
}

/** The writes so far: whether one failed, and the one the stream still holds, if any. */
interface Writes {
  failed: boolean;
  pending: Promise<void> | undefined;
}

async function passedOn(writes: Writes): Promise<void> {
  await writes.pending;
  writes.pending = undefined;
}

/** Writes `text`, remembered as pending when the stream could not pass it on at once. */
function handOver(stream: OutputStream, text: string, writes: Writes): void {
  if (!isQueueing(stream)) {
    stream.write(text);
    return;
  }
  let done = false;
  let resolve: (() => void) | undefined;
  stream.write(text, (error) => {
    if (error !== undefined && error !== null) writes.failed = true;
    done = true;
    resolve?.();
  });
  // Taken at once (the pipe had room): nothing to wait for (the callback itself comes on the next tick).
  if (stream.writableLength > 0 && !done) writes.pending = new Promise((settle) => (resolve = settle));
}

function isQueueing(stream: OutputStream): stream is QueueingStream {
  return typeof (stream as Partial<QueueingStream>).writableLength === 'number';
}
