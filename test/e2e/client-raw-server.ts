// A tiny HTTP/1.1 server on node:net (and node:tls) for the client's end-to-end tests: it accepts the
// LIST method (node:http does not), keeps connections alive, counts sockets, and lets a test answer with
// any status, headers and body shape, or drop the connection.
import * as net from 'node:net';
import * as tls from 'node:tls';
import { STATUS_CODES } from 'node:http';

export interface RawRequest {
  method: string;
  /** Path with query string, as received. */
  path: string;
  /** Header names lower-cased. */
  headers: Record<string, string>;
  body: string;
  /** Which accepted socket carried the request (1-based). */
  connection: number;
}

export interface RawReply {
  status: number;
  headers?: Record<string, string>;
  /** A string is sent as is; anything else as JSON. Omitted: empty body. */
  body?: unknown;
}

/** 'destroy' closes the socket without answering. */
export type RawHandler = (request: RawRequest) => RawReply | 'destroy' | Promise<RawReply | 'destroy'>;

export interface RawServer {
  url: string;
  port: number;
  requests: RawRequest[];
  /** Sockets accepted so far (TCP connections, or completed TLS handshakes). */
  connections(): number;
  close(): Promise<void>;
}

export async function startRawServer(handler: RawHandler, tlsOptions?: tls.TlsOptions): Promise<RawServer> {
  const requests: RawRequest[] = [];
  const sockets = new Set<net.Socket>();
  let accepted = 0;

  const onSocket = (socket: net.Socket): void => {
    accepted++;
    const connection = accepted;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let buffer = Buffer.alloc(0);
    let busy = false;

    const drain = async (): Promise<void> => {
      if (busy) return;
      busy = true;
      try {
        for (;;) {
          const headerEnd = buffer.indexOf('\r\n\r\n');
          if (headerEnd < 0) return;
          const [requestLine, ...headerLines] = buffer.subarray(0, headerEnd).toString('latin1').split('\r\n');
          const headers: Record<string, string> = {};
          for (const line of headerLines) {
            const colon = line.indexOf(':');
            headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
          }
          const length = Number(headers['content-length'] ?? '0');
          if (buffer.length < headerEnd + 4 + length) return;
          const body = buffer.subarray(headerEnd + 4, headerEnd + 4 + length).toString('utf8');
          buffer = buffer.subarray(headerEnd + 4 + length);
          const [method, path] = requestLine.split(' ');
          const request: RawRequest = { method, path, headers, body, connection };
          requests.push(request);
          const reply = await handler(request);
          if (reply === 'destroy') {
            socket.destroy();
            return;
          }
          socket.write(serialize(reply));
        }
      } finally {
        busy = false;
      }
    };

    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      void drain();
    });
  };

  const server = tlsOptions ? tls.createServer(tlsOptions, onSocket) : net.createServer(onSocket);
  // A refused handshake never reaches onSocket; keep the server quiet about it.
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `${tlsOptions ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    requests,
    connections: () => accepted,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function serialize(reply: RawReply): Buffer {
  const body =
    reply.body === undefined ? Buffer.alloc(0) : Buffer.from(typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body));
  const headers: Record<string, string> = {
    'content-length': String(body.length),
    connection: 'keep-alive',
    ...(reply.body !== undefined && typeof reply.body !== 'string' ? { 'content-type': 'application/json' } : {}),
    ...reply.headers,
  };
  const head = [`HTTP/1.1 ${reply.status} ${STATUS_CODES[reply.status] ?? 'Status'}`]
    .concat(Object.entries(headers).map(([name, value]) => `${name}: ${value}`))
    .join('\r\n');
  return Buffer.concat([Buffer.from(`${head}\r\n\r\n`, 'latin1'), body]);
}

/** A standard envelope around `data`, as deployed servers send it. */
export function envelopeOf(data: unknown, warnings: string[] | null = null): Record<string, unknown> {
  return {
    request_id: 'req-1',
    lease_id: '',
    renewable: false,
    lease_duration: 0,
    data,
    wrap_info: null,
    warnings,
    auth: null,
  };
}
