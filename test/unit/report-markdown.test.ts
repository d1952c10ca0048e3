import { renderMarkdown, stackReport } from '../../src/report';
import {
  change,
  cloud1DestinationCreate,
  emptyPlan,
  fullPlan,
  largePlan,
  ldapConfigUpdate,
  ldapDynamicRoleDeleted,
  ldapStaticRoleCreate,
  userpassUserDrift,
} from './report-plan-fixture';

function single(parts: string[]): string {
  expect(parts).toHaveLength(1);
  return parts[0];
}

function count(text: string, pattern: RegExp): number {
  return (text.match(pattern) ?? []).length;
}

/** Every fence opened in the text is closed, and every <details> too. */
function expectBalanced(text: string): void {
  expect(count(text, /<details>/g)).toBe(count(text, /<\/details>/g));
  expect(count(text, /^`{3,}/gm) % 2).toBe(0);
}

describe('renderMarkdown', () => {
  it('starts with the status line: the outcome\'s icon and word, the stack and the counts', () => {
    const text = single(renderMarkdown([stackReport(fullPlan())]));

    expect(text.split('\n')[0]).toBe('🗑️ **Destroys** for stack `prod`: 4 to add, 1 to change, 2 to destroy, 3 drifted');
  });

  it('puts a title above the status line when given one, escaped', () => {
    const text = single(renderMarkdown([stackReport(fullPlan())], { title: 'plan for <prod> *nightly*' }));

    expect(text.startsWith('## plan for &lt;prod&gt; \\*nightly\\*\n\n🗑️ **Destroys** for stack `prod`: 4 to add')).toBe(true);
  });

  it('says "No changes" without table, warning or details when nothing changes', () => {
    const plan = emptyPlan({ changes: [change({ address: 'prod/ldap/svc-role', action: 'no-op', before: {}, after: {} })] });

    expect(renderMarkdown([stackReport(plan)])).toEqual(['✅ **No changes** for stack `prod`. Your configuration matches the service.']);
  });

  it('lists each changed resource in the summary table with its type and action, no-ops left out', () => {
    const text = single(renderMarkdown([stackReport(fullPlan())]));

    expect(text).toContain(
      [
        '| Address | Type | Action |',
        '| --- | --- | --- |',
        '| `prod/ldap/backend` | `ldap_secret_backend` | 🔄 update in-place |',
        '| `prod/ldap/old-set` | `ldap_library_set` | 🗑️ destroy |',
        '| `prod/ldap/app-role` | `ldap_static_role` | ♻️ replace |',
        '| `prod/ldap/svc-role` | `ldap_static_role` | ➕ create |',
        '| `prod/sync/cloud1` | `sync_destination_cloud1_sm` | ➕ create |',
        '| `prod/users/alice` | `userpass_user` | ➕ create |',
      ].join('\n'),
    );
    expect(text).not.toContain('prod/github/ci-app');
  });

  it('puts deletions, replacements and objects deleted outside secretform in a CAUTION block, and drift in a WARNING block, above the table', () => {
    const text = single(renderMarkdown([stackReport(fullPlan())]));

    expect(text).toContain(
      [
        '> [!CAUTION]',
        '> **2 resources will be destroyed or replaced; 1 object was deleted outside secretform:**',
        '> - 🗑️ `prod/ldap/old-set` (`ldap_library_set`) will be destroyed',
        '> - ♻️ `prod/ldap/app-role` (`ldap_static_role`) will be replaced (username cannot change on an existing object)',
        '> - `prod/ldap/dyn` (`ldap_dynamic_role`) has been deleted outside secretform',
        '',
        '> [!WARNING]',
        '> **2 objects changed outside secretform:**',
        '> - `prod/users/carol` (`userpass_user`) has changed (token\\_ttl)',
        '> - `prod/sync/db-assoc` (`sync_association`) is out of sync on the service (status: PENDING)',
        '',
        '| Address | Type | Action |',
      ].join('\n'),
    );
  });

  it('says in the CAUTION block what the plan does about an object deleted outside secretform', () => {
    const recreate = change({
      address: 'prod/ldap/dyn', type: 'ldap_dynamic_role', action: 'create', after: { max_ttl: 86400 }, reasons: [{ kind: 'deleted_outside' }],
    });
    const orphan = change({ address: 'prod/users/bob', type: 'userpass_user', action: 'create', after: {}, reasons: [{ kind: 'deleted_outside' }] });
    const text = single(renderMarkdown([stackReport(emptyPlan({ changes: [recreate, orphan], drift: [ldapDynamicRoleDeleted()] }))]));

    expect(text).toContain(
      [
        '> [!CAUTION]',
        '> **2 objects were deleted outside secretform:**',
        '> - `prod/ldap/dyn` (`ldap_dynamic_role`) has been deleted outside secretform; it will be created',
        '> - `prod/users/bob` (`userpass_user`) was deleted outside secretform; it will be created',
      ].join('\n'),
    );
    expect(text).not.toContain('[!WARNING]');
    expect(text.split('\n')[0]).toBe('⚠️ **Drift** for stack `prod`: 2 to add, 0 to change, 0 to destroy, 1 drifted');
  });

  it('has no warning block when the plan only creates and updates', () => {
    const text = single(renderMarkdown([stackReport(emptyPlan({ changes: [ldapConfigUpdate(), ldapStaticRoleCreate()] }))]));

    expect(text).not.toMatch(/\[!(WARNING|CAUTION)\]/);
    expect(text.split('\n')[0]).toBe('📝 **Changes** for stack `prod`: 1 to add, 1 to change, 0 to destroy, 0 drifted');
  });

  it('has one collapsible section per changed resource with a diff block, sensitive values masked', () => {
    const text = single(renderMarkdown([stackReport(fullPlan())]));

    expect(count(text, /<details><summary><code>prod\/(ldap|sync|users)\/[a-z0-9-]+<\/code>/g)).toBe(9); // 6 changes + 3 drift
    expect(count(text, /<details>/g)).toBe(10); // and the unverifiable secrets (no dependency picture: no edges)
    expectBalanced(text);
    expect(text).toContain(
      [
        '<details><summary><code>prod/sync/cloud1</code> (sync_destination_cloud1_sm) will be created</summary>',
        '',
        '```diff',
        '# id: sys/sync/destinations/cloud1-sm/prod-sm',
        '+ custom_tags = {"team":"payments"}',
        '+ granularity = "secret-path"',
        '+ name = "prod-sm"',
        '+ region = "us-east-1"',
        '+ role_arn = "arn:cloud1:iam::123456789012:role/sync"',
        '+ secret_access_key = (sensitive value)',
        '```',
        '',
        '</details>',
      ].join('\n'),
    );
    expect(text).toContain(
      [
        '<details><summary><code>prod/ldap/app-role</code> (ldap_static_role) will be replaced (username cannot change on an existing object)</summary>',
        '',
        '```diff',
        '# id: ldap/static-role/app',
        '- username = "app"',
        '+ username = "app2" # forces replacement',
        '# (2 unchanged attributes hidden)',
        '```',
      ].join('\n'),
    );
    expect(text).toContain('```diff\n# id: ldap/library/old-set\n- disable_check_in_enforcement = false\n');
    expect(text).toContain('+ password = (sensitive value)\n');
  });

  it('has a drift section with a collapsible block for each drift kind', () => {
    const text = single(renderMarkdown([stackReport(fullPlan())]));
    const drift = text.slice(text.indexOf('### Changed outside of secretform (3)'));

    expect(text.indexOf('### Changed outside of secretform')).toBeGreaterThan(text.indexOf('### Changes'));
    expect(drift).toContain(
      '<details><summary><code>prod/users/carol</code> (userpass_user) has changed</summary>\n\n```diff\n# id: auth/userpass/users/carol\n- token_ttl = 3600\n+ token_ttl = 7200\n```',
    );
    expect(drift).toContain('<details><summary><code>prod/ldap/dyn</code> (ldap_dynamic_role) has been deleted</summary>');
    expect(drift).toContain('- username_template = "v_{{.RoleName}}_{{random 8}}"');
    expect(drift).toContain(
      '<details><summary><code>prod/sync/db-assoc</code> (sync_association) is out of sync on the service (status: PENDING)</summary>',
    );
    expect(drift).toContain('# sync status: PENDING\n```');
  });

  it('lists secrets it cannot verify apart from the changes', () => {
    const text = single(renderMarkdown([stackReport(fullPlan())]));

    expect(text).toContain(
      [
        '<details><summary>Secrets unchanged since the last apply that the service does not return for comparison (2)</summary>',
        '',
        '- `prod/cloud/backend`: `client_secret` (not verifiable on the service)',
        '- `prod/ldap/backend`: `bindpass` (not verifiable on the service)',
        '',
        '</details>',
      ].join('\n'),
    );
    expect(text).not.toMatch(/[~+] bindpass/);
  });

  it('shows only drift for a refresh-only plan', () => {
    const text = single(renderMarkdown([stackReport(fullPlan({ refreshOnly: true }))]));

    expect(text.split('\n')[0]).toBe(
      '⚠️ **Drift** for stack `prod`: 3 drifted. Refresh-only plan: secretform will not change anything on the service.',
    );
    expect(text).not.toContain('| Address |');
    expect(text).toContain('> [!WARNING]\n> **2 objects changed outside secretform:**');
    expect(text).toContain('> [!CAUTION]\n> **1 object was deleted outside secretform:**\n> - `prod/ldap/dyn` (`ldap_dynamic_role`) has been deleted outside secretform\n');
    expect(text).not.toContain('will be destroyed or replaced');
    expect(text).not.toContain('### Changes');
    expect(count(text, /<details>/g)).toBe(3);
    expect(single(renderMarkdown([stackReport(emptyPlan({ refreshOnly: true }))]))).toBe(
      '✅ **No changes** for stack `prod`. No objects have changed outside of secretform.',
    );
  });

  it('escapes markdown and HTML in addresses, types, reasons and values', () => {
    const plan = emptyPlan({
      stack: 'prod`x',
      changes: [
        change({
          address: 'prod/a|b/<script>alert(1)</script>/`tick`',
          type: 'ldap_library_set',
          id: 'ldap/library/x',
          action: 'delete',
          reasons: [{ kind: 'identity_changed', from: 'removed by <b>|someone|</b>', to: '*now*' }],
          before: { service_account_names: ['```', '</details>', 'a|b'] },
        }),
      ],
      drift: [{ ...userpassUserDrift(), address: 'prod/users/<img src=x>' }],
    });
    const text = single(renderMarkdown([stackReport(plan)]));

    // Raw HTML appears only inside code spans (the address is wrapped in double backticks), never as markup.
    expect(text).not.toMatch(/<b>/);
    for (const line of text.split('\n').filter((l) => l.includes('<script>'))) expect(line).toContain('`` prod/a');
    for (const line of text.split('\n').filter((l) => l.includes('<img'))) expect(line).toContain('`prod/users/<img src=x>`');
    expect(text.split('\n')[0]).toBe('🗑️ **Destroys** for stack ``prod`x``: 0 to add, 0 to change, 1 to destroy, 1 drifted');
    // Table cells: pipes escaped, so the row still has exactly three cells.
    expect(text).toContain('| `` prod/a\\|b/<script>alert(1)</script>/`tick` `` | `ldap_library_set` | 🗑️ destroy |');
    // Warning list: reason escaped as text.
    expect(text).toContain(
      '(`ldap_library_set`) will be destroyed (its identity changed from removed by &lt;b&gt;\\|someone\\|&lt;/b&gt; to \\*now\\*)',
    );
    // HTML summaries: entities.
    expect(text).toContain('<summary><code>prod/a|b/&lt;script&gt;alert(1)&lt;/script&gt;/`tick`</code>');
    expect(text).toContain('<summary><code>prod/users/&lt;img src=x&gt;</code> (userpass_user) has changed</summary>');
    // A value holding a fence: the block's fence is longer, so the value cannot close it.
    expect(text).toContain('````diff\n# id: ldap/library/x\n- service_account_names = ["```","</details>","a|b"]\n````');
    expectBalanced(text.replace('"```"', '""').replace('"</details>"', '""'));
  });

  it('splits a plan of 2,000 resources into parts of at most 65,000 characters holding every address', () => {
    const plan = largePlan(2000);
    const parts = renderMarkdown([stackReport(plan)]);
    const status = '📝 **Changes** for stack `prod`: 2000 to add, 0 to change, 0 to destroy, 0 drifted';

    expect(parts.length).toBeGreaterThan(1);
    parts.forEach((part, index) => {
      expect(part.length).toBeLessThanOrEqual(65000);
      expect(part.startsWith(`(part ${index + 1} of ${parts.length})\n\n${status}\n\n`)).toBe(true);
      expectBalanced(part);
    });
    const all = parts.join('\n');
    for (const change of plan.changes) {
      expect(all).toContain(`| \`${change.address}\` | \`userpass_user\` | ➕ create |`);
      expect(all).toContain(`<summary><code>${change.address}</code> (userpass_user) will be created</summary>`);
    }
    expect(count(all, /<details>/g)).toBe(2000);
  });

  it('keeps each part under a smaller maxLength and repeats the title in every part', () => {
    const parts = renderMarkdown([stackReport(largePlan(300))], { title: 'secretform plan', maxLength: 20000 });

    expect(parts.length).toBeGreaterThan(2);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(20000);
      expect(part).toMatch(/^\(part \d+ of \d+\)\n\n## secretform plan\n\n📝 \*\*Changes\*\* for stack `prod`: 300 to add/);
    }
  });

  it('splits one section longer than the limit inside its code block, closing and reopening the fence', () => {
    const before: Record<string, unknown> = {};
    for (let i = 0; i < 400; i += 1) before[`custom_tag_${String(i).padStart(3, '0')}`] = `value-${i}-${'x'.repeat(30)}`;
    const plan = emptyPlan({
      changes: [
        change({
          address: 'prod/sync/huge',
          type: 'sync_destination_cloud1_sm',
          id: 'sys/sync/destinations/cloud1-sm/huge',
          action: 'delete',
          before,
        }),
      ],
    });
    const parts = renderMarkdown([stackReport(plan)], { maxLength: 5000 });

    expect(parts.length).toBeGreaterThan(3);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(5000);
      expectBalanced(part);
    }
    expect(parts[2]).toContain(
      '<details><summary><code>prod/sync/huge</code> (sync_destination_cloud1_sm) will be destroyed (continued)</summary>\n\n```diff\n- custom_tag_',
    );
    const all = parts.join('\n');
    for (const name of Object.keys(before)) expect(all).toContain(`- ${name} = "value-`);
  });

  it('keeps a section heading with the section after it when splitting', () => {
    const plan = { ...largePlan(150), drift: [userpassUserDrift()] };
    const parts = renderMarkdown([stackReport(plan)], { maxLength: 8000 });

    for (const part of parts) expect(part.trimEnd().endsWith('### Changes')).toBe(false);
    for (const part of parts) expect(part.trimEnd().endsWith('### Changed outside of secretform (1)')).toBe(false);
    expect(parts.join('\n')).toContain('### Changed outside of secretform (1)\n\n<details><summary><code>prod/users/carol</code>');
  });

  it('never writes a secret value, even if one slipped into before, after or the field changes', () => {
    const secrets = { token_ttl: 3600, password: 'hunter2-created' };
    const plan = emptyPlan({
      changes: [
        change({
          address: 'prod/users/alice',
          type: 'userpass_user',
          id: 'auth/userpass/users/alice',
          action: 'create',
          after: secrets,
          sensitive: ['password'],
          secrets: [{ field: 'password', status: 'changed' }],
        }),
        change({
          address: 'prod/sync/cloud1',
          type: 'sync_destination_cloud1_sm',
          id: 'sys/sync/destinations/cloud1-sm/prod-sm',
          action: 'update',
          before: { region: 'us-east-1', secret_access_key: 'OLD-SECRET-KEY-123' },
          after: { region: 'us-west-2', secret_access_key: 'NEW-SECRET-KEY-456', access_key_id: 'AKIA-LEAK' },
          fieldChanges: [
            { field: 'region', from: 'us-east-1', to: 'us-west-2', forcesReplacement: false },
            { field: 'secret_access_key', from: 'OLD-SECRET-KEY-123', to: 'NEW-SECRET-KEY-456', forcesReplacement: false },
            { field: 'access_key_id', from: 'AKIA-OLD-LEAK', to: 'AKIA-LEAK', forcesReplacement: false },
          ],
          sensitive: ['secret_access_key'],
          secrets: [
            { field: 'secret_access_key', status: 'changed' },
            { field: 'access_key_id', status: 'unverifiable' },
          ],
        }),
      ],
    });
    const text = single(renderMarkdown([stackReport(plan)]));

    expect(text).not.toMatch(/hunter2|SECRET-KEY|AKIA-/);
    expect(text).toContain('+ password = (sensitive value)\n');
    expect(text).toContain('- region = "us-east-1"\n+ region = "us-west-2"\n! secret_access_key = (sensitive value)\n');
    expect(text).toContain('`prod/sync/cloud1`: `access_key_id` (not verifiable on the service)');
  });

  it('refuses a maxLength too small to hold the status line and a section', () => {
    expect(() => renderMarkdown([stackReport(largePlan(50))], { maxLength: 300 })).toThrow(/maxLength 300 is too small/);
  });

  it('returns one part, without a part marker, when the comment fits', () => {
    const parts = renderMarkdown([stackReport(emptyPlan({ changes: [cloud1DestinationCreate()] }))]);

    expect(parts).toHaveLength(1);
    expect(parts[0]).not.toContain('(part ');
  });

  it('wraps a value longer than a whole part across lines instead of cutting it', () => {
    const value = Array.from({ length: 900 }, (_, i) => `line-${i}`).join('|');
    const plan = emptyPlan({ changes: [change({ address: 'prod/kv/huge', type: 'secrets_mount', id: 'sys/mounts/huge', action: 'create', after: { description: value } })] });
    const parts = renderMarkdown([stackReport(plan)], { maxLength: 3000 });

    expect(parts.length).toBeGreaterThan(2);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(3000);
      expectBalanced(part);
      expect(part).not.toContain('...');
    }
    // The pieces of the wrapped line, put back together, are the whole value.
    const body = parts.map((part) => part.split('```diff\n')[1]?.split('\n```')[0] ?? '').join('\n');
    // Continuation lines keep the `+` (so GitHub colours the whole value) and an indent.
    const pieces = body.split('\n').filter((line) => line !== '' && !line.startsWith('# id:'));
    expect(pieces.slice(1).every((line) => line.startsWith('+     '))).toBe(true);
    expect(pieces.map((line, i) => (i === 0 ? line : line.slice('+     '.length))).join('')).toBe(`+ description = ${JSON.stringify(value)}`);
  });

  it('says "has moved to" for a construct whose id changed, and "moved from" when it changes too', () => {
    const plan = emptyPlan({
      changes: [
        change({ address: 'prod/users/new', previousAddress: 'prod/users/old', type: 'userpass_user', id: 'auth/userpass/users/a', action: 'no-op', before: { token_ttl: 3600 }, after: { token_ttl: 3600 } }),
        change({
          address: 'prod/users/b2', previousAddress: 'prod/users/b', type: 'userpass_user', id: 'auth/userpass/users/b', action: 'update',
          before: { token_ttl: 60 }, after: { token_ttl: 120 }, fieldChanges: [{ field: 'token_ttl', from: 60, to: 120, forcesReplacement: false }],
        }),
      ],
    });
    const text = single(renderMarkdown([stackReport(plan)]));
    expect(text.split('\n')[0]).toBe('📝 **Changes** for stack `prod`: 0 to add, 1 to change, 0 to destroy, 0 drifted');
    expect(text).toContain('| `prod/users/new` | `userpass_user` | 🚚 move |');
    expect(text).toContain('| `prod/users/b2` | `userpass_user` | 🔄 update in-place (moved) |');
    expect(text).toContain('# prod/users/old has moved to prod/users/new');
    expect(text).toContain('<code>prod/users/b2</code> (userpass_user) will be updated in-place (moved from prod/users/b)');
  });
});

describe('the dependency picture', () => {
  it('is a collapsed mermaid flowchart of the changes joined by edges, coloured by action', () => {
    const plan = emptyPlan({
      changes: [
        change({ address: 'prod/ldap', type: 'ldap_secret_backend', action: 'update', dependsOn: ['prod/ldap/mount'] }),
        change({ address: 'prod/ldap/mount', type: 'secrets_mount', action: 'no-op' }),
        change({ address: 'prod/role', type: 'ldap_static_role', action: 'create', dependsOn: ['prod/ldap', 'prod/ldap/mount'] }),
        change({ address: 'prod/users/alone', type: 'userpass_user', action: 'create' }),
      ],
    });
    const text = single(renderMarkdown([stackReport(plan)]));
    expect(text).toContain([
      '<details><summary>Dependency order (2 of 3 changes)</summary>',
      '',
      '```mermaid',
      'flowchart LR',
      '  n0["prod/ldap<br/>ldap_secret_backend (update)"]',
      '  n1["prod/role<br/>ldap_static_role (create)"]',
      '  n0 --> n1',
      '  classDef action_create fill:#dafbe1,stroke:#1a7f37,color:#1f2328',
      '  classDef action_update fill:#fff8c5,stroke:#9a6700,color:#1f2328',
      '  class n0 action_update',
      '  class n1 action_create',
      '```',
      '',
      '</details>',
    ].join('\n'));
    expectBalanced(text);
  });

  it('is left out when no change depends on another, when nothing changes and when there are too many changes to draw', () => {
    const unrelated = emptyPlan({
      changes: [
        change({ address: 'prod/a', action: 'create', dependsOn: ['prod/unchanged'] }),
        change({ address: 'prod/b', action: 'delete' }),
        change({ address: 'prod/unchanged', action: 'no-op' }),
      ],
    });
    expect(single(renderMarkdown([stackReport(unrelated)]))).not.toContain('mermaid');
    expect(single(renderMarkdown([stackReport(emptyPlan())]))).not.toContain('mermaid');
    expect(renderMarkdown([stackReport(largePlan(2000))]).join('\n')).not.toContain('mermaid');
  });
});
