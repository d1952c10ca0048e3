/**
 * The reports of a run over several stacks: the text sections and total line, the markdown table of stacks
 * (status per stack, a failed and a skipped stack) split like a per-stack comment, and the JSON document; the
 * totals of a refresh-only plan in its own words.
 */
import { EngineError } from '../../src/engine/errors';
import { renderMarkdown } from '../../src/report';
import { renderStacksJson } from '../../src/report/stacks-json';
import { renderStacksMarkdown } from '../../src/report/stacks-markdown';
import { renderStacksText } from '../../src/report/stacks-text';
import type { StackReport } from '../../src/report/stacks-view';
import { emptyPlan, fullPlan, largePlan, ldapDynamicRoleDeleted, userpassUserDrift } from './report-plan-fixture';

const reports: StackReport[] = [
  { stack: 'base', status: 'done', value: emptyPlan({ stack: 'base' }) },
  { stack: 'prod', status: 'done', value: fullPlan({ stack: 'prod' }) },
  { stack: 'staging', status: 'failed', error: new EngineError('service_unusable', 'cannot reach https://staging.example:8200 (ECONNREFUSED)') },
  { stack: 'tools', status: 'skipped', dependency: 'staging' },
];

test('text: a section per stack, the failure and the skip said, then one total line', () => {
  const text = renderStacksText(reports, { color: false });
  expect(text.match(/^=== Stack \S+ ===$/gm)).toEqual(['=== Stack base ===', '=== Stack prod ===', '=== Stack staging ===', '=== Stack tools ===']);
  expect(text).toContain('Error: cannot reach https://staging.example:8200 (ECONNREFUSED)');
  expect(text).toContain('Skipped: not planned: stack staging, which it depends on, failed or was skipped');
  expect(text.trimEnd().split('\n').at(-1)).toBe('Total over 4 stacks: Plan: 4 to add, 1 to change, 2 to destroy, 3 drifted, 1 stack failed, 1 skipped.');
});

test('markdown: the run status, a table of stacks with a status each, then each stack under its heading', () => {
  const [comment, ...more] = renderStacksMarkdown(reports);
  expect(more).toEqual([]);
  expect(comment.split('\n')[0]).toBe('❌ **Error: Plan: 4 to add, 1 to change, 2 to destroy, 3 drifted** over 4 stacks, 1 stack failed, 1 skipped');
  expect(comment).toContain('| `base` | 0 | 0 | 0 | 0 | — | ✅ No changes |');
  expect(comment).toContain('| `prod` | 4 | 1 | 2 | 3 | — | 🗑️ Destroys |');
  expect(comment).toContain('| `staging` | — | — | — | — | — | ❌ Error: error |');
  expect(comment).toContain('| `tools` | — | — | — | — | — | ❌ Error: skipped (`staging` failed) |');
  expect(comment).toContain('### Stack `staging`\n\n> [!CAUTION]\n> ❌ **Error:** cannot reach https:\u2060//staging.example:8200 (ECONNREFUSED)');
  // The stack's own comment body, after its heading.
  const prodBody = renderMarkdown(fullPlan({ stack: 'prod' }))[0];
  expect(comment).toContain(prodBody.slice(prodBody.indexOf('\n\n') + 2, prodBody.indexOf('\n\n') + 200));
});

test('markdown: a long comment over several stacks is split into parts within the limit, each with the run status', () => {
  const big: StackReport[] = [
    { stack: 'a', status: 'done', value: largePlan(60) },
    { stack: 'b', status: 'done', value: largePlan(60) },
  ];
  const parts = renderStacksMarkdown(big, { maxLength: 20_000 });
  expect(parts.length).toBeGreaterThan(1);
  parts.forEach((part, index) => {
    expect(part.length).toBeLessThanOrEqual(20_000);
    expect(part).toContain(`(part ${index + 1} of ${parts.length})`);
    expect(part).toContain('over 2 stacks');
  });
  expect(parts.join('\n')).toMatch(/### Stack `a`[\s\S]*### Stack `b`/);
});

test('json: the per-stack objects, the summary summed, and the stacks without a plan', () => {
  const json = JSON.parse(renderStacksJson(reports));
  expect(json.format_version).toBe('1.0');
  expect(json.stacks.map((stack: { stack: string }) => stack.stack)).toEqual(['base', 'prod']);
  expect(json.summary).toEqual({ create: 3, update: 1, replace: 1, delete: 1, forget: 0, no_op: 2, drifted: 3 });
  expect(json.errors).toEqual([
    { stack: 'staging', status: 'failed', message: 'cannot reach https://staging.example:8200 (ECONNREFUSED)' },
    { stack: 'tools', status: 'skipped', message: 'not planned: stack staging, which it depends on, failed or was skipped' },
  ]);
});

describe('a refresh-only plan over several stacks', () => {
  const refreshOnly: StackReport[] = [
    { stack: 'base', status: 'done', value: emptyPlan({ stack: 'base', refreshOnly: true }) },
    { stack: 'prod', status: 'done', value: emptyPlan({ stack: 'prod', refreshOnly: true, drift: [userpassUserDrift(), ldapDynamicRoleDeleted()] }) },
  ];
  const failed: StackReport = { stack: 'staging', status: 'failed', error: new EngineError('service_unusable', 'cannot reach https://staging.example:8200 (ECONNREFUSED)') };

  test('text: the total counts what drifted in the words each stack ends with, not the plan counts', () => {
    const text = renderStacksText(refreshOnly, { color: false });
    expect(text).toContain('\nRefresh-only plan: 2 drifted.\n');
    expect(text.trimEnd().split('\n').at(-1)).toBe('Total over 2 stacks: Refresh-only plan: 2 drifted.');
    expect(renderStacksText([...refreshOnly, failed], { color: false }).trimEnd().split('\n').at(-1)).toBe('Total over 3 stacks: Refresh-only plan: 2 drifted, 1 stack failed.');
  });

  test('markdown: the status line over the stacks says refresh-only plan and what drifted', () => {
    expect(renderStacksMarkdown(refreshOnly)[0].split('\n')[0]).toBe('⚠️ **Drift: Refresh-only plan: 2 drifted** over 2 stacks');
    expect(renderStacksMarkdown([...refreshOnly, failed])[0].split('\n')[0]).toBe('❌ **Error: Refresh-only plan: 2 drifted** over 3 stacks, 1 stack failed');
  });
});

test('a report of one stack counts it as one stack, in the text total and the markdown status', () => {
  const one: StackReport[] = [{ stack: 'prod', status: 'done', value: emptyPlan({ stack: 'prod' }) }];
  expect(renderStacksText(one, { color: false }).trimEnd().split('\n').at(-1)).toBe('Total over 1 stack: Plan: 0 to add, 0 to change, 0 to destroy, 0 drifted.');
  expect(renderStacksMarkdown(one)[0].split('\n')[0]).toMatch(/\*\* over 1 stack$/);
});
