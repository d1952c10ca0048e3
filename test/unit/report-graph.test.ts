import { renderDot, renderGraph, renderMermaid } from '../../src/report/graph';

const nodes = [
  { address: 'prod/ldap/mount', type: 'secrets_mount', dependsOn: [] },
  { address: 'prod/ldap', type: 'ldap_secret_backend', dependsOn: ['prod/ldap/mount'] },
  { address: 'prod/role "a"', type: 'ldap_static_role', dependsOn: ['prod/ldap', 'prod/ldap/mount', 'elsewhere/x'], note: 'create' },
];

test('dot: one box per resource, an edge from each dependency to what needs it, quotes escaped', () => {
  expect(renderDot(nodes, 'prod')).toBe([
    'digraph "prod" {',
    '  rankdir = "LR";',
    '  node [shape = "box"];',
    '  "prod/ldap/mount" [label = "prod/ldap/mount\\nsecrets_mount"];',
    '  "prod/ldap" [label = "prod/ldap\\nldap_secret_backend"];',
    '  "prod/role \\"a\\"" [label = "prod/role \\"a\\"\\nldap_static_role (create)"];',
    '  "prod/ldap/mount" -> "prod/ldap";',
    '  "prod/ldap" -> "prod/role \\"a\\"";',
    '  "prod/ldap/mount" -> "prod/role \\"a\\"";',
    '}',
    '',
  ].join('\n'));
});

test('mermaid: generated ids, labels with entities for characters Mermaid reserves, no edge to an unknown node', () => {
  expect(renderMermaid(nodes)).toBe([
    'flowchart LR',
    '  n0["prod/ldap/mount<br/>secrets_mount"]',
    '  n1["prod/ldap<br/>ldap_secret_backend"]',
    '  n2["prod/role #34;a#34;<br/>ldap_static_role (create)"]',
    '  n0 --> n1',
    '  n1 --> n2',
    '  n0 --> n2',
    '',
  ].join('\n'));
  expect(renderGraph([], 'mermaid')).toBe('flowchart LR\n');
});
