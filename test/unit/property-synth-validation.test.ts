/**
 * Property-based tests of validation at synth (fast-check, fixed seeds). For names that become API path
 * segments, generated with adversarial shapes (dot and empty segments, slashes, unicode, control characters,
 * percent-encoded dots, reserved mount paths, long values):
 * - a name accepted at synth yields API paths without a dot or empty segment and without control characters;
 * - a name the rules refuse yields an error naming the construct path and the prop, and never a throw.
 * For durations: an accepted duration is the integer seconds the service computes, and nothing beyond what
 * the service holds is accepted. The path check and the duration reference below are written from
 * service-api.md on their own, not taken from src/resources.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import fc from 'fast-check';
import { App, TerraformStack } from 'cdktf';
import {
  AuthMount, CloudSecretRole, LdapDynamicRole, LdapLibrarySet, LdapSecretBackend, LdapStaticRole, SecretsMount, SecretValue,
  SyncAssociation, SyncCloud1SmDestination, SyncGithubApp, SyncRepohostDestination, UserpassUser,
} from '../../src';
import type { SecretformResource } from '../../src/constructs/resource';
import { tempDir } from '../support/temp-dir';

/** Runs of each property; the counts are reported by the issue's closing note. */
const RUNS = { namesPerTarget: 150, synth: 25, durations: 1000, durationProps: 200 };
const SEED = 20261124;

// ---- what the rules say, written from the document on their own ----

const NAME_LIMIT = 256;
const RESERVED_SECRETS = ['sys', 'auth', 'cubbyhole', 'identity', 'audit'];
const RESERVED_AUTH = ['token'];
// eslint-disable-next-line no-control-regex -- mirrors the names rule: control characters are refused
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

type NameKind = 'single' | 'hierarchical' | 'secrets-mount' | 'auth-mount';

function isDot(segment: string): boolean {
  const decoded = segment.replace(/%2e/gi, '.');
  return decoded === '.' || decoded === '..';
}

/** Whether a name is one the path rules must refuse (the constructs may refuse more: character sets). */
function mustRefuse(name: string, kind: NameKind): boolean {
  if (name.length === 0 || name.length > NAME_LIMIT || CONTROL.test(name) || name.includes('\\')) return true;
  const segments = name.split('/');
  if (kind === 'single') return segments.length > 1 || isDot(name);
  if (segments.some((segment) => segment === '' || isDot(segment))) return true;
  if (kind === 'secrets-mount') return RESERVED_SECRETS.includes(segments[0]);
  if (kind === 'auth-mount') return RESERVED_AUTH.includes(segments[0]);
  return false;
}

/** An API path a path-normalising proxy leaves alone and whose segments are all names. */
function isCleanApiPath(apiPath: string): boolean {
  if (CONTROL.test(apiPath) || apiPath.includes('\\')) return false;
  return apiPath.split('/').every((segment) => segment !== '' && !isDot(segment));
}

// ---- the constructs and props under test: every prop that becomes part of an API path ----

const secret = () => SecretValue.fromEnv('SECRET');
const ldif = 'dn: cn={{.Username}},dc=example,dc=org\ncn: {{.Username}}\n';

interface Target {
  readonly label: string;
  readonly prop: string;
  readonly kind: NameKind;
  build(stack: TerraformStack, value: string): SecretformResource;
}

const TARGETS: Target[] = [
  { label: 'SecretsMount.path', prop: 'path', kind: 'secrets-mount', build: (s, v) => new SecretsMount(s, 'r', { path: v, type: 'kv' }) },
  { label: 'AuthMount.path', prop: 'path', kind: 'auth-mount', build: (s, v) => new AuthMount(s, 'r', { path: v, type: 'userpass' }) },
  {
    label: 'LdapSecretBackend.path', prop: 'path', kind: 'secrets-mount',
    build: (s, v) => new LdapSecretBackend(s, 'r', { path: v, manageMount: false, binddn: 'cn=admin', bindpass: secret() }),
  },
  { label: 'LdapStaticRole.name', prop: 'name', kind: 'hierarchical', build: (s, v) => new LdapStaticRole(s, 'r', { backend: 'ldap', name: v, username: 'u', rotationPeriod: '1h' }) },
  { label: 'LdapStaticRole.backend', prop: 'backend', kind: 'secrets-mount', build: (s, v) => new LdapStaticRole(s, 'r', { backend: v, name: 'svc', username: 'u', rotationPeriod: '1h' }) },
  { label: 'LdapDynamicRole.name', prop: 'name', kind: 'hierarchical', build: (s, v) => new LdapDynamicRole(s, 'r', { backend: 'ldap', name: v, creationLdif: ldif, deletionLdif: ldif }) },
  { label: 'LdapLibrarySet.name', prop: 'name', kind: 'hierarchical', build: (s, v) => new LdapLibrarySet(s, 'r', { backend: 'ldap', name: v, serviceAccountNames: ['a'] }) },
  { label: 'CloudSecretRole.name', prop: 'name', kind: 'single', build: (s, v) => new CloudSecretRole(s, 'r', { backend: 'cloud', name: v, applicationObjectId: 'o' }) },
  { label: 'CloudSecretRole.backend', prop: 'backend', kind: 'secrets-mount', build: (s, v) => new CloudSecretRole(s, 'r', { backend: v, name: 'r', applicationObjectId: 'o' }) },
  { label: 'UserpassUser.username', prop: 'username', kind: 'single', build: (s, v) => new UserpassUser(s, 'r', { username: v, password: secret() }) },
  { label: 'UserpassUser.mount', prop: 'mount', kind: 'auth-mount', build: (s, v) => new UserpassUser(s, 'r', { mount: v, username: 'alice', password: secret() }) },
  { label: 'SyncCloud1SmDestination.name', prop: 'name', kind: 'single', build: (s, v) => new SyncCloud1SmDestination(s, 'r', { name: v }) },
  { label: 'SyncGithubApp.name', prop: 'name', kind: 'single', build: (s, v) => new SyncGithubApp(s, 'r', { name: v, appId: '1', privateKey: secret() }) },
  {
    label: 'SyncRepohostDestination.app', prop: 'app', kind: 'single',
    build: (s, v) => new SyncRepohostDestination(s, 'r', { name: 'gh', app: v, installationId: '1', repositoryOwner: 'o', repositoryName: 'n' }),
  },
  {
    label: 'SyncAssociation.secretName', prop: 'secretName', kind: 'hierarchical',
    build: (s, v) => new SyncAssociation(s, 'r', { destination: new SyncCloud1SmDestination(s, 'dest', { name: 'd' }), mount: 'kv', secretName: v }),
  },
  {
    label: 'SyncAssociation.mount', prop: 'mount', kind: 'secrets-mount',
    build: (s, v) => new SyncAssociation(s, 'r', { destination: new SyncCloud1SmDestination(s, 'dest', { name: 'd' }), mount: v, secretName: 'app/db' }),
  },
];

/** Names with the shapes that went wrong: dot and empty segments, slashes, reserved paths, unicode, controls, length. */
const ATOMS = ['.', '..', '', 'a', 'svc', 'Team', 'sys', 'auth', 'token', 'identity', 'cubbyhole', 'audit', '%2e', '%2E%2e', 'é', 'ß', '\u{1F600}',
  '\n', '\u0000', '\t', '\u007f', '\u0085', '\\', ' ', '@', '-', '_', 'x.y', '?', '#', '%'];
const nameArbitrary: fc.Arbitrary<string> = fc.oneof(
  fc.array(fc.constantFrom(...ATOMS), { minLength: 1, maxLength: 5 }).map((parts) => parts.join('/')),
  fc.array(fc.constantFrom(...ATOMS), { minLength: 1, maxLength: 4 }).map((parts) => parts.join('')),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.integer({ min: NAME_LIMIT - 2, max: NAME_LIMIT + 2 }).map((length) => 'n'.repeat(length)),
  fc.constant('a'.repeat(200_000)),
);

function newStack(): TerraformStack {
  return new TerraformStack(new App({ outdir: os.tmpdir() }), 'prod');
}

/** Every API path the resource's calls, id and dependencies use. */
function apiPaths(resource: SecretformResource): string[] {
  const { resourceType, spec } = resource;
  const calls = resourceType.api(spec);
  const deleteSteps = resourceType.deleteSteps(spec);
  const occupied = deleteSteps.whenOccupied ? [deleteSteps.whenOccupied.probe, deleteSteps.whenOccupied.call] : [];
  return [
    resourceType.id(spec),
    ...[calls.read, calls.create, calls.update, calls.delete, deleteSteps.call, ...occupied, ...Object.values(resourceType.secretWriteCalls(spec))]
      .map((call) => call.path),
    ...resourceType.operations.map((operation) => operation.call(spec, { force: true }).path),
    ...resourceType.dependsOn(spec),
  ];
}

const counts: Record<string, { accepted: number; refused: number }> = {};

describe('synth validation of names that become API path segments (property)', () => {
  afterAll(() => {
    // The split between accepted and refused names, so a generator that only ever produced one kind shows.
    const total = Object.values(counts).reduce((sum, c) => ({ accepted: sum.accepted + c.accepted, refused: sum.refused + c.refused }), { accepted: 0, refused: 0 });
    expect(total.accepted).toBeGreaterThan(100);
    expect(total.refused).toBeGreaterThan(100);
  });

  test.each(TARGETS.map((target) => [target.label, target] as const))('%s: accepted names give clean API paths; refused ones a path-named error', (label, target) => {
    counts[label] = { accepted: 0, refused: 0 };
    fc.assert(
      fc.property(nameArbitrary, (name) => {
        const stack = newStack();
        const resource = target.build(stack, name);
        const errors = resource.node.validate();
        if (errors.length === 0) {
          counts[label].accepted++;
          expect(mustRefuse(name, target.kind)).toBe(false);
          for (const apiPath of apiPaths(resource)) {
            if (!isCleanApiPath(apiPath)) throw new Error(`accepted ${JSON.stringify(name)} but API path ${JSON.stringify(apiPath)} is not clean`);
          }
        } else {
          counts[label].refused++;
          // Every line names the construct path; one names the prop that holds the name.
          for (const line of errors) expect(line.startsWith('prod/r: ')).toBe(true);
          expect(errors.some((line) => line.startsWith(`prod/r: ${target.prop}: received `))).toBe(true);
        }
        if (mustRefuse(name, target.kind)) expect(errors.length).toBeGreaterThan(0);
      }),
      { seed: SEED, numRuns: RUNS.namesPerTarget },
    );
  });

  test('a real app.synth() with a generated name either succeeds or fails with the path-named errors, never otherwise', () => {
    const outdir = tempDir('secretform-property-');
    try {
      fc.assert(
        fc.property(fc.constantFrom(...TARGETS), nameArbitrary, (target, name) => {
          const app = new App({ outdir });
          const stack = new TerraformStack(app, 'prod');
          const resource = target.build(stack, name);
          const expected = resource.node.validate();
          let message: string | undefined;
          try {
            app.synth();
          } catch (error) {
            message = (error as Error).message;
          }
          if (expected.length === 0) expect(message).toBeUndefined();
          else {
            expect(message).toBeDefined();
            expect(message).toContain(`prod/r: ${target.prop}: received `);
          }
        }),
        { seed: SEED, numRuns: RUNS.synth },
      );
    } finally {
      fs.rmSync(outdir, { recursive: true, force: true });
    }
  });
});

// ---- durations: the service's sum (whole nanoseconds per number-unit pair), written from its format ----

const UNIT_NS: Record<string, bigint> = { ns: 1n, us: 1000n, 'µs': 1000n, ms: 1000000n, s: 1000000000n, m: 60000000000n, h: 3600000000000n, d: 86400000000000n };
const SERVICE_MAX_SECONDS = (2n ** 63n - 1n) / 1000000000n;

interface Pair { whole: bigint; fraction: string; unit: string }

function serviceSeconds(pairs: readonly Pair[]): bigint {
  let total = 0n;
  for (const { whole, fraction, unit } of pairs) {
    const scale = 10n ** BigInt(fraction.length);
    total += (whole * scale + (fraction === '' ? 0n : BigInt(fraction))) * UNIT_NS[unit] / scale;
  }
  return total / 1000000000n;
}

const pairArbitrary: fc.Arbitrary<Pair> = fc.record({
  whole: fc.oneof(fc.bigInt({ min: 0n, max: 100n }), fc.bigInt({ min: 0n, max: 10n ** 12n })),
  fraction: fc.oneof(fc.constant(''), fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 1, maxLength: 9 })),
  unit: fc.constantFrom(...Object.keys(UNIT_NS)),
});
const durationTextArbitrary = fc.array(pairArbitrary, { minLength: 1, maxLength: 4 }).map((pairs) => ({
  pairs,
  text: pairs.map((pair) => `${pair.whole}${pair.fraction === '' ? '' : `.${pair.fraction}`}${pair.unit}`).join(''),
}));

describe('durations at synth (property)', () => {
  test('an accepted duration string is the integer seconds the service computes; one beyond its range is refused', () => {
    const { parseDuration } = jest.requireActual<typeof import('../../src/resources/duration')>('../../src/resources/duration');
    fc.assert(
      fc.property(durationTextArbitrary, ({ pairs, text }) => {
        const seconds = serviceSeconds(pairs);
        if (seconds > SERVICE_MAX_SECONDS) expect(parseDuration(text)).toBeUndefined();
        else expect(parseDuration(text)).toBe(Number(seconds));
      }),
      { seed: SEED, numRuns: RUNS.durations },
    );
  });

  test('a construct takes a duration prop as the seconds the service computes, or refuses it naming the prop', () => {
    fc.assert(
      fc.property(fc.oneof(durationTextArbitrary, fc.bigInt({ min: 0n, max: 2n ** 64n }).map((n) => ({ pairs: [{ whole: n, fraction: '', unit: 's' }], text: `${n}` }))), ({ pairs, text }) => {
        const stack = newStack();
        const user = new UserpassUser(stack, 'r', { username: 'alice', password: secret(), tokenExplicitMaxTtl: text });
        const errors = user.node.validate();
        const seconds = serviceSeconds(pairs);
        if (seconds > SERVICE_MAX_SECONDS) {
          expect(errors.some((line) => line.startsWith('prod/r: tokenExplicitMaxTtl: received ') && line.includes('at most 9223372036 seconds'))).toBe(true);
        } else {
          expect(errors).toEqual([]);
          expect(user.resourceType.normaliseDesired(user.spec).token_explicit_max_ttl).toBe(Number(seconds));
        }
      }),
      { seed: SEED, numRuns: RUNS.durationProps },
    );
  });
});
