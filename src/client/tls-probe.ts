/**
 * Why did the TLS server close the connection? A server that requires a client certificate accepts the
 * handshake and then, in TLS 1.3, sends the alert "certificate required" and closes; the HTTP client often only
 * sees the close ("other side closed"). One bare handshake, which sends no request and no token, reads the alert.
 */
import { isIP } from 'node:net';
import * as tls from 'node:tls';

export const PROBE_TIMEOUT_MS = 2_000;

export interface ProbeTarget {
  url: URL;
  ca?: string;
  rejectUnauthorized: boolean;
}

/** The TLS alert code when the server refused for want of a client certificate; undefined otherwise. */
export function probeClientCertificateRequired(target: ProbeTarget): Promise<string | undefined> {
  return new Promise((resolve) => {
    const host = target.url.hostname.replace(/^\[|\]$/g, '');
    const socket = tls.connect({
      host,
      port: Number(target.url.port || 443),
      servername: isIP(host) === 0 ? host : undefined,
      ca: target.ca,
      rejectUnauthorized: target.rejectUnauthorized,
    });
    const done = (code: string | undefined): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(code);
    };
    const timer = setTimeout(() => done(undefined), PROBE_TIMEOUT_MS);
    socket.on('error', (error: NodeJS.ErrnoException) => done(isClientCertificateAlert(error.code ?? '') ? error.code : undefined));
    socket.on('close', () => done(undefined));
    socket.on('data', () => done(undefined));
  });
}

export function isClientCertificateAlert(code: string): boolean {
  return code.includes('CERTIFICATE_REQUIRED');
}
