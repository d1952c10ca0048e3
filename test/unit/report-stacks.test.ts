/**
 * The reports over several stacks: the text sections and total line, the markdown table of stacks (status per
 * stack, a failed and a skipped stack) split like a one-stack comment, and the JSON document; the totals of a
 * refresh-only plan in its own words; which form one section takes; a stand-in line and the plans' warnings in
 * either form.
 */
import { EngineError } from '../../src/engine/errors';
import type { Plan } from '../../src/engine/plan/plan';
import { renderJson, renderMarkdown, renderText, reportWarnings, stackReport, type StackReport } from '../../src/report';
import { change, emptyPlan, fullPlan, largePlan, ldapDynamicRoleDeleted, userpassUserDrift } from './report-plan-fixture';

const reports: StackReport[] = [
  { stack: 'base', status: 'done', value: emptyPlan({ stack: 'base' }) },
  { stack: 'prod', status: 'done', value: fullPlan({ stack: 'prod' }) },
  { stack: 'staging', status: 'failed', error: new EngineError('service_unusable', 'cannot reach https://staging.example:8200 (ECONNREFUSED)') },
  { stack: 'tools', status: 'skipped', dependency: 'staging' },
];

test('text: a section per stack, the failure and the skip said, then one total line', () => {
  const text = renderText(reports, { color: false });
  expect(text.match(/^=== Stack \S+ ===$/gm)).toEqual(['=== Stack base ===', '=== Stack prod ===', '=== Stack staging ===', '=== Stack tools ===']);
  expect(text).toContain('Error: cannot reach https://staging.example:8200 (ECONNREFUSED)');
  expect(text).toContain('Skipped: not planned: stack staging, which it depends on, failed or was skipped');
  expect(text.trimEnd().split('\n').at(-1)).toBe('Total over 4 stacks: Plan: 4 to add, 1 to change, 2 to destroy, 3 drifted, 1 stack failed, 1 skipped.');
});

test('markdown: the run status, a table of stacks with a status each, then each stack under its heading', () => {
  const [comment, ...more] = renderMarkdown(reports);
  expect(more).toEqual([]);
  // One label, then the counts (not "Error: Plan: ...").
  expect(comment.split('\n')[0]).toBe('❌ **Error** over 4 stacks: 4 to add, 1 to change, 2 to destroy, 3 drifted, 1 stack failed, 1 skipped');
  expect(comment).toContain('| `base` | 0 | 0 | 0 | 0 | — | ✅ No changes |');
  expect(comment).toContain('| `prod` | 4 | 1 | 2 | 3 | — | 🗑️ Destroys |');
  expect(comment).toContain('| `staging` | — | — | — | — | — | ❌ Error: error |');
  expect(comment).toContain('| `tools` | — | — | — | — | — | ❌ Error: skipped (`staging` failed) |');
  expect(comment).toContain('### Stack `staging`\n\n> [!CAUTION]\n> ❌ **Error:** cannot reach https:\u2060//staging.example:8200 (ECONNREFUSED)');
  // The stack's own comment body, after its heading: its headings a level below the stack's, and its CAUTION
  // block at the top of the comment instead, where the table of stacks follows it.
  const prodBody = renderMarkdown([stackReport(fullPlan({ stack: 'prod' }))])[0];
  const caution = /> \[!CAUTION\][^]*?\n\n/.exec(prodBody)![0];
  // At the top, the same lines one level down under the stack's name.
  const [cautionHead, ...cautionLines] = caution.trimEnd().split('\n').slice(1);
  const topCaution = ['> [!CAUTION]', cautionHead, '> - Stack `prod`:', ...cautionLines.map((line) => `>   ${line.slice(2)}`)].join('\n');
  expect(comment.indexOf(`${topCaution}\n\n| Stack | Add |`)).toBeGreaterThan(0);
  const nested = prodBody.replace(caution, '').replaceAll('\n### ', '\n#### ');
  expect(comment).toContain(nested.slice(nested.indexOf('\n\n') + 2));
  expect(comment).toContain('### Stack `prod`');
  expect(comment).toContain('#### Changes');
  expect(comment).not.toMatch(/^### (Changes|Changed outside)/m);
});

test('markdown over several stacks: the CAUTION block at the top lists what every stack destroys, under its stack', () => {
  // The same address in two stacks (one app, two environments): only the stack tells them apart.
  const destroys = (stack: string) => stackReport(emptyPlan({ stack, changes: [change({ address: 'app/apps', action: 'delete', type: 'secrets_mount', id: 'sys/mounts/apps', before: { path: 'apps', type: 'kv' } })] }));
  const [comment] = renderMarkdown([destroys('blue'), stackReport(emptyPlan({ stack: 'base' })), destroys('green')]);
  const top = comment.slice(0, comment.indexOf('| Stack | Add |'));
  expect(top).toContain([
    '> [!CAUTION]',
    '> **2 resources will be destroyed or replaced:**',
    '> - Stack `blue`:',
    '>   - 🗑️ `app/apps` (`secrets_mount`) will be destroyed',
    '> - Stack `green`:',
    '>   - 🗑️ `app/apps` (`secrets_mount`) will be destroyed',
    '',
  ].join('\n'));
  expect(top).not.toContain('`base`'); // a stack that loses nothing is not listed
  expect(comment.match(/\[!CAUTION\]/g)).toHaveLength(1);
  // One stack's comment keeps its own CAUTION block, without a stack item, and its headings.
  const [one] = renderMarkdown([destroys('blue')]);
  expect(one).toContain('> [!CAUTION]\n> **1 resource will be destroyed or replaced:**\n> - 🗑️ `app/apps` (`secrets_mount`) will be destroyed\n');
  expect(one).toContain('\n### Changes\n');
});

test('markdown over several stacks: what goes with a destroy, and objects deleted outside secretform, sit under their stack', () => {
  const prod = emptyPlan({
    stack: 'prod',
    changes: [change({
      address: 'app/apps', action: 'delete', type: 'secrets_mount', id: 'sys/mounts/apps', before: { path: 'apps', type: 'kv' },
      consequences: [{ what: 'secrets', one: 'secret', count: 3, detail: 'the secrets stored in kv mount "apps" are deleted with it' }],
    })],
  });
  const staging = emptyPlan({ stack: 'staging', drift: [ldapDynamicRoleDeleted()] });
  const [comment] = renderMarkdown([stackReport(prod), stackReport(staging)]);
  expect(comment).toContain([
    '> **1 resource will be destroyed or replaced; 1 object was deleted outside secretform:**',
    '> - Stack `prod`:',
    '>   - 🗑️ `app/apps` (`secrets_mount`) will be destroyed',
    '>     - ⚠️ 3 secrets go with it: the secrets stored in kv mount &quot;apps&quot; are deleted with it',
    '> - Stack `staging`:',
    '>   - `prod/ldap/dyn` (`ldap_dynamic_role`) has been deleted outside secretform',
    '',
  ].join('\n'));
});

test('markdown: a long comment over several stacks is split into parts within the limit, each with the run status', () => {
  const big: StackReport[] = [
    { stack: 'a', status: 'done', value: largePlan(60) },
    { stack: 'b', status: 'done', value: largePlan(60) },
  ];
  const parts = renderMarkdown(big, { maxLength: 20_000 });
  expect(parts.length).toBeGreaterThan(1);
  parts.forEach((part, index) => {
    expect(part.length).toBeLessThanOrEqual(20_000);
    expect(part).toContain(`(part ${index + 1} of ${parts.length})`);
    expect(part).toContain('over 2 stacks');
  });
  expect(parts.join('\n')).toMatch(/### Stack `a`[\s\S]*### Stack `b`/);
});

test('json: the per-stack objects, the summary summed, and the stacks without a plan', () => {
  const json = JSON.parse(renderJson(reports));
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
    const text = renderText(refreshOnly, { color: false });
    expect(text).toContain('\nRefresh-only plan: 2 drifted.\n');
    expect(text.trimEnd().split('\n').at(-1)).toBe('Total over 2 stacks: Refresh-only plan: 2 drifted.');
    expect(renderText([...refreshOnly, failed], { color: false }).trimEnd().split('\n').at(-1)).toBe('Total over 3 stacks: Refresh-only plan: 2 drifted, 1 stack failed.');
  });

  test('markdown: the status line over the stacks says refresh-only plan and what drifted', () => {
    expect(renderMarkdown(refreshOnly)[0].split('\n')[0]).toBe('⚠️ **Drift** over 2 stacks: 2 drifted (refresh-only plan)');
    expect(renderMarkdown([...refreshOnly, failed])[0].split('\n')[0]).toBe('❌ **Error** over 3 stacks: 2 drifted (refresh-only plan), 1 stack failed');
  });
});

describe('one section', () => {
  const prod = fullPlan({ stack: 'prod', warnings: ['the state file was written by a newer secretform'] });

  test('a stack that planned reads as that stack alone: no heading, no total, its own status line and JSON', () => {
    const text = renderText([stackReport(prod)], { color: false });
    expect(text).not.toContain('=== Stack');
    expect(text).not.toContain('Total over');
    expect(text.trimEnd().split('\n').at(-1)).toBe('Warning: the state file was written by a newer secretform');
    expect(renderMarkdown([stackReport(prod)])[0].split('\n')[0]).toBe('🗑️ **Destroys** for stack `prod`: 4 to add, 1 to change, 2 to destroy, 3 drifted');
    const json = JSON.parse(renderJson([stackReport(prod)]));
    expect(json.stack).toBe('prod');
    expect(json).not.toHaveProperty('stacks');
  });

  test('a stack that failed has no plan to show: its section says why, and the total counts it as one stack', () => {
    const failed: StackReport[] = [{ stack: 'prod', status: 'failed', error: new EngineError('service_unusable', 'cannot reach https://prod.example:8200 (ECONNREFUSED)') }];
    const text = renderText(failed, { color: false });
    expect(text).toContain('=== Stack prod ===\n\nError: cannot reach https://prod.example:8200 (ECONNREFUSED)\n');
    expect(text.trimEnd().split('\n').at(-1)).toBe('Total over 1 stack: Plan: 0 to add, 0 to change, 0 to destroy, 0 drifted, 1 stack failed.');
    expect(renderMarkdown(failed)[0].split('\n')[0]).toBe('❌ **Error** over 1 stack: 0 to add, 0 to change, 0 to destroy, 0 drifted, 1 stack failed');
    expect(JSON.parse(renderJson(failed))).toMatchObject({ stacks: [], errors: [{ stack: 'prod', status: 'failed' }] });
  });

  test('warnings: a stack alone says its own; over several stacks each names its stack', () => {
    expect(reportWarnings([stackReport(prod)])).toEqual(['the state file was written by a newer secretform']);
    expect(reportWarnings([stackReport(prod), stackReport(emptyPlan({ stack: 'base', warnings: ['w'] })), reports[2]])).toEqual([
      'stack prod: the state file was written by a newer secretform',
      'stack base: w',
    ]);
  });
});

describe('a stand-in line instead of a planned stack\'s plan (destroy with nothing in state)', () => {
  const nothing = emptyPlan({ stack: 'base' });
  const standIn = (plan: Plan) => (plan.changes.length === 0 ? `Nothing to destroy in ${plan.stack}.` : undefined);

  test('over several stacks it stands in that stack\'s section; the other stacks show their plans', () => {
    const text = renderText([stackReport(nothing), stackReport(fullPlan({ stack: 'prod' }))], { color: false, standIn });
    expect(text).toMatch(/^=== Stack base ===\n\nNothing to destroy in base\.\n\n=== Stack prod ===\n\nNote: Objects have changed outside of secretform\n/);
    expect(text.trimEnd().split('\n').at(-1)).toBe('Total over 2 stacks: Plan: 4 to add, 1 to change, 2 to destroy, 3 drifted.');
  });

  test('for one stack it is the whole report', () => {
    expect(renderText([stackReport(nothing)], { color: false, standIn })).toBe('Nothing to destroy in base.\n');
    expect(renderText([stackReport(nothing)], { color: false })).toBe('No changes. Your configuration matches the service.\n');
  });
});
