/**
 * The JSON report's text (renderJson) is made from a report object whose attributes, where nothing is to be
 * hidden, are the plan's own objects rather than copies (src/report/json.ts, `forText`): the text must be the one
 * the copies give, secret field names still left out, and keys whose value is undefined still absent.
 */
import { renderJson, reportToJson, stackReport } from '../../src/report';
import type { PlannedChange } from '../../src/engine/plan/plan';

test('a report made for a text (attributes not copied) reads as the one with copies', () => {
  const before = { username: 'ann', note: undefined, password: 'hidden-by-name' };
  const change: PlannedChange = {
    address: 'app/ann', type: 'userpass_user', id: 'auth/userpass/users/ann', action: 'update', reasons: [],
    before, after: { ...before, username: 'bob' }, sensitive: ['password'], secrets: [], replacePaths: [], fieldChanges: [],
  };
  const shownAsIs = { username: 'bob', note: undefined };
  const plain: PlannedChange = { ...change, address: 'app/bob', before: shownAsIs, after: shownAsIs, sensitive: [] };
  const plan = { stack: 'app', refreshOnly: false, changes: [change, plain], drift: [], warnings: [] };
  for (const reports of [[stackReport(plan)], [stackReport(plan), stackReport({ ...plan, stack: 'other' })]]) {
    const text = JSON.stringify(reportToJson(reports, true), null, 2);
    expect(text).toBe(JSON.stringify(reportToJson(reports), null, 2));
    expect(text).not.toContain('hidden-by-name');
    expect(text).not.toContain('note');
    expect(renderJson(reports)).toBe(`${text}\n`);
  }
  // The report object for other callers is still a copy.
  const [first] = (reportToJson([stackReport(plan)]) as { resource_changes: { before: unknown }[] }).resource_changes;
  expect(first.before).not.toBe(before);
});
