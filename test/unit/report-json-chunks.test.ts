/**
 * The JSON report written in pieces (src/report/json-chunks.ts) is `JSON.stringify(value, null, 2)` byte for
 * byte: over generated JSON values, values JSON.stringify treats in its own way (undefined, functions, holes,
 * toJSON, boxed values), and a report of 10,000 changes, which comes in many pieces, none of them large.
 */
import fc from 'fast-check';
import { writeJsonInChunks } from '../../src/report/json-chunks';
import { renderJson, reportToJson, stackReport } from '../../src/report';
import type { Plan, PlannedChange } from '../../src/engine/plan/plan';

const SEED = 20261129;

function chunksOf(value: unknown): string[] {
  const chunks: string[] = [];
  writeJsonInChunks(value, (chunk) => chunks.push(chunk));
  return chunks;
}

test('generated JSON values: the pieces joined are JSON.stringify(value, null, 2)', () => {
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 5 }), (value) => {
      expect(chunksOf(value).join('')).toBe(JSON.stringify(value, null, 2));
    }),
    { seed: SEED, numRuns: 500 },
  );
});

test('generated objects of arrays of objects, as a report is shaped: the same text', () => {
  const entry = fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 }));
  const report = fc.dictionary(fc.string(), fc.oneof(fc.array(entry), entry, fc.jsonValue({ maxDepth: 2 })));
  fc.assert(
    fc.property(fc.oneof(report, fc.array(report)), (value) => {
      expect(chunksOf(value).join('')).toBe(JSON.stringify(value, null, 2));
    }),
    { seed: SEED, numRuns: 300 },
  );
});

test('what JSON.stringify leaves out or writes its own way: the same text', () => {
  const sparse: unknown[] = [1];
  sparse[3] = { deep: [1, { deeper: [] }] };
  const values: unknown[] = [
    { a: undefined, b: () => 1, c: Symbol('s'), d: [undefined, () => 1, Symbol('t')], e: { f: undefined } },
    { when: new Date(0), list: [new Date(1), { at: new Date(2) }] },
    { boxed: [new String('s'), new Number(1), new Boolean(false)] },
    { custom: { toJSON: () => ({ replaced: [1, 2] }) }, list: [{ toJSON: () => 'x' }] },
    [sparse, [], {}, [[]], [{}]],
    { empty: {}, none: [], nested: { empty: {}, none: [] } },
    Object.assign(Object.create(null) as Record<string, unknown>, { plain: [1, { two: 2 }] }),
    'text',
    42,
    null,
  ];
  for (const value of values) expect(chunksOf(value).join('')).toBe(JSON.stringify(value, null, 2));
});

test('a report made for a text (attributes not copied) reads as the one with copies', () => {
  const before = { username: 'ann', note: undefined, password: 'hidden-by-name' };
  const change: PlannedChange = {
    address: 'app/ann', type: 'userpass_user', id: 'auth/userpass/users/ann', action: 'update', reasons: [],
    before, after: { ...before, username: 'bob' }, sensitive: ['password'], secrets: [], replacePaths: [], fieldChanges: [],
  };
  const shownAsIs = { username: 'bob', note: undefined };
  const plain: PlannedChange = { ...change, address: 'app/bob', before: shownAsIs, after: shownAsIs, sensitive: [] };
  const reports = [stackReport({ stack: 'app', refreshOnly: false, changes: [change, plain], drift: [], warnings: [] })];
  const text = JSON.stringify(reportToJson(reports, true), null, 2);
  expect(text).toBe(JSON.stringify(reportToJson(reports), null, 2));
  expect(text).not.toContain('hidden-by-name');
  expect(text).not.toContain('note');
  expect(renderJson(reports)).toBe(`${text}\n`);
});

test('a report of 10,000 changes: renderJson\'s text, in pieces of at most about 60,000 characters', () => {
  const changes: PlannedChange[] = Array.from({ length: 10_000 }, (_, index) => ({
    address: `app/role-${index}`,
    type: 'ldap_static_role',
    id: `ldap/static-role/role-${index}`,
    action: 'no-op',
    reasons: [],
    before: { username: `user-${index}`, rotation_period: 86400, dn: `cn=user-${index},dc=example,dc=org` },
    after: { username: `user-${index}`, rotation_period: 86400, dn: `cn=user-${index},dc=example,dc=org` },
    sensitive: [],
    secrets: [],
    replacePaths: [],
    fieldChanges: [],
    dependsOn: [],
  }));
  const plan: Plan = { stack: 'app', refreshOnly: false, changes, drift: [], warnings: [] };
  const reports = [stackReport(plan)];
  const chunks = chunksOf(reportToJson(reports));
  expect(`${chunks.join('')}\n`).toBe(renderJson(reports));
  expect(chunks.length).toBeGreaterThan(50);
  for (const chunk of chunks) expect(chunk.length).toBeLessThan(70_000);
});
