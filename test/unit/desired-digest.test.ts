/**
 * The digest of a stack's desired state (setup/desired-digest.ts), which apply records and change detection
 * compares: its input holds secret references only, never a value; it does not depend on key order or construct
 * order; it changes with what decides the stack's desired state (a field, a secret's reference, a lifecycle
 * option, the connection, the service) and with nothing else (where the code creates a construct); and the
 * digest of a synthesized file read as specs (`secretform stacks`) equals that of the same file loaded for a run
 * (apply).
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { App, TerraformStack } from 'cdktf';
import { AuthMount, SecretValue, ServiceConnection, UserpassUser } from '../../src';
import { loadDesired, type DesiredResource, type DesiredStack } from '../../src/engine/setup/desired';
import fc from 'fast-check';
import {
  canonicalText, desiredDigest, digestInputOf, digestOfDesired, digestText, digestTextBeforeService, digestTextFromService, writeDigestTextBeforeService, type DigestInput,
} from '../../src/engine/setup/desired-digest';
import { secretReferenceJson } from '../../src/secret-value';
import { lifecycleJson, readSynthesizedConnection, readSynthesizedSpecs } from '../../src/synthesized-spec';
import { tempDir } from '../support/temp-dir';

const PASSWORD = 'digest-test-password-5f2c9';

function user(overrides: Partial<DesiredResource> = {}): DesiredResource {
  return {
    address: 'prod/ci',
    type: 'userpass_user',
    id: 'auth/userpass/users/ci',
    spec: { mount: 'userpass', username: 'ci', token_policies: ['default'], token_ttl: 3600 },
    secrets: { password: SecretValue.fromEnv('CI_PASSWORD') },
    dependsOn: ['prod/userpass'],
    digest: 'sha256:bridge',
    ...overrides,
  };
}

const mount: DesiredResource = {
  address: 'prod/userpass', type: 'auth_mount', id: 'sys/auth/userpass', spec: { path: 'userpass', type: 'userpass' }, secrets: {}, dependsOn: [], digest: 'sha256:bridge2',
};

function stack(resources: DesiredResource[], connection?: DesiredStack['connection']): DesiredStack {
  return { stack: 'prod', resources, ...(connection ? { connection } : {}) };
}

const connection = { construct: 'prod/service', address: 'https://secrets.example.com:8200', tokenEnv: 'PROD_TOKEN', skipVerify: false };

test('the digest is sha256 over references only: no secret value, from the environment or in memory', () => {
  process.env.CI_PASSWORD = PASSWORD;
  try {
    const desired = stack([mount, user()]);
    const text = digestText(digestInputOf(desired, 'https://x'));
    expect(text).toContain('"password":{"$secret":{"env":"CI_PASSWORD"}}');
    expect(text).not.toContain(PASSWORD);
    expect(digestOfDesired(desired, 'https://x')).toMatch(/^sha256:[0-9a-f]{64}$/);
    // A value held in memory (the API's unsafePlainText) stands as a marker, never as itself.
    const inMemoryText = digestText(digestInputOf(stack([mount, user({ secrets: { password: SecretValue.unsafePlainText(PASSWORD) } })]), 'https://x'));
    expect(inMemoryText).not.toContain(PASSWORD);
    expect(inMemoryText).toContain('"password":{"$secret":"in-memory"}');
  } finally {
    delete process.env.CI_PASSWORD;
  }
});

test('stable across key order, construct order, dependency order and the creation site', () => {
  const base = digestOfDesired(stack([mount, user()], connection), 'https://secrets.example.com:8200');
  const reordered = user({
    spec: { token_ttl: 3600, token_policies: ['default'], username: 'ci', mount: 'userpass' },
    dependsOn: ['prod/userpass'],
    source: { file: 'main.ts', line: 99, column: 3 },
  });
  const reorderedConnection = { skipVerify: false, tokenEnv: 'PROD_TOKEN', address: 'https://secrets.example.com:8200', construct: 'prod/elsewhere' };
  expect(digestOfDesired(stack([reordered, mount], reorderedConnection), 'https://secrets.example.com:8200')).toBe(base);
  // The per-resource bridge digest is derived from the rest: not an input of its own.
  expect(digestOfDesired(stack([mount, user({ digest: 'sha256:other' })], connection), 'https://secrets.example.com:8200')).toBe(base);
});

test('changes with a field, a secret reference, a lifecycle option, a waiver, the connection and the service', () => {
  const service = 'https://secrets.example.com:8200';
  const base = digestOfDesired(stack([mount, user()], connection), service);
  const variants = [
    digestOfDesired(stack([mount, user({ spec: { mount: 'userpass', username: 'ci', token_policies: ['admin'], token_ttl: 3600 } })], connection), service),
    digestOfDesired(stack([mount, user({ secrets: { password: SecretValue.fromEnv('OTHER_PASSWORD') } })], connection), service),
    digestOfDesired(stack([mount, user({ secrets: { password: SecretValue.fromFile('pw.txt') } })], connection), service),
    digestOfDesired(stack([mount, user({ lifecycle: { protect: true } })], connection), service),
    digestOfDesired(stack([mount, user({ lifecycle: { ignoreChanges: ['token_ttl'] } })], connection), service),
    digestOfDesired(stack([mount, user({ policyWaivers: { 'no-admin': 'break glass' } })], connection), service),
    digestOfDesired(stack([mount, user()], { ...connection, tokenEnv: 'OTHER_TOKEN' }), service),
    digestOfDesired(stack([mount, user()], { ...connection, caCertFile: 'ca.pem' }), service),
    digestOfDesired(stack([mount, user()], connection), 'https://elsewhere.example.com:8200'),
    digestOfDesired(stack([mount, user()]), service),
    digestOfDesired(stack([mount]), service),
  ];
  for (const variant of variants) expect(variant).not.toBe(base);
  expect(new Set(variants).size).toBe(variants.length);
  // lifecycle options that are off are no option at all.
  expect(digestOfDesired(stack([mount, user({ lifecycle: { protect: false, ignoreChanges: [] } })], connection), service)).toBe(base);
});

test('a synthesized stack read as specs has the digest of the same stack loaded for a run', () => {
  const dir = tempDir('secretform-digest-');
  try {
    const app = new App({ outdir: dir });
    const prod = new TerraformStack(app, 'prod');
    new ServiceConnection(prod, 'service', { address: 'https://secrets.example.com:8200', tokenEnv: 'PROD_TOKEN' });
    const auth = new AuthMount(prod, 'userpass', { path: 'userpass', type: 'userpass', protect: true });
    new UserpassUser(prod, 'ci', { mount: auth, username: 'ci', password: SecretValue.fromEnv('CI_PASSWORD'), tokenPolicies: ['default'] });
    app.synth();
    const file = join(dir, 'stacks', 'prod', 'cdk.tf.json');
    const config: unknown = JSON.parse(readFileSync(file, 'utf8'));
    const service = 'https://secrets.example.com:8200';
    const fromSpecs = desiredDigest({ resources: readSynthesizedSpecs(config, file), connection: readSynthesizedConnection(config, file), service });
    expect(fromSpecs).toBe(digestOfDesired(loadDesired(dir, 'prod'), service));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the canonical text is the plain form: keys sorted at every level, undefined members left out', () => {
  // The form the digest was defined with (and recorded in states since): what the faster writer must give.
  const plain = (value: unknown): string => {
    if (Array.isArray(value)) return `[${value.map(plain).join(',')}]`;
    if (typeof value === 'object' && value !== null) {
      const record = value as Record<string, unknown>;
      return `{${Object.keys(record).sort().filter((key) => record[key] !== undefined).map((key) => `${JSON.stringify(key)}:${plain(record[key])}`).join(',')}}`;
    }
    return JSON.stringify(value) ?? 'null';
  };
  const json = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: 'small' }, fc.string(), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.constant(undefined), tie('array'), tie('object')),
    array: fc.array(tie('value'), { maxLength: 5 }),
    object: fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('a', 'b', 'B', 'é', '__proto__x', 'z')), tie('value'), { maxKeys: 6 }),
  })).value;
  fc.assert(fc.property(json, (value) => canonicalText(value) === plain(value)), { numRuns: 2000 });
  expect(canonicalText({ b: 1, a: [undefined, { d: undefined, c: 'x' }] })).toBe('{"a":[null,{"c":"x"}],"b":1}');
});

test('the digest is the one earlier versions recorded: written in two parts, it is still the one-object canonical text', () => {
  // Digests computed by the version that wrote the text as one object: states recorded then must still match.
  const service = 'https://secrets.example.com:8200';
  const guarded = user({ lifecycle: { protect: true }, policyWaivers: { 'no-admin': 'break glass' } });
  expect(digestOfDesired(stack([mount, guarded], connection), service)).toBe('sha256:75bd75c1f44a363cb2935e2da57149b54f7680d0775a4caab17d54edc829c3bc');
  expect(digestOfDesired(stack([mount]), undefined)).toBe('sha256:90fb60c80912a1e8c0d8789ec0734077158ee9445891ccd48b9f98675014165f');
  // The text is canonical (keys sorted at every level) with the four members, the service after what synth knows.
  for (const [desired, at] of [[stack([mount, guarded], connection), service], [stack([mount, user()]), undefined]] as const) {
    const input = digestInputOf(desired, at);
    const text = digestText(input);
    expect(canonicalText(JSON.parse(text))).toBe(text);
    expect(Object.keys(JSON.parse(text) as object)).toEqual(['connection', 'resources', 'service', 'version']);
    expect(text).toBe(digestTextBeforeService(input) + digestTextFromService(at));
    expect(digestTextBeforeService(input).endsWith('],"service":')).toBe(true);
  }
});

test('the text written a resource at a time is the canonical text of the one object the digest was defined over', () => {
  // The form of earlier versions, built as one object and written by `canonicalText`: the oracle of the writer
  // that skips the object (and hands the text out in parts for synth to hash as it goes).
  const oneObject = (input: Omit<DigestInput, 'service'>): string => {
    const resources = [...input.resources].sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0)).map((resource) => ({
      address: resource.address,
      type: resource.type,
      id: resource.id,
      spec: resource.spec,
      secrets: Object.fromEntries(Object.entries(resource.secrets).map(([field, reference]) => [field, reference === undefined ? { $secret: 'in-memory' } : secretReferenceJson(reference)])),
      dependsOn: [...resource.dependsOn].sort(),
      ...lifecycleJson(resource.lifecycle),
      ...(resource.policyWaivers !== undefined && Object.keys(resource.policyWaivers).length > 0 ? { policyWaivers: resource.policyWaivers } : {}),
    }));
    const { construct: _construct, ...connectionJson } = input.connection ?? { construct: '' };
    return `{"connection":${canonicalText(input.connection === undefined ? null : connectionJson)},"resources":${canonicalText(resources)},"service":`;
  };
  const text = fc.string({ maxLength: 6 });
  const reference = fc.oneof(
    fc.constant(undefined),
    text.map((name) => SecretValue.fromEnv(`V${name.replace(/[^A-Za-z0-9_]/g, '')}`).reference),
    text.map((file) => SecretValue.fromFile(`f${file}`).reference),
  );
  const resource = fc.record({
    address: text,
    type: text,
    id: text,
    spec: fc.dictionary(text, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
    secrets: fc.dictionary(fc.constantFrom('password', 'bindpass', 'a', 'Z', 'é'), reference, { maxKeys: 3 }),
    dependsOn: fc.array(text, { maxLength: 4 }),
    lifecycle: fc.option(fc.record({ protect: fc.boolean(), retainOnDelete: fc.boolean(), ignoreChanges: fc.array(text, { maxLength: 2 }) }, { requiredKeys: [] }), { nil: undefined }),
    policyWaivers: fc.option(fc.dictionary(text, text, { maxKeys: 2 }), { nil: undefined }),
  });
  const input = fc.record({ resources: fc.array(resource, { maxLength: 5 }), connection: fc.option(fc.constant(connection), { nil: undefined }) });
  fc.assert(fc.property(input, (value) => {
    const parts: string[] = [];
    writeDigestTextBeforeService(value, (part) => parts.push(part));
    return digestTextBeforeService(value) === oneObject(value) && parts.join('') === oneObject(value);
  }), { numRuns: 1000 });
});
