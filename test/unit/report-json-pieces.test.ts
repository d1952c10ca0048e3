/**
 * The JSON report made in pieces (report/json-pieces.ts): joined, the pieces are JSON.stringify's text of the
 * whole value, byte for byte, for generated JSON values with lists anywhere in them (fast-check, fixed seed) and
 * for the reports themselves (one stack, several stacks with failures and unchanged ones, policy results, drift,
 * a plan of 2,000 changes); and a list's items are made only as its pieces are taken.
 */
import fc from 'fast-check';
import { EngineError } from '../../src/engine/errors';
import type { Plan } from '../../src/engine/plan/plan';
import { jsonReportPieces, renderJson, reportToJson, stackReport, unchangedStackReport, type StackReport } from '../../src/report';
import { JsonList, jsonPieces, materialized } from '../../src/report/json-pieces';
import { emptyPlan, fullPlan, largePlan, ldapDynamicRoleDeleted, userpassUserDrift } from './report-plan-fixture';

const SEED = 20261129;

/** A JSON value in which some arrays are lists (made through a function) and some are left as arrays. */
const withLists = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.jsonValue({ maxDepth: 2 }),
    fc.constantFrom(undefined, -0, 1e21, 'line\nbreak', '\u2028\u{1F600}\u0007\u009b', '"quoted\\"'),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(fc.string({ maxLength: 6 }), tie('value'), { maxKeys: 5 }),
    fc.array(tie('value'), { maxLength: 12 }).map((items) => new JsonList(items, (item) => item)),
    // A list whose items become other values (the report's lists map a plan's entries to their JSON).
    fc.array(fc.integer(), { maxLength: 40 }).map((items) => new JsonList(items, (item) => (item % 3 === 0 ? undefined : { item, twice: [item, { at: item }] }))),
  ),
})).value;

describe('jsonPieces', () => {
  test('joined, the pieces are JSON.stringify(value, null, 2) of the value with its lists made', () => {
    fc.assert(
      fc.property(withLists, fc.integer({ min: 1, max: 7 }), (value, itemsPerPiece) => {
        const whole = JSON.stringify(materialized(value), null, 2) as string | undefined;
        if (whole === undefined) return;
        expect([...jsonPieces(value, itemsPerPiece)].join('')).toBe(whole);
      }),
      { seed: SEED, numRuns: 600 },
    );
  });

  test('a list deep inside: its items a few at a time, each group one piece, the rest around them', () => {
    const value = { a: 1, nested: [{ list: new JsonList([1, 2, 3, 4, 5], (n) => ({ n })) }], b: 'z' };
    const pieces = [...jsonPieces(value, 2)];
    expect(pieces.join('')).toBe(JSON.stringify(materialized(value), null, 2));
    // 3 groups of at most 2 items.
    expect(pieces.filter((piece) => piece.includes('"n"'))).toHaveLength(3);
  });

  test("a list's items are made only as the pieces are taken", () => {
    const made: number[] = [];
    const list = new JsonList([1, 2, 3, 4, 5, 6], (n) => {
      made.push(n);
      return n;
    });
    const pieces = jsonPieces({ list }, 2);
    expect(made).toEqual([]);
    let text = '';
    for (const piece of pieces) {
      text += piece;
      if (text.includes('2')) break;
    }
    expect(made).toEqual([1, 2]);
  });

  test('an empty list, a value without lists, and an empty object and array are JSON.stringify as well', () => {
    for (const value of [{ list: new JsonList([], (n) => n) }, new JsonList([], (n) => n), { a: [], b: {}, c: [1, { d: null }] }, [], {}, 'text', 3]) {
      expect([...jsonPieces(value)].join('')).toBe(JSON.stringify(materialized(value), null, 2));
    }
  });
});

describe('jsonReportPieces', () => {
  const withPolicy: Plan = emptyPlan({
    changes: fullPlan().changes,
    policy: {
      packs: ['recommended'],
      rules: [{ id: 'team-naming', description: 'Names are lowercase.', enforcement: 'advisory', pack: 'recommended' }],
      results: [
        { policy: 'team-naming', enforcement: 'advisory', address: 'prod/ci', status: 'waived', message: 'use lowercase', fields: ['username'], waiverReason: 'legacy' },
        { policy: 'team-naming', enforcement: 'advisory', address: 'prod/app', status: 'passed', message: '', fields: [] },
      ],
    },
  });
  const several: StackReport[] = [
    { stack: 'base', status: 'done', value: emptyPlan({ stack: 'base' }) },
    { stack: 'prod', status: 'done', value: fullPlan({ stack: 'prod' }) },
    { stack: 'big', status: 'done', value: { ...largePlan(300), stack: 'big', drift: [userpassUserDrift(), ldapDynamicRoleDeleted()] } },
    { stack: 'staging', status: 'failed', error: new EngineError('service_unusable', 'cannot reach https://staging.example:8200 (ECONNREFUSED)') },
    { stack: 'tools', status: 'skipped', dependency: 'staging' },
    unchangedStackReport('quiet'),
  ];
  const cases: Array<[string, StackReport[]]> = [
    ['one stack, every kind of change and drift', [stackReport(fullPlan())]],
    ['one stack with policy results', [stackReport(withPolicy)]],
    ['one stack, nothing to do', [stackReport(emptyPlan())]],
    ['2,000 changes', [stackReport(largePlan(2000))]],
    ['several stacks, failed, skipped and unchanged ones', several],
    ['several stacks that all planned', several.slice(0, 3)],
  ];

  test.each(cases)('%s: the pieces join to the report text, byte for byte', (_, reports) => {
    const pieces = [...jsonReportPieces(reports)];
    // JSON.stringify of the report's object, made as one whole, is the text the pieces must make.
    expect(pieces.join('')).toBe(JSON.stringify(reportToJson(reports), null, 2));
    // A report file (renderJson) has the same text, and its newline.
    expect(renderJson(reports)).toBe(`${pieces.join('')}\n`);
  });

  test('2,000 changes come in many pieces, none of them the whole', () => {
    const pieces = [...jsonReportPieces([stackReport(largePlan(2000))])];
    expect(pieces.length).toBeGreaterThan(2000 / 64);
    const longest = Math.max(...pieces.map((piece) => piece.length));
    expect(longest).toBeLessThan(pieces.join('').length / 20);
  });
});
