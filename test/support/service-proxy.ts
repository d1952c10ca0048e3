/**
 * A server that answers like the service (it passes each request on to a dev server) except where `own` answers
 * itself: a proxy or a stub that gets some paths wrong. Tests use it to corrupt one endpoint's answer. With
 * `tlsOptions` it speaks TLS (the dev server does not): a stand-in for a service at an https address.
 */
import type * as tls from 'node:tls';
import { startRawServer, type RawReply, type RawRequest, type RawServer } from '../e2e/client-raw-server';

export async function startServiceProxy(target: string, own: (request: RawRequest) => RawReply | undefined, tlsOptions?: tls.TlsOptions): Promise<RawServer> {
  return startRawServer(async (request) => {
    const reply = own(request);
    if (reply) return reply;
    const headers: Record<string, string> = {};
    for (const name of ['x-service-token', 'content-type']) if (request.headers[name] !== undefined) headers[name] = request.headers[name];
    const answer = await fetch(`${target}${request.path}`, { method: request.method, headers, body: request.body === '' ? undefined : request.body });
    return { status: answer.status, headers: { 'content-type': answer.headers.get('content-type') ?? 'application/json' }, body: await answer.text() };
  }, tlsOptions);
}
