import { LineTooLongError, type SocketReader } from './socket-reader';

/** How the request says its body is framed (RFC 9112 section 6). */
export type BodyFraming = { kind: 'none' } | { kind: 'length'; length: number } | { kind: 'chunked' };

/**
 * A request head as read off the wire, before any routing. The body is not read yet: the handler decides
 * (after checking the token) whether it is read at all.
 */
export interface HttpRequestHead {
  method: string;
  /** The request target as sent (path and query). */
  target: string;
  httpVersion: '1.0' | '1.1';
  /**
   * Header names lower-cased; repeated headers joined with ", ". A null-prototype object, so a header named
   * `__proto__` or `constructor` is an ordinary entry.
   */
  headers: Record<string, string>;
  framing: BodyFraming;
  remoteAddress: string;
}

/** Why a request could not be read; the server answers with `status` and closes the connection. */
export class HttpProtocolError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The peer closed the connection in the middle of a request: nothing to answer. */
export class ClientGoneError extends Error {
  constructor() {
    super('client closed the connection mid-request');
  }
}

export interface ReadLimits {
  maxRequestBytes: number;
  maxHeaderBytes: number;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const MAX_HEADER_COUNT = 200;
export const BODY_TOO_LARGE = 'http: request body too large';

/**
 * Reads one request head (request line and header fields) and checks its body framing. Returns undefined when
 * the peer closed the connection before a new request began; throws HttpProtocolError for a malformed head.
 */
export async function readRequestHead(reader: SocketReader, remoteAddress: string, limits: ReadLimits): Promise<HttpRequestHead | undefined> {
  let requestLine = await readHeadLine(reader, limits.maxHeaderBytes);
  // RFC 9112: ignore empty lines before a request line (some clients send a CRLF after a body).
  while (requestLine === '') requestLine = await readHeadLine(reader, limits.maxHeaderBytes);
  if (requestLine === undefined) return undefined;

  const parts = requestLine.split(' ');
  if (parts.length !== 3 || !TOKEN.test(parts[0]) || parts[1] === '' || /[\x00-\x20\x7f]/.test(parts[1])) {
    throw new HttpProtocolError(400, 'malformed request line');
  }
  const [method, target, version] = parts;
  if (version !== 'HTTP/1.1' && version !== 'HTTP/1.0') {
    throw new HttpProtocolError(version.startsWith('HTTP/') ? 505 : 400, `unsupported protocol version ${version}`);
  }

  const headers = await readHeaders(reader, limits.maxHeaderBytes);
  const framing = bodyFraming(headers);
  return { method, target, httpVersion: version === 'HTTP/1.0' ? '1.0' : '1.1', headers, framing, remoteAddress };
}

/**
 * Reads the body the head announced, refusing (413) one larger than `maxRequestBytes` before reading it.
 * `onContinue` is called when the client waits for `100 Continue` before sending its body.
 */
export async function readRequestBody(
  reader: SocketReader,
  head: HttpRequestHead,
  limits: ReadLimits,
  onContinue: () => void,
): Promise<Buffer> {
  const { framing } = head;
  if (framing.kind === 'none') return Buffer.alloc(0);
  if (framing.kind === 'length' && framing.length > limits.maxRequestBytes) throw new HttpProtocolError(413, BODY_TOO_LARGE);
  if (framing.kind === 'length' && framing.length === 0) return Buffer.alloc(0);
  if ((head.headers['expect'] ?? '').toLowerCase() === '100-continue') onContinue();
  if (framing.kind === 'chunked') return readChunkedBody(reader, limits);
  const body = await reader.readBytes(framing.length);
  if (body === undefined) throw new ClientGoneError();
  return body;
}

async function readHeadLine(reader: SocketReader, maxBytes: number): Promise<string | undefined> {
  try {
    return await reader.readLine(maxBytes);
  } catch (error) {
    if (error instanceof LineTooLongError) throw new HttpProtocolError(431, 'request header too large');
    throw error;
  }
}

async function readHeaders(reader: SocketReader, maxBytes: number): Promise<Record<string, string>> {
  const headers: Record<string, string> = Object.create(null);
  let total = 0;
  let count = 0;
  for (;;) {
    const line = await readHeadLine(reader, maxBytes);
    if (line === undefined) throw new ClientGoneError();
    if (line === '') return headers;
    total += line.length;
    count += 1;
    if (total > maxBytes || count > MAX_HEADER_COUNT) throw new HttpProtocolError(431, 'request header too large');
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon) : '';
    // A name must be a token: this also refuses obsolete line folding (a line starting with whitespace).
    if (!TOKEN.test(name)) throw new HttpProtocolError(400, 'malformed header line');
    const value = line.slice(colon + 1).trim();
    if (/[\x00\r\n]/.test(value)) throw new HttpProtocolError(400, 'malformed header line');
    const key = name.toLowerCase();
    if (key === 'content-length' && key in headers && headers[key] !== value) {
      throw new HttpProtocolError(400, 'conflicting Content-Length headers');
    }
    headers[key] = key in headers && key !== 'content-length' ? `${headers[key]}, ${value}` : value;
  }
}

function bodyFraming(headers: Record<string, string>): BodyFraming {
  const transferEncoding = headers['transfer-encoding'];
  const contentLength = headers['content-length'];
  if (transferEncoding !== undefined && contentLength !== undefined) {
    throw new HttpProtocolError(400, 'both Transfer-Encoding and Content-Length given');
  }
  if (transferEncoding !== undefined) {
    if (transferEncoding.toLowerCase() !== 'chunked') {
      throw new HttpProtocolError(501, `unsupported Transfer-Encoding "${transferEncoding}"`);
    }
    return { kind: 'chunked' };
  }
  if (contentLength === undefined) return { kind: 'none' };
  // At most 15 digits keeps the number exact (below 2^53); anything that large is refused with 413 anyway.
  if (!/^\d{1,15}$/.test(contentLength)) throw new HttpProtocolError(400, `invalid Content-Length "${contentLength.slice(0, 40)}"`);
  return { kind: 'length', length: Number(contentLength) };
}

async function readChunkedBody(reader: SocketReader, limits: ReadLimits): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const sizeLine = await readHeadLine(reader, limits.maxHeaderBytes);
    if (sizeLine === undefined) throw new ClientGoneError();
    const sizeText = sizeLine.split(';')[0].trim();
    if (!/^[0-9a-fA-F]{1,8}$/.test(sizeText)) throw new HttpProtocolError(400, 'malformed chunk size');
    const size = parseInt(sizeText, 16);
    if (size === 0) break;
    total += size;
    if (total > limits.maxRequestBytes) throw new HttpProtocolError(413, BODY_TOO_LARGE);
    const data = await reader.readBytes(size);
    if (data === undefined) throw new ClientGoneError();
    chunks.push(data);
    const terminator = await readHeadLine(reader, limits.maxHeaderBytes);
    if (terminator === undefined) throw new ClientGoneError();
    if (terminator !== '') throw new HttpProtocolError(400, 'malformed chunk terminator');
  }
  // Trailer fields are read and ignored (bounded like the head).
  let trailerBytes = 0;
  for (;;) {
    const trailer = await readHeadLine(reader, limits.maxHeaderBytes);
    if (trailer === undefined) throw new ClientGoneError();
    if (trailer === '') break;
    trailerBytes += trailer.length;
    if (trailerBytes > limits.maxHeaderBytes) throw new HttpProtocolError(431, 'request header too large');
  }
  return Buffer.concat(chunks, total);
}
