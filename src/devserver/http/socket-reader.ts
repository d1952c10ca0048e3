import type { Socket } from 'node:net';

/** Stop reading from the socket while this much unread data is buffered (backpressure). */
const HIGH_WATER_BYTES = 1024 * 1024;

export class LineTooLongError extends Error {}

/**
 * Pull-style reading from a socket: `readLine` and `readBytes` wait until enough data has arrived, and return
 * undefined when the peer closed the connection first. Buffered data is kept as a list of chunks, so large
 * bodies are copied once, not once per chunk.
 */
export class SocketReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private ended = false;
  private wake: (() => void) | undefined;

  constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.chunks.push(chunk);
      this.buffered += chunk.length;
      if (this.buffered > HIGH_WATER_BYTES && !this.wake) socket.pause();
      this.notify();
    });
    const finish = () => {
      this.ended = true;
      this.notify();
    };
    socket.on('end', finish);
    socket.on('close', finish);
  }

  /** True when unread bytes are waiting (a pipelined request). */
  get hasBufferedData(): boolean {
    return this.buffered > 0;
  }

  /** Waits until at least one unread byte is buffered (true) or the peer closed the connection (false). */
  async waitForByte(): Promise<boolean> {
    while (this.buffered === 0) {
      if (!(await this.waitForData())) return false;
    }
    return true;
  }

  /** Reads through the next CRLF (or bare LF) and returns the line without it. */
  async readLine(maxBytes: number): Promise<string | undefined> {
    for (;;) {
      if (this.chunks.length > 0) {
        const first = this.chunks[0];
        const newline = first.indexOf(0x0a);
        if (newline >= 0) {
          if (newline > maxBytes) throw new LineTooLongError();
          const end = newline > 0 && first[newline - 1] === 0x0d ? newline - 1 : newline;
          const line = first.subarray(0, end).toString('latin1');
          this.consume(newline + 1);
          return line;
        }
        if (first.length > maxBytes) throw new LineTooLongError();
        if (this.chunks.length > 1) {
          // Merge the first two chunks and search again; bounded by maxBytes.
          const merged = Buffer.concat([first, this.chunks[1]]);
          this.chunks.splice(0, 2, merged);
          continue;
        }
      }
      if (!(await this.waitForData())) return undefined;
    }
  }

  /** Reads exactly `count` bytes. */
  async readBytes(count: number): Promise<Buffer | undefined> {
    while (this.buffered < count) {
      if (!(await this.waitForData())) return undefined;
    }
    const parts: Buffer[] = [];
    let needed = count;
    while (needed > 0) {
      const first = this.chunks[0];
      if (first.length <= needed) {
        parts.push(first);
        this.chunks.shift();
        needed -= first.length;
      } else {
        parts.push(first.subarray(0, needed));
        this.chunks[0] = first.subarray(needed);
        needed = 0;
      }
    }
    this.buffered -= count;
    return parts.length === 1 ? parts[0] : Buffer.concat(parts, count);
  }

  /** Throws away everything that arrives from now on (after a response that ends the connection). */
  discardAll(): void {
    this.chunks = [];
    this.buffered = 0;
    this.socket.removeAllListeners('data');
    this.socket.on('data', () => undefined);
    this.socket.resume();
  }

  private consume(count: number): void {
    this.chunks[0] = this.chunks[0].subarray(count);
    if (this.chunks[0].length === 0) this.chunks.shift();
    this.buffered -= count;
  }

  private waitForData(): Promise<boolean> {
    if (this.ended) return Promise.resolve(false);
    return new Promise((resolve) => {
      this.wake = () => resolve(true);
      this.socket.resume();
    }).then(() => !(this.ended && this.buffered === 0));
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
