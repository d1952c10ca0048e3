/**
 * Whether SERVICE_ADDR leads to the secrets service at all. Before a run calls an object deleted because its read
 * answered 404, it needs one answer only the service gives: a 404 is also what another HTTP server sends for
 * every path, and what the service itself sends for every path when SERVICE_ADDR ends in `/v1` (the client adds
 * `/v1`, so each path becomes `/v1/v1/...`: "no handler for route").
 *
 * The check is the token's own lookup (`GET auth/token/lookup-self`): the service answers it for every valid
 * token (the default policy allows it), with the token's `accessor` and `policies`. One request, sent at most
 * once per client (a client serves one run), and only when some object read as absent with no other proof.
 * Refresh (objects deleted, or not found by an import) and generate (areas empty) conclude absence behind it.
 */
import { isJsonObject, payloadOf } from './response-shapes';
import type { ServiceClient } from './service-client';

export const SERVICE_IDENTITY_PATH = 'auth/token/lookup-self';

export type ServiceIdentity = { confirmed: true } | { confirmed: false; answer: string };

const checks = new WeakMap<ServiceClient, Promise<ServiceIdentity>>();
const confirmedClients = new WeakSet<ServiceClient>();

/** Records that this client already got an answer only the service gives (a read that looked like its object). */
export function recordServiceAnswer(client: ServiceClient): void {
  confirmedClients.add(client);
}

/** Whether SERVICE_ADDR answers as the service; asks it once per client, when nothing has shown it yet. */
export function confirmService(client: ServiceClient): Promise<ServiceIdentity> {
  if (confirmedClients.has(client)) return Promise.resolve({ confirmed: true });
  let check = checks.get(client);
  if (!check) {
    check = lookUpToken(client);
    checks.set(client, check);
  }
  return check;
}

/** What a run that stops for want of that proof says about it (`notTheServiceMessage`). */
export interface UnprovenAbsence {
  /** The run that stopped, e.g. `refresh`. */
  run: string;
  /** What it does not conclude, e.g. `no object is taken as deleted`. */
  conclusion: string;
  /** What read as absent, and the answer that said so. */
  absent: string;
  /** What the token lookup answered (`ServiceIdentity.answer`). */
  answer: string;
}

/**
 * The message of a run that stops because something read as absent and SERVICE_ADDR was not shown to be the
 * service, with the fix: an address ending in `/v1` (the client adds it) is the usual mistake, else another server.
 */
export function notTheServiceMessage(client: ServiceClient, unproven: UnprovenAbsence): string {
  const endsInV1 = /\/v1\/?$/.test(new URL(client.address).pathname);
  const fix = endsInV1
    ? 'SERVICE_ADDR ends in /v1, which the client adds itself: set it to the service\'s base address (e.g. http://127.0.0.1:8200).'
    : 'Set SERVICE_ADDR to the secrets service\'s base address (scheme, host and port, e.g. http://127.0.0.1:8200), not another server.';
  return (
    `${unproven.run} stopped: the server at SERVICE_ADDR (${client.address}) does not answer like the secrets service, so ${unproven.conclusion}. ` +
    `${unproven.absent}, and ${unproven.answer}, which the service answers for any valid token. ${fix}`
  );
}

async function lookUpToken(client: ServiceClient): Promise<ServiceIdentity> {
  const result = await client.get(SERVICE_IDENTITY_PATH);
  const request = `GET ${client.displayPath(SERVICE_IDENTITY_PATH)}`;
  if (!result.ok) {
    const said = result.error.errors.length > 0 ? `: ${result.error.errors.join('; ')}` : '';
    const status = result.error.status === undefined ? result.error.code : `HTTP ${result.error.status}`;
    return { confirmed: false, answer: `${request} answered ${status}${said}` };
  }
  const token = payloadOf(result.raw);
  if (isJsonObject(token) && (typeof token.accessor === 'string' || Array.isArray(token.policies))) {
    confirmedClients.add(client);
    return { confirmed: true };
  }
  return { confirmed: false, answer: `${request} answered HTTP ${result.status} without the token's accessor or policies` };
}
