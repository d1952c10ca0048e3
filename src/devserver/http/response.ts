import { STATUS_CODES } from 'node:http';

/** What a handler answers; `body` is serialized as JSON (omitted for 204 and 304). */
export interface HttpResponse {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** Serializes a response head and body. `keepAlive` decides the Connection header. */
export function serializeResponse(response: HttpResponse, keepAlive: boolean, omitBody: boolean): Buffer {
  const reason = STATUS_CODES[response.status] ?? 'Unknown';
  const lines = [`HTTP/1.1 ${response.status} ${reason}`];
  const noBody = response.status === 204 || response.status === 304 || response.status < 200;
  const payload = noBody || response.body === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(response.body), 'utf8');
  if (!noBody) {
    lines.push('Content-Type: application/json');
    lines.push(`Content-Length: ${payload.length}`);
  }
  lines.push(`Date: ${new Date().toUTCString()}`);
  lines.push('Cache-Control: no-store');
  lines.push(`Connection: ${keepAlive ? 'keep-alive' : 'close'}`);
  for (const [name, value] of Object.entries(response.headers ?? {})) {
    const lower = name.toLowerCase();
    if (lower === 'content-length' || lower === 'connection' || lower === 'content-type') continue;
    if (/[\r\n]/.test(name) || /[\r\n]/.test(value)) throw new Error(`response header "${name}" contains a line break`);
    lines.push(`${name}: ${value}`);
  }
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  return omitBody ? head : Buffer.concat([head, payload]);
}
