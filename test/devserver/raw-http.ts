// Raw-socket helpers for HTTP-level tests of the dev server: send exact bytes, read back every response.
import net from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  /** Parsed JSON, or the text when it is not JSON, or undefined when empty. */
  body: any;
}

export interface RawExchange {
  responses: RawResponse[];
  /** The server ended or closed the connection before `waitMs` ran out. */
  closedByServer: boolean;
  /** Milliseconds from connecting until the first response byte arrived (undefined: none). */
  firstByteMs?: number;
  /** Bytes after the last complete response that do not form one. */
  leftover: string;
}

export interface RawOptions {
  /** Give up waiting for the server to close after this long (default 2000 ms). */
  waitMs?: number;
  /** Stop as soon as this many complete responses arrived. */
  expectResponses?: number;
  /** Half-close (FIN) after writing. */
  endAfterWrite?: boolean;
  /** The requests were HEAD: responses carry Content-Length but no body. */
  head?: boolean;
}

/** Writes `parts` (each written separately) on a new connection and collects what the server answers. */
export function exchange(port: number, parts: (string | Buffer)[], options: RawOptions = {}): Promise<RawExchange> {
  const waitMs = options.waitMs ?? 2000;
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let firstByteMs: number | undefined;
    let closedByServer = false;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const parsed = parseResponses(Buffer.concat(chunks), options.head);
      resolve({ responses: parsed.responses, closedByServer, firstByteMs, leftover: parsed.leftover });
    };
    const timer = setTimeout(finish, waitMs);
    socket.on('data', (chunk) => {
      firstByteMs ??= Date.now() - started;
      chunks.push(chunk);
      if (options.expectResponses !== undefined && parseResponses(Buffer.concat(chunks), options.head).responses.length >= options.expectResponses) finish();
    });
    socket.on('end', () => {
      closedByServer = true;
      finish();
    });
    socket.on('close', () => {
      closedByServer = true;
      finish();
    });
    // A reset after the server answered and closed is expected when it refuses to read an upload.
    socket.on('error', () => finish());
    socket.on('connect', () => {
      for (const part of parts) socket.write(part);
      if (options.endAfterWrite) socket.end();
    });
  });
}

/** Splits a byte stream into HTTP/1.1 responses framed by Content-Length (the dev server always sends one). */
export function parseResponses(data: Buffer, headRequests = false): { responses: RawResponse[]; leftover: string } {
  const responses: RawResponse[] = [];
  let offset = 0;
  for (;;) {
    const headEnd = data.indexOf('\r\n\r\n', offset);
    if (headEnd < 0) break;
    const head = data.subarray(offset, headEnd).toString('latin1').split('\r\n');
    const status = Number(head[0].split(' ')[1]);
    const headers: Record<string, string> = {};
    for (const line of head.slice(1)) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = headRequests || status === 100 || status === 204 || status === 304 ? 0 : Number(headers['content-length'] ?? 0);
    const bodyStart = headEnd + 4;
    if (data.length < bodyStart + length) break;
    const text = data.subarray(bodyStart, bodyStart + length).toString('utf8');
    let body: unknown;
    if (text !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    offset = bodyStart + length;
    if (status === 100) continue;
    responses.push({ status, headers, body });
  }
  return { responses, leftover: data.subarray(offset).toString('latin1') };
}
