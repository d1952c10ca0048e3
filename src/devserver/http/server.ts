import net from 'node:net';
import { SocketReader } from './socket-reader';
import { HttpProtocolError, readRequest, type HttpRequest } from './request';
import { serializeResponse, type HttpResponse } from './response';

export type { HttpRequest } from './request';
export type { HttpResponse } from './response';

export type HttpHandler = (request: HttpRequest) => Promise<HttpResponse>;

export interface HttpServerOptions {
  /** Largest accepted request body (default 32 MiB); larger -> 413. */
  maxRequestBytes?: number;
  /** Largest request line or header block (default 64 KiB); larger -> 431. */
  maxHeaderBytes?: number;
  /** Idle keep-alive connections are closed after this long (default 60 s). */
  idleTimeoutMs?: number;
}

const DEFAULT_MAX_REQUEST_BYTES = 32 * 1024 * 1024;
const DEFAULT_MAX_HEADER_BYTES = 64 * 1024;
const DEFAULT_IDLE_TIMEOUT_MS = 60_000;
/** After an error response that ends the connection, keep draining the client's upload this long. */
const LINGER_MS = 2_000;

/**
 * A small HTTP/1.1 server on node:net. Node's own http module refuses the `LIST` method before a handler
 * runs, and the service's clients send `LIST`, so requests are parsed here. One request at a time per
 * connection; keep-alive unless the client asks to close (or speaks HTTP/1.0 without keep-alive).
 */
export class HttpServer {
  private readonly server: net.Server;
  private readonly connections = new Map<net.Socket, { busy: boolean }>();
  private closing = false;
  private readonly maxRequestBytes: number;
  private readonly maxHeaderBytes: number;
  private readonly idleTimeoutMs: number;

  constructor(
    private readonly handler: HttpHandler,
    options: HttpServerOptions = {},
  ) {
    this.maxRequestBytes = options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES;
    this.maxHeaderBytes = options.maxHeaderBytes ?? DEFAULT_MAX_HEADER_BYTES;
    this.idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    this.server = net.createServer((socket) => this.serve(socket));
  }

  listen(port: number, host: string): Promise<net.AddressInfo> {
    return new Promise((resolve, reject) => {
      const onError = (error: Error) => reject(error);
      this.server.once('error', onError);
      this.server.listen(port, host, () => {
        this.server.off('error', onError);
        resolve(this.server.address() as net.AddressInfo);
      });
    });
  }

  /** Stops listening, closes idle connections now and busy ones after their current response. */
  close(): Promise<void> {
    this.closing = true;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const [socket, state] of this.connections) if (!state.busy) socket.destroy();
    return closed;
  }

  private serve(socket: net.Socket): void {
    const state = { busy: false };
    this.connections.set(socket, state);
    socket.on('close', () => this.connections.delete(socket));
    // A reset or a write after the peer left must not take the server down.
    socket.on('error', () => socket.destroy());
    socket.setNoDelay(true);
    socket.setTimeout(this.idleTimeoutMs, () => {
      if (!state.busy) socket.destroy();
    });
    if (this.closing) {
      socket.destroy();
      return;
    }
    this.runConnection(socket, state).catch(() => socket.destroy());
  }

  private async runConnection(socket: net.Socket, state: { busy: boolean }): Promise<void> {
    const reader = new SocketReader(socket);
    const remoteAddress = normalizeAddress(socket.remoteAddress);
    const limits = { maxRequestBytes: this.maxRequestBytes, maxHeaderBytes: this.maxHeaderBytes };
    while (!socket.destroyed && !this.closing) {
      let request: HttpRequest | undefined;
      try {
        request = await readRequest(reader, remoteAddress, limits, () => {
          socket.write('HTTP/1.1 100 Continue\r\n\r\n');
        });
      } catch (error) {
        if (error instanceof HttpProtocolError) {
          this.answerAndClose(socket, reader, { status: error.status, body: { errors: [error.message] } });
        } else {
          socket.destroy();
        }
        return;
      }
      if (request === undefined) {
        socket.end();
        return;
      }

      state.busy = true;
      let response: HttpResponse;
      try {
        response = await this.handler(request);
      } catch (error) {
        response = internalError(error);
      }
      state.busy = false;
      if (socket.destroyed) return;

      const keepAlive = wantsKeepAlive(request) && !this.closing;
      let bytes: Buffer;
      try {
        bytes = serializeResponse(response, keepAlive, request.method === 'HEAD');
      } catch (error) {
        bytes = serializeResponse(internalError(error), keepAlive, request.method === 'HEAD');
      }
      socket.write(bytes);
      if (!keepAlive) {
        socket.end();
        return;
      }
    }
    if (!socket.destroyed) socket.end();
  }

  /** Sends an error response and closes, reading (and dropping) what the client still uploads meanwhile. */
  private answerAndClose(socket: net.Socket, reader: SocketReader, response: HttpResponse): void {
    if (socket.destroyed) return;
    reader.discardAll();
    socket.end(serializeResponse(response, false, false));
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  }
}

function wantsKeepAlive(request: HttpRequest): boolean {
  const connection = (request.headers['connection'] ?? '').toLowerCase();
  const tokens = connection.split(',').map((t) => t.trim());
  if (tokens.includes('close')) return false;
  if (request.httpVersion === '1.0') return tokens.includes('keep-alive');
  return true;
}

function internalError(error: unknown): HttpResponse {
  const message = error instanceof Error ? error.message : String(error);
  return { status: 500, body: { errors: [`internal error: ${message}`] } };
}

/** `::ffff:127.0.0.1` -> `127.0.0.1`, so IPv4 CIDRs match IPv4 clients on dual-stack sockets. */
function normalizeAddress(address: string | undefined): string {
  if (!address) return '';
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

