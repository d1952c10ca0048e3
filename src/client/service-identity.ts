/**
 * Whether SERVICE_ADDR leads to the secrets service at all. Before a run calls an object deleted because its read
 * answered 404, it needs one answer only the service gives: a 404 is also what another HTTP server sends for
 * every path, and what the service itself sends for every path when SERVICE_ADDR ends in `/v1` (the client adds
 * `/v1`, so each path becomes `/v1/v1/...`: "no handler for route").
 *
 * The check is the token's own lookup (`GET auth/token/lookup-self`): the service answers it for every valid
 * token (the default policy allows it), with the token's `accessor` and `policies`. One request, sent at most
 * once per client (a client serves one run), and only when some object read as absent with no other proof.
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
