/** How the reports show the guardrails: the `forget` action and the consequences of a delete, in every format. */
import { renderJson } from '../../src/report/json';
import { renderMarkdown } from '../../src/report/markdown';
import { ACTION_ICON } from '../../src/report/status';
import { renderText } from '../../src/report/text';
import { change, emptyPlan } from './report-plan-fixture';

const forgotten = change({ address: 'prod/userpass', action: 'forget', type: 'auth_mount', id: 'sys/auth/userpass', before: { path: 'userpass', type: 'userpass' } });
const deleted = change({
  address: 'prod/apps',
  action: 'delete',
  type: 'secrets_mount',
  id: 'sys/mounts/apps',
  before: { path: 'apps', type: 'kv' },
  consequences: [{ what: 'secrets', count: 10000, atLeast: true, detail: 'the secrets stored in kv mount "apps" are deleted with it' }],
});
const plan = emptyPlan({ changes: [deleted, forgotten] });

test('text: forget has its legend, headline and count; a consequence is a comment under the title', () => {
  const text = renderText(plan, { color: false });
  expect(text).toContain('  . forget (removed from state, left on the service)');
  expect(text).toContain('  # prod/userpass will no longer be managed by secretform (retainOnDelete: the object stays on the service)\n  . auth_mount "sys/auth/userpass" {');
  expect(text).toContain('  # prod/apps will be destroyed\n  # ! at least 10000 secrets go with it: the secrets stored in kv mount "apps" are deleted with it\n');
  expect(text).toContain('Plan: 0 to add, 0 to change, 1 to destroy, 1 to forget.');
});

test('markdown: the consequence sits under the resource in the warning block; forget is not a destruction', () => {
  const [markdown] = renderMarkdown(plan);
  const warning = markdown.slice(markdown.indexOf('> [!WARNING]'), markdown.indexOf('\n\n', markdown.indexOf('> [!WARNING]')));
  expect(warning).toContain('1 resource will be destroyed or replaced');
  expect(warning).toContain('>   - ⚠️ at least 10000 secrets go with it: the secrets stored in kv mount &quot;apps&quot; are deleted with it');
  expect(warning).not.toContain('prod/userpass');
  expect(markdown).toContain('| forget |');
  expect(ACTION_ICON.forget).toBeDefined();
});

test('JSON: forget is its own action and count; consequences on the change, with at_least when bounded', () => {
  const json = JSON.parse(renderJson(plan));
  expect(json.resource_changes.map((entry: { actions: string[] }) => entry.actions)).toEqual([['delete'], ['forget']]);
  expect(json.resource_changes[0].consequences).toEqual([{ what: 'secrets', count: 10000, at_least: true, detail: 'the secrets stored in kv mount "apps" are deleted with it' }]);
  expect('consequences' in json.resource_changes[1]).toBe(false);
  expect(json.summary).toMatchObject({ delete: 1, forget: 1 });
});
