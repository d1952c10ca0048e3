import * as net from 'node:net';
import { SocketReader } from './socket-reader';
import { ClientGoneError, HttpProtocolError, readRequestBody, readRequestHead, type HttpRequestHead } from './request';
import { serializeResponse, type HttpResponse } from './response';

export type { HttpRequestHead } from './request';
export { HttpProtocolError } from './request';
export type { HttpResponse } from './response';

/**
 * Answers one request. The body is not read until the handler calls `readBody` (after it has checked the
 * token, say); a handler that answers without reading it makes the server drop the body and close the
 * connection. `readBody` throws HttpProtocolError (413 for a body over the limit, 400 for bad framing): the
 * handler may turn it into a response, and the connection is closed after that response.
 */
export type HttpHandler = (head: HttpRequestHead, readBody: (access?: BodyAccess) => Promise<Buffer>) => Promise<HttpResponse>;

/**
 * Who the handler knows it is reading for: `authenticated` (a valid token) or `unauthenticated` (a login, whose
 * sender is not known yet): unauthenticated bodies get a small size limit and share a memory budget.
 */
export type BodyAccess = 'authenticated' | 'unauthenticated';

export interface HttpServerOptions {
  /** Largest accepted request body (default DEFAULT_MAX_REQUEST_BYTES); larger -> 413. */
  maxRequestBytes?: number;
  /** Largest request line or header block (default 64 KiB); larger -> 431. */
  maxHeaderBytes?: number;
  /** Idle keep-alive connections are closed after this long (default 60 s). */
  idleTimeoutMs?: number;
  /**
   * The whole request head must arrive within this long (default 10 s), counted from the connection's start
   * for its first request and from the first byte for later ones; otherwise 408 and the connection is closed.
   */
  headersTimeoutMs?: number;
  /** The whole body must arrive within this long from when the handler asks for it (default 30 s); else 408. */
  bodyTimeoutMs?: number;
  /** Largest body read for an unauthenticated request, a login (default 64 KiB); larger -> 413. */
  maxUnauthenticatedBodyBytes?: number;
  /**
   * Bytes all unauthenticated bodies being read at once may hold together (default 16 MiB; each reserves its
   * announced length, or the per-request limit when chunked); a body that would go over -> 503.
   */
  unauthenticatedBodyBudgetBytes?: number;
}

/** 4 MiB: far above any configuration object of the service, small enough that a body never matters. */
export const DEFAULT_MAX_REQUEST_BYTES = 4 * 1024 * 1024;
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
export const DEFAULT_BODY_TIMEOUT_MS = 30_000;
/** A login body is `{"password": ...}`: 64 KiB is far above any. */
export const DEFAULT_MAX_UNAUTHENTICATED_BODY_BYTES = 64 * 1024;
export const DEFAULT_UNAUTHENTICATED_BODY_BUDGET_BYTES = 16 * 1024 * 1024;
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
  private readonly headersTimeoutMs: number;
  private readonly bodyTimeoutMs: number;
  private readonly maxUnauthenticatedBodyBytes: number;
  private readonly unauthenticatedBodyBudgetBytes: number;
  /** Bytes reserved by unauthenticated bodies being read now (see unauthenticatedBodyBudgetBytes). */
  private unauthenticatedBodyBytesInFlight = 0;

  constructor(
    private readonly handler: HttpHandler,
    options: HttpServerOptions = {},
  ) {
    this.maxRequestBytes = options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES;
    this.maxHeaderBytes = options.maxHeaderBytes ?? DEFAULT_MAX_HEADER_BYTES;
    this.idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    this.headersTimeoutMs = options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
    this.bodyTimeoutMs = options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
    this.maxUnauthenticatedBodyBytes = options.maxUnauthenticatedBodyBytes ?? DEFAULT_MAX_UNAUTHENTICATED_BODY_BYTES;
    this.unauthenticatedBodyBudgetBytes = options.unauthenticatedBodyBudgetBytes ?? DEFAULT_UNAUTHENTICATED_BODY_BUDGET_BYTES;
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
    let first = true;
    while (!socket.destroyed && !this.closing) {
      // Later requests on a kept-alive connection: the idle timeout covers the wait for their first byte.
      if (!first && !(await reader.waitForByte())) break;
      first = false;

      let head: HttpRequestHead | undefined;
      const deadline = setTimeout(() => {
        this.answerAndClose(socket, reader, { status: 408, body: { errors: ['request header not received in time'] } });
      }, this.headersTimeoutMs);
      try {
        head = await readRequestHead(reader, remoteAddress, limits);
      } catch (error) {
        if (error instanceof HttpProtocolError) {
          this.answerAndClose(socket, reader, { status: error.status, body: { errors: [error.message] } });
        } else {
          socket.destroy();
        }
        return;
      } finally {
        clearTimeout(deadline);
      }
      if (head === undefined || socket.destroyed || socket.writableEnded) {
        if (!socket.writableEnded) socket.end();
        return;
      }

      const request = head;
      let body: 'unread' | 'read' | 'failed' = request.framing.kind === 'none' ? 'read' : 'unread';
      let clientGone = false;
      const readBody = async (access: BodyAccess = 'authenticated'): Promise<Buffer> => {
        if (body !== 'unread') {
          if (body === 'read' && request.framing.kind === 'none') return Buffer.alloc(0);
          throw new Error('HttpServer: the request body can be read once');
        }
        try {
          const bytes = await this.readBodyInTime(reader, request, limits, access, () => socket.write('HTTP/1.1 100 Continue\r\n\r\n'));
          body = 'read';
          return bytes;
        } catch (error) {
          body = 'failed';
          if (error instanceof ClientGoneError) clientGone = true;
          throw error;
        }
      };

      state.busy = true;
      let response: HttpResponse;
      try {
        response = await this.handler(request, readBody);
      } catch (error) {
        response = error instanceof HttpProtocolError ? { status: error.status, body: { errors: [error.message] } } : internalError(error);
      }
      state.busy = false;
      if (socket.destroyed || clientGone) {
        socket.destroy();
        return;
      }
      if (body !== 'read') {
        // The body was refused (no token, too large, bad framing): answer, drop whatever still arrives, close.
        this.answerAndClose(socket, reader, response, request.method === 'HEAD');
        return;
      }

      const keepAlive = wantsKeepAlive(request) && !this.closing;
      socket.write(serialize(response, keepAlive, request.method === 'HEAD'));
      if (!keepAlive) {
        socket.end();
        return;
      }
    }
    if (!socket.destroyed && !socket.writableEnded) socket.end();
  }

  /**
   * Reads a body within bodyTimeoutMs (a body trickled in one byte at a time gets 408); an unauthenticated one
   * also within its own size limit and the shared budget, so many connections cannot hold much memory.
   */
  private async readBodyInTime(
    reader: SocketReader,
    request: HttpRequestHead,
    limits: { maxRequestBytes: number; maxHeaderBytes: number },
    access: BodyAccess,
    onContinue: () => void,
  ): Promise<Buffer> {
    let reserved = 0;
    let bodyLimits = limits;
    if (access === 'unauthenticated') {
      const max = Math.min(limits.maxRequestBytes, this.maxUnauthenticatedBodyBytes);
      bodyLimits = { ...limits, maxRequestBytes: max };
      reserved = request.framing.kind === 'length' ? Math.min(request.framing.length, max) : request.framing.kind === 'chunked' ? max : 0;
      if (this.unauthenticatedBodyBytesInFlight + reserved > this.unauthenticatedBodyBudgetBytes) {
        throw new HttpProtocolError(503, 'too many unauthenticated request bodies in progress: retry later');
      }
      this.unauthenticatedBodyBytesInFlight += reserved;
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new HttpProtocolError(408, 'request body not received in time')), this.bodyTimeoutMs);
    });
    try {
      return await Promise.race([readRequestBody(reader, request, bodyLimits, onContinue), timeout]);
    } finally {
      clearTimeout(timer);
      this.unauthenticatedBodyBytesInFlight -= reserved;
    }
  }

  /** Sends an error response and closes, reading (and dropping) what the client still uploads meanwhile. */
  private answerAndClose(socket: net.Socket, reader: SocketReader, response: HttpResponse, omitBody = false): void {
    if (socket.destroyed || socket.writableEnded) return;
    reader.discardAll();
    socket.end(serialize(response, false, omitBody));
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  }
}

function serialize(response: HttpResponse, keepAlive: boolean, omitBody: boolean): Buffer {
  try {
    return serializeResponse(response, keepAlive, omitBody);
  } catch (error) {
    return serializeResponse(internalError(error), keepAlive, omitBody);
  }
}

function wantsKeepAlive(request: HttpRequestHead): boolean {
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

