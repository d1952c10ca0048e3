// Helpers for HTTP-level dev-server tests: start a server on a free port and call it.
import net from 'node:net';
import { startDevServer, type DevServer, type DevServerOptions } from '../../src/devserver/server';

export const TEST_ROOT_TOKEN = 'root-test-token';

/** startDevServer on a free port with the root token `root-test-token` (options override). */
export function startTestServer(options: DevServerOptions = {}): Promise<DevServer> {
  return startDevServer({ port: 0, rootToken: TEST_ROOT_TOKEN, ...options });
}

export interface CallOptions {
  /** Token sent as X-Service-Token; default the server's root token; null sends none. */
  token?: string | null;
  headers?: Record<string, string>;
  /** Sent as-is instead of JSON-encoding `body`. */
  rawBody?: string | Buffer;
}

export interface CallResult {
  status: number;
  /** Parsed JSON, or undefined when the body was empty. Non-JSON text is returned as a string. */
  body: any;
  headers: Record<string, string>;
}

/**
 * Calls the server. `path` is relative to `/v1/` (`sys/mounts/secret`), or absolute when it starts with `/`.
 * The fifth argument may be the token itself (string, or null for none) or CallOptions.
 * PATCH requests get `Content-Type: application/merge-patch+json` unless headers set one.
 */
export async function call(
  server: DevServer,
  method: string,
  path: string,
  body?: unknown,
  options: CallOptions | string | null = {},
): Promise<CallResult> {
  const opts: CallOptions = typeof options === 'string' || options === null ? { token: options } : options;
  const url = `${server.url}${path.startsWith('/') ? path : `/v1/${path}`}`;
  const headers: Record<string, string> = {};
  const token = opts.token === undefined ? server.rootToken : opts.token;
  if (token !== null) headers['X-Service-Token'] = token;
  let payload: string | Buffer | undefined = opts.rawBody;
  if (payload === undefined && body !== undefined) {
    payload = JSON.stringify(body);
    headers['Content-Type'] = method.toUpperCase() === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
  }
  Object.assign(headers, opts.headers ?? {});
  const response = await fetch(url, { method, headers, body: payload });
  const text = await response.text();
  let parsed: unknown;
  if (text !== '') {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  const responseHeaders: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    responseHeaders[name] = value;
  });
  return { status: response.status, body: parsed, headers: responseHeaders };
}

/** Enables a secrets engine (`POST sys/mounts/:path`); throws unless the server answers 204. */
export async function mount(server: DevServer, path: string, type: string, options?: Record<string, string>): Promise<void> {
  const result = await call(server, 'POST', `sys/mounts/${path}`, { type, ...(options ? { options } : {}) });
  if (result.status !== 204) {
    throw new Error(`mounting ${type} at ${path} failed: ${result.status} ${JSON.stringify(result.body)}`);
  }
}

/** Enables an auth method (`POST sys/auth/:path`); throws unless the server answers 204. */
export async function enableAuth(server: DevServer, path: string, type: string): Promise<void> {
  const result = await call(server, 'POST', `sys/auth/${path}`, { type });
  if (result.status !== 204) {
    throw new Error(`enabling auth ${type} at ${path} failed: ${result.status} ${JSON.stringify(result.body)}`);
  }
}

/**
 * Writes raw bytes on a fresh connection and returns everything the server sent until it closed the
 * connection (or until `waitMs` passed without the close).
 */
export function sendRaw(server: DevServer, data: string | Buffer, waitMs = 2000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(server.port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(Buffer.concat(chunks).toString('utf8'));
    }, waitMs);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
    socket.write(data);
  });
}
