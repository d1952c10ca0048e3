import {
  CLOUD1_BODY,
  CLOUD2_BODY,
  CLOUD3_BODY,
  PRIVATE_KEY,
  REPOHOST_BODY,
  WEBHOST_BODY,
  startSyncFixture,
  type SyncFixture,
} from './sync-fixture';

let f: SyncFixture;
beforeEach(async () => {
  f = await startSyncFixture();
});
afterEach(async () => {
  await f.close();
});

const RFC3339_FRACTION = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d+Z$/;

describe('destination create and read', () => {
  test('creates a cloud1-sm destination and answers 200 with it as read, secrets masked', async () => {
    const created = await f.request('POST', 'sys/sync/destinations/cloud1-sm/aws1', {
      ...CLOUD1_BODY,
      custom_tags: { team: 'a' },
    });
    expect(created.status).toBe(200);
    const expected = {
      type: 'cloud1-sm',
      name: 'aws1',
      connection_details: {
        access_key_id: '*****',
        secret_access_key: '*****',
        role_arn: CLOUD1_BODY.role_arn,
        external_id: 'ext-1',
        region: 'us-east-1',
      },
      options: {
        granularity_level: 'secret-path',
        secret_name_template: 'svc/{{ .MountAccessor }}/{{ .SecretPath }}',
        custom_tags: { team: 'a' },
      },
    };
    expect(created.body.data).toEqual(expected);
    expect(created.body).toMatchObject({ lease_id: '', renewable: false, lease_duration: 0, wrap_info: null });
    const read = await f.request('GET', 'sys/sync/destinations/cloud1-sm/aws1');
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual(expected);
  });

  test('omits sensitive fields that were never supplied and shows custom_tags {} when unset', async () => {
    const created = await f.request('POST', 'sys/sync/destinations/cloud1-sm/env-auth', { region: 'eu-west-1' });
    expect(created.status).toBe(200);
    expect(created.body.data.connection_details).toEqual({ role_arn: '', external_id: '', region: 'eu-west-1' });
    expect(created.body.data.options.custom_tags).toEqual({});
  });

  test('cloud2-kv: defaults cloud to "cloud", masks client_secret, uses the dash-separated name template', async () => {
    const created = await f.request('POST', 'sys/sync/destinations/cloud2-kv/kv1', CLOUD2_BODY);
    expect(created.status).toBe(200);
    expect(created.body.data.connection_details).toEqual({
      key_vault_uri: CLOUD2_BODY.key_vault_uri,
      client_id: 'client-1',
      client_secret: '*****',
      tenant_id: 'tenant-1',
      cloud: 'cloud',
    });
    expect(created.body.data.options).toEqual({
      granularity_level: 'secret-path',
      secret_name_template:
        'svc-{{ .MountAccessor | replace "_" "-" }}-{{ .SecretPath | replace "/" "-" | replace "_" "-" | lowercase }}',
      custom_tags: {},
    });
  });

  test('cloud3-sm: masks credentials and shows project_id', async () => {
    const created = await f.request('POST', 'sys/sync/destinations/cloud3-sm/gcp', { ...CLOUD3_BODY, project_id: 'p-1' });
    expect(created.status).toBe(200);
    expect(created.body.data.connection_details).toEqual({ credentials: '*****', project_id: 'p-1' });
    expect(created.body.data.options.granularity_level).toBe('secret-path');
    expect(created.body.data.options.custom_tags).toEqual({});
  });

  test('repohost: secret-key granularity by default, no custom_tags in options', async () => {
    const created = await f.request('POST', 'sys/sync/destinations/repohost/gh', REPOHOST_BODY);
    expect(created.status).toBe(200);
    expect(created.body.data).toEqual({
      type: 'repohost',
      name: 'gh',
      connection_details: {
        access_token: '*****',
        app_name: '',
        installation_id: '',
        repository_owner: 'acme',
        repository_name: 'app',
      },
      options: {
        granularity_level: 'secret-key',
        secret_name_template:
          'SVC_{{ .MountAccessor | uppercase }}_{{ .SecretPath | replace "/" "_" | replace "-" "_" | uppercase }}' +
          '_{{ .SecretKey | replace "-" "_" | uppercase }}',
      },
    });
  });

  test('webhost-project: shows deployment_environments and team_id in clear', async () => {
    const created = await f.request('POST', 'sys/sync/destinations/webhost-project/vc', {
      ...WEBHOST_BODY,
      deployment_environments: ['preview', 'production'],
    });
    expect(created.status).toBe(200);
    expect(created.body.data.connection_details).toEqual({
      access_token: '*****',
      project_id: 'prj_1',
      team_id: '',
      deployment_environments: ['preview', 'production'],
    });
    expect(created.body.data.options).toEqual({
      granularity_level: 'secret-key',
      secret_name_template: 'svc/{{ .MountAccessor }}/{{ .SecretPath }}/{{ .SecretKey }}',
    });
  });

  test('accepts granularity and a custom secret_name_template', async () => {
    const created = await f.request('POST', 'sys/sync/destinations/cloud3-sm/gcp', {
      ...CLOUD3_BODY,
      granularity: 'secret-key',
      secret_name_template: 'app_{{ .SecretPath | lowercase }}_{{ .SecretKey }}',
    });
    expect(created.status).toBe(200);
    expect(created.body.data.options).toEqual({
      granularity_level: 'secret-key',
      secret_name_template: 'app_{{ .SecretPath | lowercase }}_{{ .SecretKey }}',
      custom_tags: {},
    });
  });

  test('ignores unknown fields with a warning', async () => {
    const created = await f.request('POST', 'sys/sync/destinations/cloud1-sm/aws1', { region: 'r', colour: 'blue' });
    expect(created.status).toBe(200);
    expect(created.body.warnings).toEqual(['Endpoint ignored these unrecognized parameters: [colour]']);
    expect(created.body.data.connection_details).not.toHaveProperty('colour');
  });

  test('GET of an absent destination is 404 with no errors', async () => {
    const read = await f.request('GET', 'sys/sync/destinations/cloud1-sm/missing');
    expect(read).toEqual({ status: 404, body: { errors: [] } });
  });

  test('an unknown destination type is 400 naming the accepted types', async () => {
    for (const method of ['GET', 'POST']) {
      const reply = await f.request(method, 'sys/sync/destinations/cloud9/x', method === 'POST' ? {} : undefined);
      expect(reply.status).toBe(400);
      expect(reply.body.errors[0]).toBe(
        'unknown destination type "cloud9"; expected one of: cloud1-sm, cloud2-kv, cloud3-sm, repohost, webhost-project',
      );
    }
  });
});

describe('destination validation', () => {
  test.each([
    ['cloud2-kv', 'key_vault_uri', CLOUD2_BODY],
    ['cloud2-kv', 'client_id', CLOUD2_BODY],
    ['cloud2-kv', 'client_secret', CLOUD2_BODY],
    ['cloud2-kv', 'tenant_id', CLOUD2_BODY],
    ['cloud3-sm', 'credentials', CLOUD3_BODY],
    ['repohost', 'repository_owner', REPOHOST_BODY],
    ['repohost', 'repository_name', REPOHOST_BODY],
    ['webhost-project', 'access_token', WEBHOST_BODY],
    ['webhost-project', 'project_id', WEBHOST_BODY],
    ['webhost-project', 'deployment_environments', WEBHOST_BODY],
  ])('%s without %s is refused with 400 naming the field', async (type, field, body) => {
    const without: Record<string, unknown> = { ...body };
    delete without[field];
    const reply = await f.request('POST', `sys/sync/destinations/${type}/d1`, without);
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ errors: [`destination "${type}/d1": missing required field "${field}"`] });
    expect((await f.request('GET', `sys/sync/destinations/${type}/d1`)).status).toBe(404);
  });

  test.each([
    ['repohost', REPOHOST_BODY],
    ['webhost-project', WEBHOST_BODY],
  ])('%s refuses custom_tags with 400', async (type, body) => {
    const reply = await f.request('POST', `sys/sync/destinations/${type}/d1`, { ...body, custom_tags: { a: 'b' } });
    expect(reply.status).toBe(400);
    expect(reply.body.errors[0]).toBe(
      `destination "${type}/d1": "custom_tags" is not accepted by destination type "${type}" (only by cloud1-sm, cloud2-kv, cloud3-sm)`,
    );
  });

  test.each([
    ['cloud1-sm', CLOUD1_BODY],
    ['cloud2-kv', CLOUD2_BODY],
    ['cloud3-sm', CLOUD3_BODY],
  ])('%s accepts custom_tags', async (type, body) => {
    const reply = await f.request('POST', `sys/sync/destinations/${type}/d1`, { ...body, custom_tags: { env: 'prod' } });
    expect(reply.status).toBe(200);
    expect(reply.body.data.options.custom_tags).toEqual({ env: 'prod' });
  });

  test('custom_tags must map strings to strings', async () => {
    const reply = await f.request('POST', 'sys/sync/destinations/cloud1-sm/d1', { custom_tags: { n: 1 } });
    expect(reply.status).toBe(400);
    expect(reply.body.errors[0]).toBe('destination "cloud1-sm/d1": "custom_tags" value of "n" must be a string');
  });

  test('granularity other than secret-path or secret-key is refused', async () => {
    const reply = await f.request('POST', 'sys/sync/destinations/cloud1-sm/d1', { granularity: 'secret-value' });
    expect(reply.status).toBe(400);
    expect(reply.body.errors[0]).toBe(
      'destination "cloud1-sm/d1": "granularity" must be one of "secret-path", "secret-key", got "secret-value"',
    );
  });

  test('deployment_environments must be non-empty and within development, preview, production', async () => {
    const empty = await f.request('POST', 'sys/sync/destinations/webhost-project/d1', {
      ...WEBHOST_BODY,
      deployment_environments: [],
    });
    expect(empty.status).toBe(400);
    expect(empty.body.errors[0]).toBe('destination "webhost-project/d1": missing required field "deployment_environments"');
    const bad = await f.request('POST', 'sys/sync/destinations/webhost-project/d1', {
      ...WEBHOST_BODY,
      deployment_environments: ['production', 'staging'],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]).toBe(
      'destination "webhost-project/d1": "deployment_environments" has invalid values "staging"; allowed: development, preview, production',
    );
    const notList = await f.request('POST', 'sys/sync/destinations/webhost-project/d1', {
      ...WEBHOST_BODY,
      deployment_environments: [1],
    });
    expect(notList.status).toBe(400);
  });

  test('string fields must be strings', async () => {
    const reply = await f.request('POST', 'sys/sync/destinations/cloud1-sm/d1', { region: true });
    expect(reply.status).toBe(400);
    expect(reply.body.errors[0]).toBe('destination "cloud1-sm/d1": "region" must be a string');
  });

  test('an invalid secret_name_template is refused with the template error', async () => {
    const unknownFunction = await f.request('POST', 'sys/sync/destinations/cloud1-sm/d1', {
      secret_name_template: '{{ .SecretPath | nosuch }}',
    });
    expect(unknownFunction.status).toBe(400);
    expect(unknownFunction.body.errors[0]).toMatch(/^destination "cloud1-sm\/d1": invalid "secret_name_template": .*nosuch/);
    const unknownField = await f.request('POST', 'sys/sync/destinations/cloud1-sm/d1', {
      secret_name_template: '{{ .Nope }}',
    });
    expect(unknownField.status).toBe(400);
    expect(unknownField.body.errors[0]).toMatch(/invalid "secret_name_template": .*Nope/);
  });

  describe('repohost authentication', () => {
    const base = { repository_owner: 'acme', repository_name: 'app' };

    test('needs access_token or app_name with installation_id', async () => {
      const reply = await f.request('POST', 'sys/sync/destinations/repohost/gh', base);
      expect(reply.status).toBe(400);
      expect(reply.body.errors[0]).toBe(
        'destination "repohost/gh": authentication is required: set "access_token", or "app_name" with "installation_id"',
      );
    });

    test('refuses an app_name that is not a stored GitHub app', async () => {
      const reply = await f.request('POST', 'sys/sync/destinations/repohost/gh', {
        ...base,
        app_name: 'ghost',
        installation_id: '42',
      });
      expect(reply.status).toBe(400);
      expect(reply.body.errors[0]).toBe(
        'destination "repohost/gh": github app "ghost" (app_name) does not exist under sys/sync/github-apps',
      );
    });

    test('refuses app_name without installation_id', async () => {
      await f.request('POST', 'sys/sync/github-apps/app1', { app_id: '7', private_key: PRIVATE_KEY });
      const reply = await f.request('POST', 'sys/sync/destinations/repohost/gh', { ...base, app_name: 'app1' });
      expect(reply.status).toBe(400);
      expect(reply.body.errors[0]).toBe('destination "repohost/gh": "installation_id" is required when "app_name" is set');
    });

    test('accepts an existing app with installation_id (shown in clear), no access_token shown', async () => {
      await f.request('POST', 'sys/sync/github-apps/app1', { app_id: '7', private_key: PRIVATE_KEY });
      const reply = await f.request('POST', 'sys/sync/destinations/repohost/gh', {
        ...base,
        app_name: 'app1',
        installation_id: 42,
      });
      expect(reply.status).toBe(200);
      expect(reply.body.data.connection_details).toEqual({
        app_name: 'app1',
        installation_id: '42',
        repository_owner: 'acme',
        repository_name: 'app',
      });
    });
  });
});

describe('destination update', () => {
  test('merges the fields sent; the others keep their values', async () => {
    await f.request('POST', 'sys/sync/destinations/cloud1-sm/aws1', { ...CLOUD1_BODY, custom_tags: { a: '1' } });
    const updated = await f.request('POST', 'sys/sync/destinations/cloud1-sm/aws1', {
      role_arn: 'arn:new',
      granularity: 'secret-key',
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toEqual({
      type: 'cloud1-sm',
      name: 'aws1',
      connection_details: {
        access_key_id: '*****',
        secret_access_key: '*****',
        role_arn: 'arn:new',
        external_id: 'ext-1',
        region: 'us-east-1',
      },
      options: {
        granularity_level: 'secret-key',
        secret_name_template: 'svc/{{ .MountAccessor }}/{{ .SecretPath }}/{{ .SecretKey }}',
        custom_tags: { a: '1' },
      },
    });
  });

  test('an empty sensitive value clears it (then omitted on read)', async () => {
    await f.request('POST', 'sys/sync/destinations/cloud1-sm/aws1', CLOUD1_BODY);
    const updated = await f.request('POST', 'sys/sync/destinations/cloud1-sm/aws1', { access_key_id: '' });
    expect(updated.status).toBe(200);
    expect(updated.body.data.connection_details).not.toHaveProperty('access_key_id');
    expect(updated.body.data.connection_details.secret_access_key).toBe('*****');
  });

  test.each([
    ['cloud1-sm', 'region', 'eu-central-1', CLOUD1_BODY],
    ['cloud2-kv', 'key_vault_uri', 'https://other.example.net', CLOUD2_BODY],
    ['cloud2-kv', 'tenant_id', 'tenant-2', CLOUD2_BODY],
    ['cloud2-kv', 'cloud', 'govcloud', CLOUD2_BODY],
    ['repohost', 'repository_owner', 'other', REPOHOST_BODY],
    ['repohost', 'repository_name', 'other', REPOHOST_BODY],
    ['webhost-project', 'project_id', 'prj_2', WEBHOST_BODY],
  ])('%s: changing %s to %s after creation is refused with 400', async (type, field, value, body) => {
    expect((await f.request('POST', `sys/sync/destinations/${type}/d1`, body)).status).toBe(200);
    const reply = await f.request('POST', `sys/sync/destinations/${type}/d1`, { [field]: value });
    expect(reply.status).toBe(400);
    expect(reply.body.errors[0]).toBe(
      `destination "${type}/d1": field "${field}" cannot be changed after creation because it identifies the ` +
        'remote store; delete and re-create the destination instead',
    );
    const read = await f.request('GET', `sys/sync/destinations/${type}/d1`);
    expect(read.body.data.connection_details[field]).toBe((body as Record<string, string>)[field] ?? 'cloud');
  });

  test('sending an identity field with its current value is accepted', async () => {
    await f.request('POST', 'sys/sync/destinations/cloud2-kv/d1', CLOUD2_BODY);
    const reply = await f.request('POST', 'sys/sync/destinations/cloud2-kv/d1', { ...CLOUD2_BODY, client_id: 'client-2' });
    expect(reply.status).toBe(200);
    expect(reply.body.data.connection_details.client_id).toBe('client-2');
  });
});

describe('destination lists', () => {
  test('LIST destinations is 404 when there are none', async () => {
    expect(await f.request('LIST', 'sys/sync/destinations')).toEqual({ status: 404, body: { errors: [] } });
    expect(await f.request('LIST', 'sys/sync/destinations/cloud1-sm')).toEqual({ status: 404, body: { errors: [] } });
  });

  test('LIST destinations groups names by type', async () => {
    await f.request('POST', 'sys/sync/destinations/cloud1-sm/b', { region: 'r' });
    await f.request('POST', 'sys/sync/destinations/cloud1-sm/a', { region: 'r' });
    await f.request('POST', 'sys/sync/destinations/repohost/gh', REPOHOST_BODY);
    const all = await f.request('LIST', 'sys/sync/destinations');
    expect(all.status).toBe(200);
    expect(all.body.data).toEqual({
      keys: ['cloud1-sm/', 'repohost/'],
      key_info: { 'cloud1-sm/': ['a', 'b'], 'repohost/': ['gh'] },
      total_destinations: 3,
    });
    const viaGet = await f.request('GET', 'sys/sync/destinations?list=true');
    expect(viaGet.body.data).toEqual(all.body.data);
    const ofType = await f.request('LIST', 'sys/sync/destinations/cloud1-sm');
    expect(ofType.status).toBe(200);
    expect(ofType.body.data).toEqual({ keys: ['a', 'b'], total_destinations: 2 });
  });

  test('GET on the list paths is 405', async () => {
    expect(await f.request('GET', 'sys/sync/destinations')).toEqual({ status: 405, body: { errors: ['unsupported operation'] } });
  });
});

describe('destination delete', () => {
  async function destinationWithAssociation(): Promise<void> {
    await f.writeSecret('app', { password: 'p1' });
    expect((await f.request('POST', 'sys/sync/destinations/cloud1-sm/aws1', CLOUD1_BODY)).status).toBe(200);
    const set = await f.request('POST', 'sys/sync/destinations/cloud1-sm/aws1/associations/set', {
      mount: 'secret',
      secret_name: 'app',
    });
    expect(set.status).toBe(200);
  }

  test('deleting an absent destination is 204', async () => {
    expect(await f.request('DELETE', 'sys/sync/destinations/cloud1-sm/none')).toEqual({ status: 204, body: undefined });
  });

  test('deletes a destination without associations at once', async () => {
    await f.request('POST', 'sys/sync/destinations/cloud1-sm/aws1', CLOUD1_BODY);
    expect((await f.request('DELETE', 'sys/sync/destinations/cloud1-sm/aws1')).status).toBe(204);
    expect((await f.request('GET', 'sys/sync/destinations/cloud1-sm/aws1')).status).toBe(404);
  });

  test('refuses to delete a destination that manages associations without purge', async () => {
    await destinationWithAssociation();
    for (const path of ['sys/sync/destinations/cloud1-sm/aws1', 'sys/sync/destinations/cloud1-sm/aws1?purge=false']) {
      const reply = await f.request('DELETE', path);
      expect(reply).toEqual({ status: 400, body: { errors: ['store cannot be deleted because it is still managing secrets'] } });
    }
    expect((await f.request('GET', 'sys/sync/destinations/cloud1-sm/aws1')).status).toBe(200);
  });

  test('purge=true unsyncs asynchronously: readable with purge_initiated_at until 300 ms have passed', async () => {
    await destinationWithAssociation();
    expect(Object.keys(f.inspect().externalStores['cloud1-sm/aws1'])).toHaveLength(1);
    expect((await f.request('DELETE', 'sys/sync/destinations/cloud1-sm/aws1?purge=true')).status).toBe(204);

    const during = await f.request('GET', 'sys/sync/destinations/cloud1-sm/aws1');
    expect(during.status).toBe(200);
    expect(during.body.data.purge_initiated_at).toBe(new Date(f.clock.now()).toISOString());
    expect(during.body.data.purge_initiated_at).toMatch(RFC3339_FRACTION);
    const changeDuring = await f.request('POST', 'sys/sync/destinations/cloud1-sm/aws1', { role_arn: 'x' });
    expect(changeDuring).toEqual({
      status: 400,
      body: { errors: ['destination "cloud1-sm/aws1" is being purged and cannot be changed'] },
    });

    f.clock.advance(299);
    expect((await f.request('GET', 'sys/sync/destinations/cloud1-sm/aws1')).status).toBe(200);
    f.clock.advance(1);
    expect(await f.request('GET', 'sys/sync/destinations/cloud1-sm/aws1')).toEqual({ status: 404, body: { errors: [] } });
    expect(f.inspect().externalStores['cloud1-sm/aws1']).toBeUndefined();
    expect(await f.request('LIST', 'sys/sync/associations')).toEqual({ status: 404, body: { errors: [] } });
  });

  test('force_delete=true deletes at once, with its associations and external secrets', async () => {
    await destinationWithAssociation();
    expect((await f.request('DELETE', 'sys/sync/destinations/cloud1-sm/aws1?force_delete=true')).status).toBe(204);
    expect((await f.request('GET', 'sys/sync/destinations/cloud1-sm/aws1')).status).toBe(404);
    expect(f.inspect().externalStores).toEqual({});
  });

  test('a purge value that is not a boolean is 400', async () => {
    const reply = await f.request('DELETE', 'sys/sync/destinations/cloud1-sm/aws1?purge=maybe');
    expect(reply).toEqual({ status: 400, body: { errors: ['query parameter "purge" must be true or false, got "maybe"'] } });
  });
});

describe('routing', () => {
  test('an unknown subpath is 404 unsupported path', async () => {
    for (const path of ['sys/sync/nothing', 'sys/sync/destinations/cloud1-sm/a/extra', 'sys/sync/config/more']) {
      expect(await f.request('GET', path)).toEqual({ status: 404, body: { errors: ['unsupported path'] } });
    }
  });

  test('a wrong method is 405 unsupported operation', async () => {
    const patch = await f.request('PATCH', 'sys/sync/destinations/cloud1-sm/a', {});
    expect(patch).toEqual({ status: 405, body: { errors: ['unsupported operation'] } });
  });
});
