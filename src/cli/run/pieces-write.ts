/**
 * A long text made in pieces (report/json-pieces.ts) written to a stream while it is being made.
 *
 * Why: stdout is often a pipe (a CI step, the bench, `| jq`) that holds 64 KB; its reader takes a 9 MB report in
 * ~140 reads. Written only once it was all made, the text waited in the process while the reader took it (~110 ms
 * for a plan of 10,000 objects, after ~170 ms of making it), and the writes queued behind the first were copied
 * into one more 8 MB buffer at once. Here each slice of ~32 KB is handed to the stream as soon as it is made, and
 * between two slices the event loop turns once, so that whatever the reader took meanwhile is refilled: the
 * reader reads while the text is made (a turn writes at most what the pipe has room for, so turns come often:
 * with slices of 64 KB a node reader on a loaded machine waited longer for the pipe than with 32 or 16 KB). The
 * process waits for the reader only when the stream still holds more than BACKLOG_LENGTH of the text (a reader
 * much slower than the making).
 *
 * Pieces are joined into slices without being cut, so a slice ends where a piece does: between two JSON tokens,
 * never inside a string (the terminal guard, terminal-output.ts, sees each character as in the whole text).
 */
import type { OutputStream } from './io';

/** A slice is written once it is at least this long (half a pipe's capacity on Linux). */
export const PIECES_SLICE_LENGTH = 32 * 1024;

/** How much of the text the stream may hold, not yet passed on, before the making waits for the reader. */
export const BACKLOG_LENGTH = 1024 * 1024;

/** A stream whose writes may complete later (a node Writable: a pipe, a socket). */
interface QueueingStream extends OutputStream {
  write(chunk: string, callback?: (error?: Error | null) => void): unknown;
  readonly writableLength: number;
}

/**
 * Writes the pieces to `stream` in order, in slices of at least `sliceLength` characters (the last may be shorter).
 * On a stream that takes each write at once (a file, a terminal, a test's string) every write happens before this
 * returns, with no turn of the event loop. Resolves once every slice is handed to the stream (the stream may still
 * hold up to `backlog` of it). Stops at a write that fails (the reader went away: the output guard,
 * output-guard.ts, gives the exit code).
 */
export async function writePieces(stream: OutputStream, pieces: Iterable<string>, sliceLength = PIECES_SLICE_LENGTH, backlog = BACKLOG_LENGTH): Promise<void> {
  const queueing = isQueueing(stream);
  let failed = false;
  let wake: (() => void) | undefined;
  const onPassedOn = (error?: Error | null) => {
    if (error !== undefined && error !== null) failed = true;
    const waiting = wake;
    wake = undefined;
    waiting?.();
  };
  let slice = '';
  for (const piece of pieces) {
    slice += piece;
    if (slice.length < sliceLength) continue;
    if (!queueing) {
      stream.write(slice);
      slice = '';
      continue;
    }
    if (failed) return;
    stream.write(slice, onPassedOn);
    slice = '';
    // A reader far behind: wait until the stream has passed on enough (each write's callback says it did).
    while (!failed && stream.writableLength > backlog) await new Promise<void>((resolve) => (wake = resolve));
    if (failed) return;
    // One turn of the event loop: the stream writes what the pipe has room for now, then the next slice is made.
    if (stream.writableLength > 0) await new Promise((resolve) => setImmediate(resolve));
  }
  if (slice.length > 0 && !failed) stream.write(slice);
}

function isQueueing(stream: OutputStream): stream is QueueingStream {
  return typeof (stream as Partial<QueueingStream>).writableLength === 'number';
}
