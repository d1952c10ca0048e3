import { LineTooLongError, type SocketReader } from './socket-reader';

/** A request as read off the wire, before any routing. */
export interface HttpRequest {
  method: string;
  /** The request target as sent (path and query). */
  target: string;
  httpVersion: '1.0' | '1.1';
  /** Header names lower-cased; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
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

export interface ReadLimits {
  maxRequestBytes: number;
  maxHeaderBytes: number;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const MAX_HEADER_COUNT = 200;

/**
 * Reads one request (head and body) from the connection. Returns undefined when the peer closed the
 * connection before a new request began; throws HttpProtocolError for malformed or oversized requests.
 * `onContinue` is called when the client waits for `100 Continue` before sending its body.
 */
export async function readRequest(
  reader: SocketReader,
  remoteAddress: string,
  limits: ReadLimits,
  onContinue: () => void,
): Promise<HttpRequest | undefined> {
  let requestLine = await readHeadLine(reader, limits.maxHeaderBytes);
  // RFC 9112: ignore empty lines before a request line (some clients send a CRLF after a body).
  while (requestLine === '') requestLine = await readHeadLine(reader, limits.maxHeaderBytes);
  if (requestLine === undefined) return undefined;

  const parts = requestLine.split(' ');
  if (parts.length !== 3 || !TOKEN.test(parts[0]) || parts[1] === '') {
    throw new HttpProtocolError(400, 'malformed request line');
  }
  const [method, target, version] = parts;
  if (version !== 'HTTP/1.1' && version !== 'HTTP/1.0') {
    throw new HttpProtocolError(version.startsWith('HTTP/') ? 505 : 400, `unsupported protocol version ${version}`);
  }

  const headers = await readHeaders(reader, limits.maxHeaderBytes);
  const body = await readBody(reader, headers, limits, onContinue);
  return { method, target, httpVersion: version === 'HTTP/1.0' ? '1.0' : '1.1', headers, body, remoteAddress };
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
  const headers: Record<string, string> = {};
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
    const key = name.toLowerCase();
    if (key === 'content-length' && key in headers && headers[key] !== value) {
      throw new HttpProtocolError(400, 'conflicting Content-Length headers');
    }
    headers[key] = key in headers && key !== 'content-length' ? `${headers[key]}, ${value}` : value;
  }
}

/** The peer closed the connection in the middle of a request: nothing to answer. */
export class ClientGoneError extends Error {
  constructor() {
    super('client closed the connection mid-request');
  }
}

async function readBody(
  reader: SocketReader,
  headers: Record<string, string>,
  limits: ReadLimits,
  onContinue: () => void,
): Promise<Buffer> {
  const transferEncoding = headers['transfer-encoding'];
  const contentLength = headers['content-length'];
  if (transferEncoding !== undefined && contentLength !== undefined) {
    throw new HttpProtocolError(400, 'both Transfer-Encoding and Content-Length given');
  }
  const expectsContinue = (headers['expect'] ?? '').toLowerCase() === '100-continue';

  if (transferEncoding !== undefined) {
    if (transferEncoding.toLowerCase() !== 'chunked') {
      throw new HttpProtocolError(501, `unsupported Transfer-Encoding "${transferEncoding}"`);
    }
    if (expectsContinue) onContinue();
    return readChunkedBody(reader, limits);
  }

  if (contentLength === undefined) return Buffer.alloc(0);
  if (!/^\d+$/.test(contentLength)) throw new HttpProtocolError(400, `invalid Content-Length "${contentLength}"`);
  const length = Number(contentLength);
  if (length > limits.maxRequestBytes) throw new HttpProtocolError(413, 'http: request body too large');
  if (length === 0) return Buffer.alloc(0);
  if (expectsContinue) onContinue();
  const body = await reader.readBytes(length);
  if (body === undefined) throw new ClientGoneError();
  return body;
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
    if (total > limits.maxRequestBytes) throw new HttpProtocolError(413, 'http: request body too large');
    const data = await reader.readBytes(size);
    if (data === undefined) throw new ClientGoneError();
    chunks.push(data);
    const terminator = await readHeadLine(reader, limits.maxHeaderBytes);
    if (terminator === undefined) throw new ClientGoneError();
    if (terminator !== '') throw new HttpProtocolError(400, 'malformed chunk terminator');
  }
  // Trailer fields are read and ignored.
  for (;;) {
    const trailer = await readHeadLine(reader, limits.maxHeaderBytes);
    if (trailer === undefined) throw new ClientGoneError();
    if (trailer === '') break;
  }
  return Buffer.concat(chunks, total);
}
