/**
 * A plan of 60,000 creates (hundreds of thousands of report lines) renders in every format: no report passes its
 * lines or sections to a call as arguments (an apply of 30,000 resources once stopped at its preview with
 * "Maximum call stack size exceeded").
 */
import { renderJson, renderMarkdown, renderText, stackReport } from '../../src/report';
import { change, emptyPlan } from './report-plan-fixture';

const COUNT = 60_000;

const plan = emptyPlan({
  changes: Array.from({ length: COUNT }, (_, index) =>
    change({ address: `prod/users/user-${index}`, action: 'create', type: 'userpass_user', id: `userpass/users/user-${index}`, after: { username: `user-${index}`, token_ttl: 3600 } })),
  drift: Array.from({ length: COUNT }, (_, index) => ({
    address: `prod/roles/role-${index}`, type: 'ldap_static_role', id: `ldap/static-role/role-${index}`, kind: 'deleted' as const, before: { username: `svc-${index}` }, after: null, fields: [],
  })),
});

test('the text report of 60,000 changes and 60,000 drifted objects has every one', () => {
  const text = renderText([stackReport(plan)], { color: false });
  expect(text).toContain(`prod/users/user-${COUNT - 1}`);
  expect(text).toContain(`prod/roles/role-${COUNT - 1}`);
});

test('the markdown comment of 60,000 changes is split into comments, the last one naming the last change', () => {
  const comments = renderMarkdown([stackReport(plan)]);
  expect(comments.length).toBeGreaterThan(1);
  expect(comments.join('\n')).toContain(`user-${COUNT - 1}`);
});

test('the JSON plan of 60,000 changes lists them all', () => {
  expect((JSON.parse(renderJson([stackReport(plan)])) as { resource_changes: unknown[] }).resource_changes).toHaveLength(COUNT);
});
