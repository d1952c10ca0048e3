/**
 * A client's pool keeps more connections than requests in flight (service-client.ts, CONNECTIONS_PER_REQUEST_IN_FLIGHT):
 * undici reuses a kept-alive connection only a full turn of the event loop after its answer, so with one
 * connection per request in flight every request freed by an answer was written a turn late. Seen from undici's
 * own reports (diagnostics channels) against the dev server over a real socket: the request an answer frees is on
 * the wire within the turn that answer was read. The requests in flight at the server stay within the budget.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { ServiceClient, loadClientConfig } from '../../src/client';
import { startDevServer, type DevServer } from '../../src/devserver/server';

const ROOT_TOKEN = 'spare-connections-root';
const PARALLELISM = 5;
const READS = 400;

let server: DevServer;

beforeAll(async () => {
  server = await startDevServer({ port: 0, rootToken: ROOT_TOKEN, latencyMs: 1 });
});

afterAll(async () => {
  await server.close();
});

function client(): ServiceClient {
  const config = loadClientConfig({ SERVICE_ADDR: server.url, SERVICE_TOKEN: ROOT_TOKEN });
  if (!config.ok) throw new Error(config.error.message);
  // No budget given: the client's own, of maxConnections requests.
  return new ServiceClient(config.config, { maxConnections: PARALLELISM });
}

/** Sends `count` reads of users that do not exist (quick 404s), `PARALLELISM` workers at a time, as a run does. */
async function readUsers(service: ServiceClient, count: number, workers: number): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: workers }, async () => {
    while (next < count) {
      const result = await service.readObject(`auth/userpass/users/u${next++}`);
      if (!result.ok) throw new Error(result.error.message);
    }
  }));
}

test('the read an answer frees is written within the turn the answer was read', async () => {
  const service = client();
  try {
    // The pool opens its connections as they are needed: once warm, a freed read finds one that is not waiting.
    await readUsers(service, 4 * READS, PARALLELISM);
    let written = 0;
    let answered = 0;
    const late: string[] = [];
    const onWrite = (): void => {
      written++;
    };
    // Each answer is read in a poll phase; two setImmediate hops later (the check phase of the next turn) the read
    // it freed must have been written. undici writes a read on a connection that waited out its reuse turn in the
    // check phase of the turn it was sent in, and one on a connection still waiting only in the next turn's, after
    // this check.
    const onAnswer = (): void => {
      const n = ++answered;
      setImmediate(() => setImmediate(() => {
        const freed = Math.min(READS, PARALLELISM + n);
        if (written < freed) late.push(`answer ${n}: ${written} of ${freed} written`);
      }));
    };
    subscribe('undici:client:sendHeaders', onWrite);
    subscribe('undici:request:trailers', onAnswer);
    try {
      await readUsers(service, READS, PARALLELISM);
      await new Promise((done) => setImmediate(() => setImmediate(done)));
    } finally {
      unsubscribe('undici:client:sendHeaders', onWrite);
      unsubscribe('undici:request:trailers', onAnswer);
    }
    expect(written).toBe(READS);
    // A read may still open a new connection (written once it connects); never most of them.
    expect(late.length).toBeLessThan(READS / 10);
  } finally {
    await service.close();
  }
}, 60_000);

test('a client without a budget has at most maxConnections requests in flight, though its pool keeps more connections', async () => {
  const service = client();
  try {
    server.inFlight.resetMax();
    // Twice as many callers as requests allowed in flight: the client's own budget holds the rest back.
    await readUsers(service, 200, 4 * PARALLELISM);
    expect(server.inFlight.max).toBe(PARALLELISM);
  } finally {
    await service.close();
  }
}, 60_000);
