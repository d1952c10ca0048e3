import type { ServiceClient, ServiceResult } from '../../src/client';
import { statusError } from '../../src/client/errors';
import { writeObject } from '../../src/engine/apply/operations';
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
