import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App, TerraformStack } from 'cdktf';
import { NullProvider } from '@cdktf/provider-null/lib/provider';
import { desiredFromStack, loadDesired, LdapSecretBackend, LdapStaticRole, SecretValue, SecretsMount, UserpassUser } from '../../src';
import { specDigest } from '../../src/constructs/bridge';
import { getResourceType } from '../../src/resources';
import { parseSecretReferenceJson } from '../../src/secret-value';
import { addEveryConstruct, SECRET_ENV, SECRET_FILE_VALUE } from '../e2e/synth-fixture';

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
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'secretform-synth-'));
  tempDirs.push(outdir);
  return { app: new App({ outdir }), outdir };
}

function readStack(outdir: string, stack = 'prod') {
  const config = JSON.parse(fs.readFileSync(path.join(outdir, 'stacks', stack, 'cdk.tf.json'), 'utf8'));
  const nullResources = config.resource.null_resource as Record<string, Record<string, any>>;
  const byAddress = new Map<string, { logicalId: string; block: Record<string, any>; entry: SynthesizedEntry }>();
  for (const [logicalId, block] of Object.entries(nullResources)) {
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
    if (!found) throw new Error(`no null_resource for ${address}; have ${[...byAddress.keys()].join(', ')}`);
    return found;
  };

  test('emits one null_resource per construct, plus the mount of each backend', () => {
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
      const expected = synthesizedEntry.dependsOn.map((address) => `null_resource.${entry(address).logicalId}`).sort();
      expect([...(block.depends_on ?? [])].sort()).toEqual(expected);
    }
  });

  test('writes the cdktf deploy bridge: triggers, create_before_destroy and both local-exec provisioners', () => {
    const { block, entry: role } = entry('prod/svc-role');
    expect(Object.keys(block.triggers).sort()).toEqual(['address', 'digest', 'stack', 'workdir']);
    expect(block.triggers.address).toBe('prod/svc-role');
    expect(block.triggers.stack).toBe('prod');
    expect(block.triggers.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(block.triggers.digest).toBe(role.digest);
    expect(block.lifecycle).toEqual({ create_before_destroy: true });
    const workdir = path.relative(path.join(synthesized.outdir, 'stacks', 'prod'), process.cwd()).split(path.sep).join('/');
    expect(block.triggers.workdir).toBe(workdir);
    const output = path.relative(process.cwd(), synthesized.outdir).split(path.sep).join('/');
    expect(block.provisioner).toEqual([
      { 'local-exec': { command: `npx secretform apply --no-synth --output '${output}' --stack 'prod' --target 'prod/svc-role' --auto-approve`, working_dir: workdir } },
      {
        'local-exec': {
          when: 'destroy',
          command: `npx secretform destroy --no-synth --output '${output}' --stack '\${self.triggers.stack}' --target '\${self.triggers.address}' --if-digest '\${self.triggers.digest}' --auto-approve`,
          working_dir: '${self.triggers.workdir}',
        },
      },
    ]);
    // The working directory, resolved from where terraform runs, is the project directory.
    expect(path.resolve(synthesized.outdir, 'stacks', 'prod', block.triggers.workdir)).toBe(process.cwd());
  });

  test('adds the null provider once', () => {
    expect(config.provider).toEqual({ null: [{}] });
    expect(config.terraform.required_providers.null.source).toMatch(/null$/);
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
  test('each stack gets its own null provider, and a digest changes only with the spec', () => {
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
    expect(first.config.provider).toEqual({ null: [{}] });
    expect(second.config.provider).toEqual({ null: [{}] });
    // "24h" and 86400 are the same canonical spec; the address differs but is not part of the digest.
    expect(first.byAddress.get('one/role')!.entry.digest).toBe(second.byAddress.get('two/role')!.entry.digest);
    expect(first.byAddress.get('one/ldap')!.entry.digest).toBe(second.byAddress.get('two/ldap')!.entry.digest);
  });

  test('a null provider of the user replaces the one secretform adds', () => {
    const { app, outdir } = newApp();
    const stack = new TerraformStack(app, 'prod');
    new SecretsMount(stack, 'kv', { path: 'kv', type: 'kv', options: { version: '2' } });
    new NullProvider(stack, 'mine', {});
    app.synth();
    expect(readStack(outdir).config.provider).toEqual({ null: [{}] });
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
