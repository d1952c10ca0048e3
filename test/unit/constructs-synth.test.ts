import * as fs from 'node:fs';
import * as path from 'node:path';
import { App, TerraformOutput, TerraformStack } from 'cdktf';
import { configureDeployBridge, desiredFromStack, loadDesired, LdapSecretBackend, LdapStaticRole, SecretValue, SecretsMount, UserpassUser } from '../../src';
import fc from 'fast-check';
import { specDigest, stableJson } from '../../src/constructs/bridge';
import { getResourceType } from '../../src/resources';
import { parseSecretReferenceJson } from '../../src/secret-value';
import { addEveryConstruct, SECRET_ENV, SECRET_FILE_VALUE } from '../e2e/synth-fixture';
import { tempDir } from '../support/temp-dir';

interface SynthesizedEntry {
  version: number;
  type: string;
  address: string;
  id: string;
  spec: Record<string, unknown>;
  secrets: Record<string, unknown>;
  dependsOn: string[];
  digest: string;
}

const tempDirs: string[] = [];
afterAll(() => tempDirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

function newApp(): { app: App; outdir: string } {
  const outdir = tempDir('secretform-synth-');
  tempDirs.push(outdir);
  return { app: new App({ outdir }), outdir };
}

function readStack(outdir: string, stack = 'prod', type = 'terraform_data') {
  const config = JSON.parse(fs.readFileSync(path.join(outdir, 'stacks', stack, 'cdk.tf.json'), 'utf8'));
  const blocks = config.resource[type] as Record<string, Record<string, any>>;
  const byAddress = new Map<string, { logicalId: string; block: Record<string, any>; entry: SynthesizedEntry }>();
  for (const [logicalId, block] of Object.entries(blocks)) {
    if (logicalId === 'secretform') continue; // the stack-level bridge step
    const entry = block['//'].secretform as SynthesizedEntry;
    byAddress.set(entry.address, { logicalId, block, entry });
  }
  return { config, byAddress };
}

function synthEveryConstruct() {
  const { app, outdir } = newApp();
  const stack = new TerraformStack(app, 'prod');
  const constructs = addEveryConstruct(stack);
  app.synth();
  return { app, stack, outdir, constructs, ...readStack(outdir) };
}

describe('synth of a stack with every construct (real app.synth())', () => {
  const synthesized = synthEveryConstruct();
  const { byAddress, config } = synthesized;
  const entry = (address: string) => {
    const found = byAddress.get(address);
    if (!found) throw new Error(`no terraform_data for ${address}; have ${[...byAddress.keys()].join(', ')}`);
    return found;
  };

  test('emits one terraform_data entry per construct, plus the mount of each backend', () => {
    expect([...byAddress.keys()].sort()).toEqual([
      'prod/alice', 'prod/assoc', 'prod/cloud', 'prod/cloud-role', 'prod/cloud/mount', 'prod/dest-cloud1', 'prod/dest-cloud2',
      'prod/dest-cloud3', 'prod/dest-repohost', 'prod/dest-repohost-token', 'prod/dest-webhost', 'prod/dyn-role', 'prod/gh-app', 'prod/kv',
      'prod/ldap', 'prod/ldap/mount', 'prod/library', 'prod/svc-role', 'prod/sync-config', 'prod/userpass',
    ]);
  });

  test('each entry names its type, id and format version', () => {
    const expected: Record<string, [string, string]> = {
      'prod/kv': ['secrets_mount', 'sys/mounts/secret'],
      'prod/userpass': ['auth_mount', 'sys/auth/userpass'],
      'prod/cloud': ['cloud_secret_backend', 'cloud/config'],
      'prod/cloud/mount': ['secrets_mount', 'sys/mounts/cloud'],
      'prod/cloud-role': ['cloud_secret_role', 'cloud/roles/deployer'],
      'prod/alice': ['userpass_user', 'auth/userpass/users/alice'],
      'prod/sync-config': ['sync_config', 'sys/sync/config'],
      'prod/gh-app': ['sync_github_app', 'sys/sync/github-apps/ci-app'],
      'prod/dest-cloud1': ['sync_destination_cloud1_sm', 'sys/sync/destinations/cloud1-sm/c1'],
      'prod/dest-cloud2': ['sync_destination_cloud2_kv', 'sys/sync/destinations/cloud2-kv/c2'],
      'prod/dest-cloud3': ['sync_destination_cloud3_sm', 'sys/sync/destinations/cloud3-sm/c3'],
      'prod/dest-repohost': ['sync_destination_repohost', 'sys/sync/destinations/repohost/gh'],
      'prod/dest-webhost': ['sync_destination_webhost_project', 'sys/sync/destinations/webhost-project/web'],
      'prod/assoc': ['sync_association', 'sys/sync/destinations/cloud1-sm/c1/associations/secret/app/db'],
      'prod/ldap': ['ldap_secret_backend', 'ldap/config'],
      'prod/ldap/mount': ['secrets_mount', 'sys/mounts/ldap'],
      'prod/svc-role': ['ldap_static_role', 'ldap/static-role/svc'],
      'prod/dyn-role': ['ldap_dynamic_role', 'ldap/role/temp'],
      'prod/library': ['ldap_library_set', 'ldap/library/pool'],
    };
    for (const [address, [type, id]] of Object.entries(expected)) {
      expect({ address, type: entry(address).entry.type, id: entry(address).entry.id, version: entry(address).entry.version }).toEqual({ address, type, id, version: 1 });
    }
  });

  test('carries the full non-secret spec by service field names, secrets only as references', () => {
    expect(entry('prod/cloud-role').entry.spec).toEqual({
      mount: 'cloud', name: 'Deployer',
      cloud_roles: [{ scope: '/subscriptions/sub-1', role_name: 'Reader' }, { scope: '/subscriptions/sub-1/rg/x', role_id: '/roleDefinitions/abc' }],
      cloud_groups: [{ group_name: 'ops' }], ttl: '1h', max_ttl: '2h', tags: ['team:ops', 'env:prod'], sign_in_audience: 'CloudADMyOrg',
    });
    expect(entry('prod/alice').entry.spec).toEqual({
      mount: 'userpass', username: 'alice', token_ttl: '1h', token_max_ttl: 7200, token_policies: ['default', 'readers'],
      token_bound_cidrs: ['10.0.0.0/8', '192.168.1.7'], token_type: 'batch',
    });
    expect(entry('prod/alice').entry.secrets).toEqual({ password: { $secret: { env: 'SF_USER_PASSWORD' } } });
    expect(entry('prod/dest-cloud3').entry.secrets).toEqual({ credentials: { $secret: { file: 'cloud3-credentials.json' } } });
    expect(entry('prod/dest-repohost').entry.spec).toEqual({
      name: 'gh', app_name: 'ci-app', installation_id: '42', repository_owner: 'acme', repository_name: 'web',
    });
    expect(entry('prod/assoc').entry.spec).toEqual({ destination_type: 'cloud1-sm', destination_name: 'c1', mount: 'secret', secret_name: 'app/db' });
    expect(entry('prod/ldap').entry.secrets).toEqual({
      bindpass: { $secret: { env: 'SF_LDAP_BINDPASS' } }, client_tls_key: { $secret: { env: 'SF_LDAP_CLIENT_KEY' } },
    });
    expect(entry('prod/ldap').entry.spec).not.toHaveProperty('bindpass');
    expect(entry('prod/svc-role').entry.spec).toEqual({ mount: 'ldap', name: 'svc', username: 'svc', rotation_period: '24h', skip_import_rotation: true });
    expect(entry('prod/kv').entry.spec).toEqual({ path: 'secret', type: 'kv', options: { version: '2' }, description: 'application secrets' });
  });

  test('orders dependencies: mount before backend before roles, destination before association, app before its destination', () => {
    const deps = (address: string) => entry(address).entry.dependsOn;
    expect(deps('prod/cloud')).toEqual(['prod/cloud/mount']);
    expect(deps('prod/cloud-role')).toEqual(expect.arrayContaining(['prod/cloud', 'prod/cloud/mount']));
    expect(deps('prod/alice')).toEqual(['prod/userpass']);
    expect(deps('prod/assoc')).toEqual(expect.arrayContaining(['prod/dest-cloud1', 'prod/kv']));
    expect(deps('prod/dest-repohost')).toEqual(['prod/gh-app']);
    expect(deps('prod/dest-repohost-token')).toEqual([]);
    expect(deps('prod/ldap')).toEqual(['prod/ldap/mount']);
    expect(deps('prod/svc-role')).toEqual(expect.arrayContaining(['prod/ldap', 'prod/ldap/mount']));
    // Given as a mount path string, the dynamic role still depends on the construct that manages that mount.
    expect(deps('prod/dyn-role')).toEqual(expect.arrayContaining(['prod/ldap', 'prod/ldap/mount']));
    expect(deps('prod/library')).toEqual(expect.arrayContaining(['prod/ldap']));
    expect(deps('prod/kv')).toEqual([]);
    // The terraform depends_on mirrors the secretform dependencies.
    for (const { block, entry: synthesizedEntry } of byAddress.values()) {
      const expected = synthesizedEntry.dependsOn.map((address) => `terraform_data.${entry(address).logicalId}`).sort();
      expect([...(block.depends_on ?? [])].sort()).toEqual(expected);
    }
  });

  test('each entry is plain data (address, type, id, digest): no provisioner, no provider', () => {
    const { block, entry: role } = entry('prod/svc-role');
    expect(block.input).toEqual({ address: 'prod/svc-role', type: 'ldap_static_role', id: 'ldap/static-role/svc', digest: role.digest });
    expect(role.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    for (const { block: other } of byAddress.values()) expect(other.provisioner).toBeUndefined();
    expect(config.provider).toBeUndefined();
    expect(config.resource.null_resource).toBeUndefined();
  });

  test('one stack-level step converges the whole stack on every deploy and destroys it on cdktf destroy', () => {
    const step = config.resource.terraform_data.secretform;
    const workdir = path.relative(path.join(synthesized.outdir, 'stacks', 'prod'), process.cwd()).split(path.sep).join('/');
    const output = path.relative(process.cwd(), synthesized.outdir).split(path.sep).join('/');
    expect(step.input).toEqual({
      stack: 'prod',
      workdir,
      apply: `npx --no-install secretform apply --no-synth --output '${output}' --stack 'prod' --auto-approve`,
      destroy: `npx --no-install secretform destroy --no-synth --output '${output}' --stack 'prod' --auto-approve`,
    });
    expect(step.triggers_replace).toBe('${timestamp()}');
    expect(step.lifecycle).toEqual({ create_before_destroy: true });
    expect(step.provisioner).toEqual([
      { 'local-exec': { command: '${self.input.apply}', working_dir: '${self.input.workdir}' } },
      { 'local-exec': { when: 'destroy', command: '${self.input.destroy}', working_dir: '${self.input.workdir}' } },
    ]);
    expect([...step.depends_on].sort()).toEqual([...byAddress.values()].map(({ logicalId }) => `terraform_data.${logicalId}`).sort());
    // The working directory, resolved from where terraform runs, is the project directory.
    expect(path.resolve(synthesized.outdir, 'stacks', 'prod', step.input.workdir)).toBe(process.cwd());
    // Exactly one resource in the stack runs anything.
    const withProvisioners = Object.values(config.resource).flatMap((byId) => Object.values(byId as Record<string, any>)).filter((block) => block.provisioner);
    expect(withProvisioners).toHaveLength(1);
  });

  test('the digest is the sha256 of the canonical spec and the secret references', () => {
    const digests = [...byAddress.values()].map(({ entry: synthesizedEntry }) => synthesizedEntry.digest);
    expect(new Set(digests).size).toBe(digests.length);
    const role = entry('prod/svc-role').entry;
    const canonical = getResourceType('ldap_static_role').normaliseDesired(role.spec);
    expect(canonical).toEqual({ mount: 'ldap', name: 'svc', username: 'svc', rotation_period: 86400, skip_import_rotation: true });
    expect(role.digest).toBe(specDigest('ldap_static_role', role.id, canonical, {}));
    // A resource with secrets: their references (never values) are part of what the digest covers.
    const backend = entry('prod/ldap').entry;
    const sources = Object.fromEntries(Object.entries(backend.secrets).map(([field, json]) => [field, parseSecretReferenceJson(json)]));
    expect(Object.keys(sources)).toContain('bindpass');
    const backendCanonical = getResourceType(backend.type).normaliseDesired(backend.spec);
    expect(backend.digest).toBe(specDigest(backend.type, backend.id, backendCanonical, sources));
    expect(backend.digest).not.toBe(specDigest(backend.type, backend.id, backendCanonical, {}));
  });

  test('no secret value appears anywhere in cdktf.out', () => {
    const files = listFiles(synthesized.outdir);
    expect(files.length).toBeGreaterThan(1);
    const all = files.map((file) => fs.readFileSync(file, 'utf8')).join('\n');
    for (const value of [...Object.values(SECRET_ENV), SECRET_FILE_VALUE]) expect(all).not.toContain(value);
  });

  test('loadDesired reads back what desiredFromStack computes in memory', () => {
    const loaded = loadDesired(synthesized.outdir, 'prod');
    const inMemory = desiredFromStack(synthesized.stack);
    expect(loaded.stack).toBe('prod');
    const simplify = (resources: typeof loaded.resources) =>
      resources
        .map((resource) => ({ ...resource, secrets: Object.fromEntries(Object.entries(resource.secrets).map(([field, secret]) => [field, secret.reference])) }))
        .sort((a, b) => a.address.localeCompare(b.address));
    expect(simplify(loaded.resources)).toEqual(simplify(inMemory.resources));
    expect(loaded.resources).toHaveLength(20);
    expect(loadDesired(synthesized.outdir).stack).toBe('prod');
  });
});

describe('SecretValue.unsafePlainText', () => {
  test('fails synth naming the construct and field, and writes no secret', () => {
    const { app, outdir } = newApp();
    const stack = new TerraformStack(app, 'prod');
    new UserpassUser(stack, 'bob', { username: 'bob', password: SecretValue.unsafePlainText('plain-bob-password-0042') });
    expect(() => app.synth()).toThrow(/prod\/bob: password: received \(sensitive\); SecretValue.unsafePlainText cannot be synthesized .*use SecretValue.fromEnv or SecretValue.fromFile/);
    const written = listFiles(outdir).map((file) => fs.readFileSync(file, 'utf8')).join('\n');
    expect(written).not.toContain('plain-bob-password-0042');
  });

  test('reaches the engine through desiredFromStack', async () => {
    const { app } = newApp();
    const stack = new TerraformStack(app, 'dev');
    new UserpassUser(stack, 'bob', { username: 'bob', password: SecretValue.unsafePlainText('plain-bob-password-0042') });
    const desired = desiredFromStack(stack);
    expect(desired.resources).toHaveLength(1);
    const { resolveSecretValue } = await import('../../src/secret-value');
    await expect(resolveSecretValue(desired.resources[0].secrets.password)).resolves.toBe('plain-bob-password-0042');
    expect(JSON.stringify(desired)).not.toContain('plain-bob-password-0042');
  });
});

describe('stack plumbing', () => {
  test('each stack gets its own bridge step, and a digest changes only with the spec', () => {
    const { app, outdir } = newApp();
    const one = new TerraformStack(app, 'one');
    const two = new TerraformStack(app, 'two');
    const three = new TerraformStack(app, 'three');
    const build = (stack: TerraformStack, period: string, bindpass = SecretValue.fromEnv('BINDPASS')) => {
      const ldap = new LdapSecretBackend(stack, 'ldap', { binddn: 'cn=admin', bindpass });
      new LdapStaticRole(stack, 'role', { backend: ldap, name: 'svc', username: 'svc', rotationPeriod: period });
    };
    build(one, '24h');
    build(two, '86400');
    build(three, '24h', SecretValue.fromFile('bindpass.txt'));
    app.synth();
    const first = readStack(outdir, 'one');
    const second = readStack(outdir, 'two');
    // A secret taken from somewhere else is a change (the engine re-applies it); its value is never hashed.
    expect(readStack(outdir, 'three').byAddress.get('three/ldap')!.entry.digest).not.toBe(first.byAddress.get('one/ldap')!.entry.digest);
    expect(first.config.resource.terraform_data.secretform.input.stack).toBe('one');
    expect(second.config.resource.terraform_data.secretform.input.stack).toBe('two');
    // "24h" and 86400 are the same canonical spec; the address differs but is not part of the digest.
    expect(first.byAddress.get('one/role')!.entry.digest).toBe(second.byAddress.get('two/role')!.entry.digest);
    expect(first.byAddress.get('one/ldap')!.entry.digest).toBe(second.byAddress.get('two/ldap')!.entry.digest);
  });

  test('null_resource on request: the same entries and step as null_resources, the null provider implied by the type', () => {
    const { app, outdir } = newApp();
    const stack = new TerraformStack(app, 'prod');
    configureDeployBridge(stack, { resource: 'null_resource', command: "node '/opt/sf/bin/secretform.js'" });
    const kv = new SecretsMount(stack, 'kv', { path: 'kv', type: 'kv', options: { version: '2' } });
    app.synth();
    const { config, byAddress } = readStack(outdir, 'prod', 'null_resource');
    expect(config.resource.terraform_data).toBeUndefined();
    expect(byAddress.get('prod/kv')!.block.triggers).toEqual({ address: 'prod/kv', type: 'secrets_mount', id: 'sys/mounts/kv', digest: byAddress.get('prod/kv')!.entry.digest });
    const step = config.resource.null_resource.secretform;
    expect(step.triggers.run).toBe('${timestamp()}');
    expect(step.triggers.apply).toMatch(/^node '\/opt\/sf\/bin\/secretform.js' apply --no-synth --output '.*' --stack 'prod' --auto-approve$/);
    expect(step.lifecycle).toEqual({ create_before_destroy: true });
    expect(step.provisioner[1]).toEqual({ 'local-exec': { when: 'destroy', command: '${self.triggers.destroy}', working_dir: '${self.triggers.workdir}' } });
    expect(loadDesired(outdir, 'prod').resources.map((resource) => resource.address)).toEqual([kv.address]);
  });

  test('the bridge is chosen by the secretform:bridge context too, and an unknown one fails synth', () => {
    const { outdir } = newApp();
    const app = new App({ outdir, context: { 'secretform:bridge': 'null_resource' } });
    new SecretsMount(new TerraformStack(app, 'prod'), 'kv', { path: 'kv', type: 'kv', options: { version: '2' } });
    app.synth();
    expect(readStack(outdir, 'prod', 'null_resource').byAddress.has('prod/kv')).toBe(true);
    const bad = new App({ outdir, context: { 'secretform:bridge': 'local_file' } });
    new SecretsMount(new TerraformStack(bad, 'prod'), 'kv', { path: 'kv', type: 'kv', options: { version: '2' } });
    expect(() => bad.synth()).toThrow(/prod: deploy bridge resource: received "local_file"; one of "terraform_data", "null_resource"/);
  });

  test('each construct exposes its identity (resourceId, servicePath) as plain strings for a TerraformOutput', () => {
    const { app, outdir } = newApp();
    const stack = new TerraformStack(app, 'prod');
    const ldap = new LdapSecretBackend(stack, 'ldap', { binddn: 'cn=admin', bindpass: SecretValue.fromEnv('BINDPASS') });
    const role = new LdapStaticRole(stack, 'role', { backend: ldap, name: 'svc', username: 'svc', rotationPeriod: '24h' });
    new TerraformOutput(stack, 'role_id', { value: role.resourceId });
    new TerraformOutput(stack, 'role_path', { value: role.servicePath });
    app.synth();
    const { config } = readStack(outdir);
    expect(config.output).toEqual({ role_id: { value: 'ldap/static-role/svc' }, role_path: { value: '/v1/ldap/static-role/svc' } });
  });

  test('a backend with manageMount false emits no mount and depends on a mount managed elsewhere', () => {
    const { app, outdir } = newApp();
    const stack = new TerraformStack(app, 'prod');
    new SecretsMount(stack, 'directory', { path: 'dir', type: 'ldap' });
    new LdapSecretBackend(stack, 'ldap', { path: 'dir', manageMount: false, binddn: 'cn=admin', bindpass: SecretValue.fromEnv('BINDPASS') });
    app.synth();
    const { byAddress } = readStack(outdir);
    expect([...byAddress.keys()].sort()).toEqual(['prod/directory', 'prod/ldap']);
    expect(byAddress.get('prod/ldap')!.entry.dependsOn).toEqual(['prod/directory']);
  });
});

function listFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? listFiles(full) : [full];
  });
}

describe('the bridge digest', () => {
  test('is the one earlier versions wrote: stableJson is the form with every key list sorted', () => {
    // The form the digest was defined with (sorting every object's keys): terraform replaces a carrier whose
    // digest changes, so the faster writer must give the same text.
    const sortedEverywhere = (value: unknown): string => {
      if (Array.isArray(value)) return `[${value.map((item) => (sortedEverywhere(item) as string | undefined) ?? '').join(',')}]`;
      if (typeof value === 'object' && value !== null) {
        const record = value as Record<string, unknown>;
        return `{${Object.keys(record).sort().filter((key) => record[key] !== undefined).map((key) => `${JSON.stringify(key)}:${sortedEverywhere(record[key])}`).join(',')}}`;
      }
      return JSON.stringify(value);
    };
    const json = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, fc.string(), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.constant(undefined), tie('array'), tie('object')),
      array: fc.array(tie('value'), { maxLength: 5 }),
      object: fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('a', 'b', 'B', 'é', 'z')), tie('value'), { maxKeys: 6 }),
    })).value;
    fc.assert(fc.property(json, (value) => stableJson(value) === sortedEverywhere(value)), { numRuns: 2000 });
    expect(stableJson({ b: [1, undefined, { d: undefined, c: 'x' }], a: 'é' })).toBe('{"a":"é","b":[1,,{"c":"x"}]}');
    // Computed by the version before (e436daa).
    const spec = { username: 'ci', mount: 'userpass', token_policies: ['default', 'b'], token_ttl: 3600, nested: { z: 1, a: [{ y: null, b: true }] } };
    expect(specDigest('userpass_user', 'auth/userpass/users/ci', spec, { password: { env: 'CI_PASSWORD' } })).toBe('sha256:3a3b25db4f9b94f595e7ab4805ad67359b3d469b0d7b5cc8b15fb0d0fec0e619');
  });
});
