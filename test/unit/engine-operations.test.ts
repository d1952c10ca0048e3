import type { ServiceClient, ServiceResult } from '../../src/client';
import { statusError } from '../../src/client/errors';
import { deleteObject, writeObject } from '../../src/engine/apply/operations';
import type { ResourcePlan } from '../../src/engine/plan/resource-plan';
import { getResourceType } from '../../src/resources/registry';

const PASSWORD = 'alice-password-value-c0ffee';

/** A server that rejects every write and quotes the body it was sent in its error, as some servers and proxies do. */
function echoingClient(): { client: ServiceClient; paths: string[] } {
  const paths: string[] = [];
  const request = (method: string, path: string, options: { body?: unknown } = {}): Promise<ServiceResult> => {
    paths.push(path);
    return Promise.resolve({ ok: false, error: statusError(method, `/v1/${path}`, 400, [`cannot use ${JSON.stringify(options.body)}: password ${PASSWORD} is too weak`]) });
  };
  return { client: { request } as unknown as ServiceClient, paths };
}

function userPlan(overrides: Partial<ResourcePlan>): ResourcePlan {
  const canonical = { mount: 'userpass', username: 'alice' };
  return {
    address: 'test/alice',
    resourceType: getResourceType('userpass_user'),
    canonical,
    writeAttributes: canonical,
    clear: [],
    writeCall: false,
    writeSecrets: ['password'],
    ...overrides,
  } as unknown as ResourcePlan;
}

describe('writeObject', () => {
  test('a failed create never reports the secret values it sent, even when the server quotes them', async () => {
    const { client } = echoingClient();
    const failure = writeObject(client, userPlan({}), { password: PASSWORD }, true);
    await expect(failure).rejects.toThrow('[redacted]');
    await expect(failure).rejects.not.toThrow(PASSWORD);
  });

  test('a failed password change (its own call) never reports the password', async () => {
    const { client, paths } = echoingClient();
    const failure = writeObject(client, userPlan({}), { password: PASSWORD }, false);
    await expect(failure).rejects.toThrow('HTTP 400');
    await expect(failure).rejects.not.toThrow(PASSWORD);
    expect(paths).toEqual(['auth/userpass/users/alice/password']);
  });
});

const ASSOCIATIONS = 'sys/sync/destinations/cloud1-sm/c1/associations';
const DESTINATION = 'sys/sync/destinations/cloud1-sm/c1';
const ONE_ASSOCIATION = { 'kv_1234/app': { accessor: 'kv_1234', secret_name: 'app', sync_status: 'SYNCED', updated_at: '2026-01-01T00:00:00.000Z' } };

/**
 * A server whose associations read answers `associations` (a body, or 404), that deletes anything and whose
 * destination read answers 404 (a purge finished): the calls after the probe are what deleteObject decided.
 */
function destinationClient(associations: { body: unknown } | 404): { client: ServiceClient; sent: string[] } {
  const sent: string[] = [];
  const request = (method: string, path: string, options: { query?: Record<string, string> } = {}): Promise<ServiceResult> => {
    const query = options.query === undefined ? '' : `?${new URLSearchParams(options.query).toString()}`;
    if (`${method} ${path}` !== `GET ${ASSOCIATIONS}`) sent.push(`${method} ${path}${query}`);
    if (method === 'DELETE') return Promise.resolve({ ok: true, status: 204, data: undefined, raw: undefined, warnings: [] });
    if (path === ASSOCIATIONS && associations !== 404) {
      const raw = associations.body;
      return Promise.resolve({ ok: true, status: 200, data: raw, raw, warnings: [] });
    }
    return Promise.resolve({ ok: false, error: statusError(method, `/v1/${path}`, 404, []) });
  };
  const displayPath = (path: string) => `/v1/${path}`;
  return { client: { request, displayPath, scrubServerText: (text: string) => text } as unknown as ServiceClient, sent };
}

function destinationPlan(): ResourcePlan {
  return { address: 'test/c1', resourceType: getResourceType('sync_destination_cloud1_sm'), deleteIdentity: { name: 'c1' } } as unknown as ResourcePlan;
}

describe('deleteObject of a sync destination: the associations answer decides, and only the associations listing', () => {
  test('real associations purge, a real empty list or a 404 deletes plainly, any other answer deletes nothing', async () => {
    const answers: Record<string, { body: unknown } | 404> = {
      'associations': { body: { data: { associated_secrets: ONE_ASSOCIATION, store_name: 'c1', store_type: 'cloud1-sm' } } },
      'no associations': { body: { data: { associated_secrets: {}, store_name: 'c1', store_type: 'cloud1-sm' } } },
      '404': 404,
      '{}': { body: {} },
      '{"data": {}}': { body: { data: {} } },
      'associated_secrets an array': { body: { data: { associated_secrets: [] } } },
      'associated_secrets a string': { body: { data: { associated_secrets: 'none' } } },
      'null': { body: null },
      'no body': { body: undefined },
    };
    const decided: Record<string, string> = {};
    for (const [name, answer] of Object.entries(answers)) {
      const { client, sent } = destinationClient(answer);
      const outcome = await deleteObject(client, destinationPlan()).then(() => 'done', (error: Error) => `failed (${error.name})`);
      decided[name] = `${outcome}: ${sent.join(', ') || 'nothing sent'}`;
    }
    expect(decided).toEqual({
      'associations': `done: DELETE ${DESTINATION}?purge=true, GET ${DESTINATION}`,
      'no associations': `done: DELETE ${DESTINATION}`,
      '404': `done: DELETE ${DESTINATION}`,
      '{}': 'failed (EngineError): nothing sent',
      '{"data": {}}': 'failed (EngineError): nothing sent',
      'associated_secrets an array': 'failed (EngineError): nothing sent',
      'associated_secrets a string': 'failed (EngineError): nothing sent',
      'null': 'failed (EngineError): nothing sent',
      'no body': 'failed (EngineError): nothing sent',
    });
  });

  test('an answer that is not the associations listing: the error names the endpoint, what it answered, and that nothing was deleted', async () => {
    const { client } = destinationClient({ body: { data: {} } });
    const failure = deleteObject(client, destinationPlan());
    await expect(failure).rejects.toMatchObject({ code: 'service_error' });
    await expect(failure).rejects.toThrow(
      `GET /v1/${ASSOCIATIONS} answered HTTP 200 with an object without "associated_secrets" where the associations of a destination were expected: ` +
        'not the associations of a destination the service answers',
    );
    await expect(failure).rejects.toThrow(`only with DELETE /v1/${DESTINATION}?purge=true, so no delete was sent: nothing was deleted, and state still records the object`);
  });
});
