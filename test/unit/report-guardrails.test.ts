/** How the reports show the guardrails: the `forget` action and the consequences of a delete, in every format. */
import { renderJson } from '../../src/report/json';
import { renderMarkdown } from '../../src/report/markdown';
import { ACTION_ICON } from '../../src/report/status';
import { stackReport } from '../../src/report/stacks-view';
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
  const text = renderText([stackReport(plan)], { color: false });
  expect(text).toContain('  . forget (removed from state, left on the service)');
  expect(text).toContain('  # prod/userpass will no longer be managed by secretform (retainOnDelete: the object stays on the service)\n  . auth_mount "sys/auth/userpass" {');
  expect(text).toContain('  # prod/apps will be destroyed\n  # ! at least 10000 secrets go with it: the secrets stored in kv mount "apps" are deleted with it\n');
  expect(text).toContain('Plan: 0 to add, 0 to change, 1 to destroy, 1 to forget.');
});

test('markdown: the consequence sits under the resource in the CAUTION block; forget is not a destruction', () => {
  const [markdown] = renderMarkdown([stackReport(plan)]);
  const warning = markdown.slice(markdown.indexOf('> [!CAUTION]'), markdown.indexOf('\n\n', markdown.indexOf('> [!CAUTION]')));
  expect(warning).toContain('1 resource will be destroyed or replaced');
  expect(warning).toContain('>   - ⚠️ at least 10000 secrets go with it: the secrets stored in kv mount &quot;apps&quot; are deleted with it');
  expect(warning).not.toContain('prod/userpass');
  expect(markdown).toContain('| ⏏️ forget |');
  expect(ACTION_ICON.forget).toBeDefined();
});

test('JSON: forget is its own action and count; consequences on the change, with at_least when bounded', () => {
  const json = JSON.parse(renderJson([stackReport(plan)]));
  expect(json.resource_changes.map((entry: { actions: string[] }) => entry.actions)).toEqual([['delete'], ['forget']]);
  expect(json.resource_changes[0].consequences).toEqual([{ what: 'secrets', count: 10000, at_least: true, detail: 'the secrets stored in kv mount "apps" are deleted with it' }]);
  expect('consequences' in json.resource_changes[1]).toBe(false);
  expect(json.summary).toMatchObject({ delete: 1, forget: 1 });
});

describe('a consequence that could not be counted shows where its count would be, never as 0', () => {
  const WHY = 'LIST /v1/apps/metadata answered HTTP 200 with an object without "keys" where a list was expected: not the list of names the service answers';
  const uncountedPlan = emptyPlan({
    changes: [change({
      address: 'prod/apps',
      action: 'delete',
      type: 'secrets_mount',
      id: 'sys/mounts/apps',
      before: { path: 'apps', type: 'kv' },
      consequences: [{ what: 'secrets', uncounted: WHY, detail: 'the secrets stored in kv mount "apps" are deleted with it' }],
    })],
    // As the engine words it (guardrails/uncounted-warning.ts), beside a warning of another kind.
    warnings: [
      `prod/apps: could not count the secrets its delete takes with it on the service (${WHY}); review them by hand`,
      'prod/other: some other warning (its own reason)',
    ],
  });
  const said = 'an unknown number of secrets go with it: the secrets stored in kv mount "apps" are deleted with it';
  const reasonAt = (report: string, reason: string): number => report.split(reason).length - 1;

  test('text: the comment under the title says how many is unknown, and why; the warning points there, without the reason again', () => {
    const text = renderText([stackReport(uncountedPlan)], { color: false });
    // What goes first, the reason on the line below it.
    expect(text).toContain(`  # prod/apps will be destroyed\n  # ! ${said}\n  #   could not be counted: ${WHY}\n`);
    expect(text).toContain('Warning: prod/apps: could not count the secrets its delete takes with it (see above); review them by hand\n');
    expect(text).toContain('Warning: prod/other: some other warning (its own reason)\n');
    expect(reasonAt(text, WHY)).toBe(1);
  });

  test('markdown: the nested item in the CAUTION block says the same; the warning points there, without the reason again', () => {
    const [markdown] = renderMarkdown([stackReport(uncountedPlan)]);
    const warning = markdown.slice(markdown.indexOf('> [!CAUTION]'), markdown.indexOf('\n\n', markdown.indexOf('> [!CAUTION]')));
    expect(warning).toContain(
      '>   - ⚠️ an unknown number of secrets go with it: the secrets stored in kv mount &quot;apps&quot; are deleted with it\n' +
        '>     - could not be counted: LIST /v1/apps/metadata answered HTTP 200 with an object without &quot;keys&quot;',
    );
    expect(markdown).toContain('> - prod/apps: could not count the secrets its delete takes with it (see above); review them by hand\n');
    expect(reasonAt(markdown, 'LIST /v1/apps/metadata answered')).toBe(1);
  });

  test('JSON: count null and uncounted with the reason', () => {
    const json = JSON.parse(renderJson([stackReport(uncountedPlan)]));
    expect(json.resource_changes[0].consequences).toEqual([{ what: 'secrets', count: null, uncounted: WHY, detail: 'the secrets stored in kv mount "apps" are deleted with it' }]);
  });
});

test('markdown: a forget, with nothing to show but its id, is a line, not a block opening onto an empty diff', () => {
  const [markdown] = renderMarkdown([stackReport(emptyPlan({ changes: [forgotten] }))]);
  expect(markdown).toContain('\n<code>prod/userpass</code> (auth_mount) will no longer be managed by secretform (retainOnDelete: the object stays on the service) (id <code>sys/auth/userpass</code>)');
  expect(markdown).not.toContain('<details><summary><code>prod/userpass</code>');
  expect(markdown).not.toMatch(/```diff\n(# id: [^\n]*\n)?```/);
});
