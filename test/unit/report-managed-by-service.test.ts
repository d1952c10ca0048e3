/** Root credentials rotated by the service (rotate-root): every report says the service manages them, none shows a change. */
import { planToJson } from '../../src/report/json';
import { renderMarkdown } from '../../src/report/markdown';
import { stackReport } from '../../src/report/stacks-view';
import { renderText } from '../../src/report/text';
import { change, emptyPlan } from './report-plan-fixture';

const AT = '2026-03-01T10:00:00.000Z';

function rotatedPlan() {
  const attributes = { path: 'ldap', binddn: 'cn=admin,dc=example,dc=org' };
  return emptyPlan({
    changes: [
      change({
        address: 'prod/ldap', type: 'ldap_secret_backend', id: 'ldap/config', action: 'no-op', before: attributes, after: attributes,
        secrets: [{ field: 'bindpass', status: 'managed_by_service', rotatedAt: AT }],
      }),
    ],
  });
}

describe('reports of a root credential managed by the service', () => {
  test('text: no change, and a note that names the field and when it was rotated', () => {
    const text = renderText([stackReport(rotatedPlan())], { color: false });
    expect(text).toContain('No changes.');
    expect(text).toContain(`Root credentials managed by the service now (rotated with rotate-root; the value in code is not sent):\n  prod/ldap: bindpass (rotated by the service at ${AT})`);
    expect(text).not.toContain('not verifiable');
  });

  test('markdown: the same note', () => {
    const markdown = renderMarkdown([stackReport(rotatedPlan())]).join('\n');
    expect(markdown).toContain('**Root credentials managed by the service now');
    expect(markdown).toContain(`- \`prod/ldap\`: bindpass (rotated by the service at ${AT})`);
  });

  test('json: a no-op with managed_by_service, nothing sensitive written', () => {
    const [entry] = planToJson(rotatedPlan()).resource_changes;
    expect(entry).toMatchObject({ actions: ['no-op'], sensitive: [], managed_by_service: { bindpass: AT } });
  });

  test('json: resources without a rotated root have no managed_by_service key', () => {
    const plan = emptyPlan({ changes: [change({ address: 'prod/r', action: 'no-op', secrets: [{ field: 'bindpass', status: 'unverifiable' }] })] });
    expect(planToJson(plan).resource_changes[0]).not.toHaveProperty('managed_by_service');
  });
});
