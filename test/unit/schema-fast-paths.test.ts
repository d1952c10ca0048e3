/**
 * The checks that spare zod the common case (json-shape.ts) must never take what the schema refuses, nor keep a
 * value the schema would change: whatever they accept, the schema accepts and returns the same (same keys, same
 * order). Values near the well-formed ones (a part replaced by any JSON, dropped, added, keys reordered,
 * `__proto__` and `constructor` keys) are drawn with fast-check (fixed seed); what the schema refuses still
 * reads as the schema's message.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { ACTION_REASON_KINDS, actionReasonSchema } from '../../src/engine/saved-plan/plan-schema';
import { ENTRY_KEYS, isWellFormedState, readState, resourceStateSchema, STATE_KEYS, stateFileSchema, wellFormedEntryInAnyOrder } from '../../src/engine/state/state-file';
import {
  CONNECTION_KEYS, connectionSchema, isWellFormedSpec, LIFECYCLE_KEYS, parseSynthesizedConnection, parseSynthesizedSpec, specSchema, wellFormedConnectionInAnyOrder,
} from '../../src/synthesized-spec';
import { tempDir } from '../support/temp-dir';

const SEED = 20261126;
const RUNS = 400;

/** An object from entries: `__proto__` becomes an own key, as JSON.parse makes it. */
function object(entries: readonly (readonly [string, unknown])[]): Record<string, unknown> {
  return Object.fromEntries(entries.filter(([, value]) => value !== undefined));
}

const key = fc.oneof({ weight: 8, arbitrary: fc.constantFrom('a', 'name', 'b_c', '', '0', '10') }, { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'toString') });
const anyJson = fc.jsonValue({ maxDepth: 2 });
/** Mostly the good value; sometimes anything JSON holds, or nothing. */
const mostly = <T>(good: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 40, arbitrary: good }, { weight: 1, arbitrary: anyJson }, { weight: 1, arbitrary: fc.constant(undefined) });
const text = fc.oneof({ weight: 1, arbitrary: fc.constant('') }, { weight: 8, arbitrary: fc.string({ minLength: 1, maxLength: 8 }) });
const strings = fc.array(text, { maxLength: 3 });
const stringRecord = fc.array(fc.tuple(key, mostly(text)), { maxLength: 3 }).map(object);
const jsonRecord = fc.array(fc.tuple(key, anyJson), { maxLength: 3 }).map(object);

/** An object of the given parts, with sometimes an unknown part added and the parts shuffled. */
function shaped(parts: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<unknown> {
  const entries = fc.tuple(...Object.entries(parts).map(([name, value]) => value.map((drawn) => [name, drawn] as const)));
  const extra = fc.oneof({ weight: 10, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.tuple(key, anyJson) });
  const shuffle = fc.oneof({ weight: 10, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) });
  return fc.tuple(entries, extra, shuffle).map(([drawn, added, shuffle]) => {
    const all: (readonly [string, unknown])[] = [...drawn, ...(added ? [added] : [])];
    return object(shuffle ? [...all].reverse() : all);
  });
}

const lifecycle = shaped({ protect: mostly(fc.boolean()), retainOnDelete: mostly(fc.boolean()), ignoreChanges: mostly(strings) });
const spec = shaped({
  version: mostly(fc.constant(1)), type: mostly(text), address: mostly(text), id: mostly(text), spec: mostly(jsonRecord),
  secrets: mostly(jsonRecord), dependsOn: mostly(strings), digest: mostly(text), lifecycle: mostly(lifecycle), policyWaivers: mostly(stringRecord),
});
const entry = shaped({
  type: mostly(text), id: mostly(text), attributes: mostly(jsonRecord), secrets: mostly(stringRecord), digest: mostly(text),
  rotated_by_service: mostly(stringRecord), dependencies: mostly(strings), applied_at: mostly(text), protect: mostly(fc.boolean()),
  retain_on_delete: mostly(fc.boolean()),
});
const connection = shaped({
  version: mostly(fc.constant(1)), construct: mostly(text), address: mostly(text), tokenEnv: mostly(text), caCertFile: mostly(text),
  clientCertFile: mostly(text), clientKeyFile: mostly(text), skipVerify: mostly(fc.boolean()),
});
const state = shaped({
  version: mostly(fc.constant(1)), lineage: mostly(text), serial: mostly(fc.oneof(fc.nat(), fc.integer(), fc.double())), stack: mostly(text),
  resources: mostly(fc.array(fc.tuple(key, entry), { maxLength: 3 }).map(object)),
});

/** Equal, and written the same (key order included). */
function expectSame(actual: unknown, expected: unknown): void {
  expect(actual).toStrictEqual(expected);
  expect(JSON.stringify(actual)).toBe(JSON.stringify(expected));
}

describe('a synthesized spec', () => {
  test('the fast check takes only what the schema takes, and the parts the reader keeps come out the same', () => {
    let taken = 0;
    fc.assert(fc.property(spec, (value) => {
      const parsed = specSchema().safeParse(value);
      if (!isWellFormedSpec(value)) return;
      taken++;
      expect(parsed.success).toBe(true);
      const { spec: attributes, secrets, dependsOn, lifecycle: guardrails, policyWaivers } = parsed.data!;
      expectSame({ attributes, secrets, dependsOn, guardrails, policyWaivers },
        { attributes: value.spec, secrets: value.secrets, dependsOn: value.dependsOn, guardrails: value.lifecycle, policyWaivers: value.policyWaivers });
    }), { seed: SEED, numRuns: RUNS });
    expect(taken).toBeGreaterThan(RUNS / 10);
  });

  test('what the schema refuses is reported with its issues, as before', () => {
    fc.assert(fc.property(spec, (value) => {
      const parsed = specSchema().safeParse(value);
      if (parsed.success) return;
      const issues = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
      expect(() => parseSynthesizedSpec(value, 'cdk.tf.json: x.y')).toThrow(`cdk.tf.json: x.y: not a secretform spec of format version 1: ${issues}`);
    }), { seed: SEED, numRuns: RUNS });
  });

  test('a key the schema drops or an object zod may not take goes through the schema', () => {
    const good = { version: 1, type: 't', address: 'a', id: 'i', spec: {}, secrets: {}, dependsOn: [], digest: 'd' };
    expect(isWellFormedSpec(good)).toBe(true);
    expect(isWellFormedSpec({ ...good, spec: JSON.parse('{"__proto__": {"x": 1}}') })).toBe(false);
    expect(isWellFormedSpec({ ...good, spec: { constructor: 'x' } })).toBe(false);
    expect(isWellFormedSpec({ ...good, lifecycle: { ignoreChanges: ['a'], protect: true } })).toBe(false);
    expect(isWellFormedSpec({ ...good, dependsOn: ['a', , 'b'] })).toBe(false); // eslint-disable-line no-sparse-arrays
    expect(isWellFormedSpec(Object.assign([], good))).toBe(false);
    expect(isWellFormedSpec({ ...good, version: 2 })).toBe(false);
  });
});

describe('a state file', () => {
  test('the fast check takes only what the schema takes and returns unchanged', () => {
    let taken = 0;
    fc.assert(fc.property(state, (value) => {
      const parsed = stateFileSchema().safeParse(value);
      if (!isWellFormedState(value)) return;
      taken++;
      expect(parsed.success).toBe(true);
      expectSame(value, parsed.data);
    }), { seed: SEED, numRuns: RUNS });
    expect(taken).toBeGreaterThan(RUNS / 10);
  });

  test('an entry of a PostgreSQL row, keys in any order, comes out as the schema returns it, or goes through the schema', () => {
    let taken = 0;
    const jsonbOrder = (value: unknown) => (typeof value === 'object' && value !== null && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0)))
      : value);
    fc.assert(fc.property(entry, fc.boolean(), (drawn, reorder) => {
      const value = reorder ? jsonbOrder(drawn) : drawn;
      const parsed = resourceStateSchema().safeParse(value);
      const fast = wellFormedEntryInAnyOrder(value);
      if (fast === undefined) return;
      taken++;
      expect(parsed.success).toBe(true);
      expectSame(fast, parsed.data);
    }), { seed: SEED, numRuns: RUNS });
    expect(taken).toBeGreaterThan(RUNS / 10);
    const good = { type: 't', id: 'i', attributes: {}, secrets: {}, dependencies: [], applied_at: 'now' };
    expect(wellFormedEntryInAnyOrder({ ...good, extra: 1 })).toBeUndefined();
    expect(wellFormedEntryInAnyOrder({ ...good, attributes: JSON.parse('{"__proto__": {"x": 1}}') })).toBeUndefined();
    expect(JSON.stringify(wellFormedEntryInAnyOrder(jsonbOrder(good)))).toBe(JSON.stringify(good));
  });

  test('a damaged file reads as the schema says, as before', async () => {
    const dir = tempDir('secretform-fast-path-');
    try {
      const path = join(dir, 'state.json');
      const entry = { type: 'secrets_mount', id: 'kv', attributes: {}, secrets: {}, dependencies: [], applied_at: 'now' };
      const cases: [unknown, string][] = [
        [{ version: 1, lineage: 'l', serial: 1, stack: 'prod', resources: { 'prod/a': { ...entry, secrets: { password: 1 } } } },
          'is damaged at resources.prod/a.secrets.password: Invalid input: expected string, received number'],
        [{ version: 1, lineage: 'l', serial: -1, stack: 'prod', resources: {} }, 'is damaged at serial: Too small: expected number to be >=0'],
        [{ version: 1, lineage: 'l', serial: 1, stack: 'prod', resources: { 'prod/a': { ...entry, id: '' } } },
          'is damaged at resources.prod/a.id: Too small: expected string to have >=1 characters'],
      ];
      for (const [value, message] of cases) {
        writeFileSync(path, JSON.stringify(value));
        expect(isWellFormedState(value)).toBe(false);
        const result = await readState(path, 'prod');
        expect(!result.ok && result.error.message).toBe(`state file ${path} ${message}; \`secretform state history\` lists the kept versions and \`secretform state restore SERIAL\` brings one back`);
      }
      // Keys in another order, or one the schema strips: read through the schema, which puts them in its order.
      writeFileSync(path, JSON.stringify({ resources: { 'prod/a': { ...entry, extra: 1 } }, stack: 'prod', serial: 1, lineage: 'l', version: 1 }));
      const read = await readState(path, 'prod');
      expect(read.ok && JSON.stringify(read.value)).toBe(JSON.stringify({ version: 1, lineage: 'l', serial: 1, stack: 'prod', resources: { 'prod/a': entry } }));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a synthesized connection', () => {
  test('the fast check, keys in any order, takes only what the schema takes and returns it as the schema does', () => {
    let taken = 0;
    const sorted = (value: unknown) => (typeof value === 'object' && value !== null && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : value);
    fc.assert(fc.property(connection, fc.boolean(), (drawn, sort) => {
      // cdktf writes the keys sorted.
      const value = sort ? sorted(drawn) : drawn;
      const parsed = connectionSchema().safeParse(value);
      const fast = wellFormedConnectionInAnyOrder(value);
      if (fast === undefined) return;
      taken++;
      expect(parsed.success).toBe(true);
      expectSame(fast, parsed.data);
      const { version: _version, ...read } = parsed.data!;
      expectSame(parseSynthesizedConnection(value, 'cdk.tf.json'), read);
    }), { seed: SEED, numRuns: RUNS });
    expect(taken).toBeGreaterThan(RUNS / 10);
    const good = { version: 1, construct: 'c', address: 'http://x', tokenEnv: 'T', skipVerify: false };
    expect(wellFormedConnectionInAnyOrder({ ...good, extra: 1 })).toBeUndefined();
    expect(wellFormedConnectionInAnyOrder({ ...good, caCertFile: '' })).toBeUndefined();
    expect(JSON.stringify(wellFormedConnectionInAnyOrder(sorted(good)))).toBe(JSON.stringify(good));
  });

  test('what the schema refuses is reported with its issues, as before', () => {
    let refused = 0;
    fc.assert(fc.property(connection, (value) => {
      const parsed = connectionSchema().safeParse(value);
      if (parsed.success) return;
      refused++;
      const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(object)'}: ${issue.message}`).join('; ');
      expect(() => parseSynthesizedConnection(value, 'cdk.tf.json')).toThrow(
        `cdk.tf.json: "//".secretform.connection is not a secretform connection of format version 1: ${issues}`,
      );
    }), { seed: SEED, numRuns: RUNS });
    expect(refused).toBeGreaterThan(RUNS / 10);
  });
});

describe('the lists written out beside the schemas, so that reading well-formed files never builds one', () => {
  test('are the schemas\' keys and reason kinds, in their order', () => {
    expect(STATE_KEYS).toEqual(Object.keys(stateFileSchema().shape));
    expect(ENTRY_KEYS).toEqual(Object.keys(resourceStateSchema().shape));
    expect(LIFECYCLE_KEYS).toEqual(Object.keys(specSchema().shape.lifecycle.unwrap().shape));
    expect(CONNECTION_KEYS).toEqual(Object.keys(connectionSchema().shape));
    expect(ACTION_REASON_KINDS).toEqual(actionReasonSchema().options.map((option) => option.def.innerType.shape.kind.value));
  });
});
