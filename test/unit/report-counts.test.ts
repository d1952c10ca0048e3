/**
 * Counts and plurals in the reports' phrases, with 1 and with 2 of everything: what a delete takes with it (every
 * noun of the resource model), the markdown alerts' titles, the totals over stacks. No phrase says "1 users".
 */
import type { Consequence } from '../../src/resources/types';
import { consequenceText } from '../../src/report/consequences';
import { renderMarkdown } from '../../src/report/markdown';
import { stackReport } from '../../src/report/stacks-view';
import { renderText } from '../../src/report/text';
import { CONTENT_NOUNS, countOf } from '../../src/resources/nouns';
import { consequenceOf } from '../../src/resources/consequences';
import { change, emptyPlan } from './report-plan-fixture';

/** The plural nouns the reports count with. */
const PLURALS = [...Object.values(CONTENT_NOUNS).map((noun) => noun.many), 'resources', 'stacks', 'objects', 'changes', 'operations', 'checks'];
/** A count of 1 followed by a plural noun: `1 users`, `1 library sets`. */
const ONE_PLURAL = new RegExp(`\\b1 (${PLURALS.join('|')})\\b`);

function planWith(count: number, consequences: Consequence[]) {
  const changes = Array.from({ length: count }, (_, index) => change({
    address: `prod/mount-${index}`,
    action: 'delete',
    type: 'secrets_mount',
    id: `sys/mounts/mount-${index}`,
    before: { path: `mount-${index}`, type: 'kv' },
    consequences,
  }));
  return emptyPlan({ changes });
}

describe.each(Object.entries(CONTENT_NOUNS))('what a delete takes with it: %s', (_key, noun) => {
  test('1 reads singular and "goes", 2 plural and "go", in the text and the markdown', () => {
    const [one] = consequenceOf({ count: 1, atLeast: false }, noun, 'detail');
    const [two] = consequenceOf({ count: 2, atLeast: false }, noun, 'detail');
    expect(consequenceText(one)).toBe(`1 ${noun.one} goes with it: detail`);
    expect(consequenceText(two)).toBe(`2 ${noun.many} go with it: detail`);
    const text = renderText([stackReport(planWith(1, [one]))], { color: false });
    expect(text).toContain(`# ! 1 ${noun.one} goes with it`);
    const [markdown] = renderMarkdown([stackReport(planWith(1, [one]))]);
    expect(markdown).toContain(`1 ${noun.one} goes with it`);
    expect(markdown).not.toMatch(ONE_PLURAL);
    expect(text).not.toMatch(ONE_PLURAL);
  });

  test('"at least 1" and an unknown number read plural', () => {
    const [atLeast] = consequenceOf({ count: 1, atLeast: true }, noun, 'detail');
    const [unknown] = consequenceOf({ uncounted: 'LIST answered 500' }, noun, 'detail');
    expect(consequenceText(atLeast)).toBe(`at least 1 ${noun.many} go with it: detail`);
    expect(consequenceText(unknown)).toBe(`an unknown number of ${noun.many} go with it: detail`);
  });
});

test('a consequence saved in a plan before the singular existed still reads (in the plural)', () => {
  expect(consequenceText({ what: 'users', count: 1, detail: 'detail' })).toBe('1 users goes with it: detail');
});

test.each([1, 2])('the reports count %i destroyed resources, stacks and objects right', (count) => {
  const plan = planWith(count, []);
  const stacks = Array.from({ length: count + 1 }, (_, index) => stackReport({ ...plan, stack: `stack-${index}` }));
  const texts = [
    renderText([stackReport(plan)], { color: false }),
    renderText(stacks, { color: false }),
    ...renderMarkdown([stackReport(plan)]),
    ...renderMarkdown(stacks),
  ];
  for (const text of texts) expect(text).not.toMatch(ONE_PLURAL);
  const [markdown] = renderMarkdown([stackReport(plan)]);
  expect(markdown).toContain(`${countOf(count, { one: 'resource', many: 'resources' })} will be destroyed or replaced`);
});

test('countOf', () => {
  expect(countOf(0, CONTENT_NOUNS.librarySets)).toBe('0 library sets');
  expect(countOf(1, CONTENT_NOUNS.librarySets)).toBe('1 library set');
  expect(countOf(2, CONTENT_NOUNS.librarySets)).toBe('2 library sets');
});
