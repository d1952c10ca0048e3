import { renderText, shouldUseColor, stackReport } from '../../src/report';
import {
  change,
  emptyPlan,
  fullPlan,
  ldapConfigUpdate,
  ldapStaticRoleCreate,
  userpassUserDrift,
} from './report-plan-fixture';

const ESC = '\u001b[';

function lines(text: string): string[] {
  return text.split('\n');
}

describe('renderText', () => {
  it('prints drift first, then every action like terraform, secrets it cannot verify, and the summary', () => {
    expect(renderText([stackReport(fullPlan())], { color: false })).toBe(
      [
        'Note: Objects have changed outside of secretform',
        '',
        // The report's own sentences fit an 80-column terminal, cut between words as terraform cuts its own.
        'secretform detected the following changes made outside of secretform since the',
        'last apply:',
        '',
        '  # prod/users/carol has changed',
        '  ~ userpass_user "auth/userpass/users/carol" {',
        '      ~ token_ttl = 3600 -> 7200',
        '    }',
        '',
        '  # prod/ldap/dyn has been deleted',
        '  - ldap_dynamic_role "ldap/role/dyn" {',
        '      - default_ttl = 3600',
        '      - max_ttl = 86400',
        '      - username_template = "v_{{.RoleName}}_{{random 8}}"',
        '    }',
        '',
        '  # prod/sync/db-assoc is out of sync on the service (status: PENDING)',
        '',
        'secretform compared stack "prod" with the service. Resource actions are',
        'indicated with the following symbols:',
        '  + create',
        '  ~ update in-place',
        '  - destroy',
        '-/+ destroy and then create replacement',
        '',
        'secretform will perform the following actions:',
        '',
        '  # prod/ldap/backend will be updated in-place',
        '  ~ ldap_secret_backend "ldap/config" {',
        '      ~ url = "ldaps://old.example.org" -> "ldaps://ldap.example.org"',
        '        # (3 unchanged attributes hidden)',
        '    }',
        '',
        '  # prod/ldap/old-set will be destroyed',
        '  - ldap_library_set "ldap/library/old-set" {',
        '      - disable_check_in_enforcement = false',
        '      - max_ttl = 86400',
        '      - service_account_names = ["svc-a","svc-b"]',
        '      - ttl = 3600',
        '    }',
        '',
        '  # prod/ldap/app-role will be replaced (username cannot change on an existing object)',
        '-/+ ldap_static_role "ldap/static-role/app" {',
        '      ~ username = "app" -> "app2" # forces replacement',
        '        # (2 unchanged attributes hidden)',
        '    }',
        '',
        '  # prod/ldap/svc-role will be created',
        '  + ldap_static_role "ldap/static-role/svc" {',
        '      + dn = "cn=svc,ou=users,dc=example,dc=org"',
        '      + rotation_period = 3600',
        '      + username = "svc"',
        '    }',
        '',
        '  # prod/sync/cloud1 will be created',
        '  + sync_destination_cloud1_sm "sys/sync/destinations/cloud1-sm/prod-sm" {',
        '      + custom_tags = {"team":"payments"}',
        '      + granularity = "secret-path"',
        '      + name = "prod-sm"',
        '      + region = "us-east-1"',
        '      + role_arn = "arn:cloud1:iam::123456789012:role/sync"',
        '      + secret_access_key = (sensitive value)',
        '    }',
        '',
        '  # prod/users/alice will be created',
        '  + userpass_user "auth/userpass/users/alice" {',
        '      + password = (sensitive value)',
        '      + token_policies = ["default","dev"]',
        '      + token_ttl = 3600',
        '    }',
        '',
        'Secrets unchanged since the last apply that the service does not return for',
        'comparison:',
        '  prod/cloud/backend: client_secret (not verifiable on the service)',
        '  prod/ldap/backend: bindpass (not verifiable on the service)',
        '',
        'Plan: 4 to add, 1 to change, 2 to destroy. 3 drifted.',
        '',
      ].join('\n'),
    );
  });

  it('shows no block for no-op resources and never shows an unverifiable secret as a change', () => {
    const text = renderText([stackReport(fullPlan())], { color: false });

    expect(text).not.toContain('prod/github/ci-app');
    expect(text).not.toContain('sync_github_app');
    expect(text).not.toMatch(/bindpass =|client_secret =/);
  });

  it('says there are no changes when nothing changes and nothing drifted', () => {
    const plan = emptyPlan({
      changes: [change({ address: 'prod/ldap/svc-role', action: 'no-op', before: { username: 'svc' }, after: { username: 'svc' } })],
    });

    expect(renderText([stackReport(plan)], { color: false })).toBe('No changes. Your configuration matches the service.\n');
  });

  it('lists only the legend symbols the plan uses and counts drift even when nothing is to be changed', () => {
    const onlyUpdate = renderText([stackReport(emptyPlan({ changes: [ldapConfigUpdate()] }))], { color: false });
    expect(onlyUpdate).toContain('  ~ update in-place\n');
    expect(onlyUpdate).not.toMatch(/^ {2}\+ create$|^-\/\+ destroy/m);
    expect(onlyUpdate).toContain('Plan: 0 to add, 1 to change, 0 to destroy. 0 drifted.');

    const onlyDrift = renderText([stackReport(emptyPlan({ drift: [userpassUserDrift()] }))], { color: false });
    expect(onlyDrift).toContain('  # prod/users/carol has changed');
    expect(onlyDrift).not.toContain('will perform the following actions');
    expect(onlyDrift).toContain('Plan: 0 to add, 0 to change, 0 to destroy. 1 drifted.');
  });

  it('shows only drift for a refresh-only plan', () => {
    const text = renderText([stackReport(fullPlan({ refreshOnly: true }))], { color: false });

    expect(text).toContain('  # prod/users/carol has changed');
    expect(text).toContain('  # prod/ldap/dyn has been deleted');
    expect(text).toContain('  # prod/sync/db-assoc is out of sync on the service (status: PENDING)');
    expect(text).not.toMatch(/will be (created|updated|destroyed|replaced)/);
    expect(text).not.toContain('not verifiable');
    expect(text).not.toContain('Plan:');
    expect(lines(text).slice(-2)).toEqual(['Refresh-only plan: 3 drifted.', '']);

    expect(renderText([stackReport(emptyPlan({ refreshOnly: true }))], { color: false })).toBe(
      'No changes. No objects have changed outside of secretform.\n',
    );
  });

  it('marks a secret written again because it differs on the service', () => {
    const plan = emptyPlan({
      changes: [
        change({
          address: 'prod/github/ci-app',
          type: 'sync_github_app',
          id: 'sys/sync/github-apps/ci',
          action: 'update',
          before: { name: 'ci', app_id: 123456 },
          after: { name: 'ci', app_id: 123456 },
          sensitive: ['private_key'],
          secrets: [{ field: 'private_key', status: 'drifted' }],
        }),
      ],
    });

    expect(renderText([stackReport(plan)], { color: false })).toContain(
      '      ~ private_key = (sensitive value) # differs on the service\n        # (2 unchanged attributes hidden)\n',
    );
  });

  it('prints the plan warnings after the summary', () => {
    const text = renderText([stackReport(emptyPlan({ changes: [ldapStaticRoleCreate()], warnings: ['fingerprint made with another state key'] }))], {
      color: false,
    });

    expect(lines(text).slice(-3)).toEqual(['', 'Warning: fingerprint made with another state key', '']);
  });

  it('uses colour codes only when asked: green +, yellow ~, red -, red forces replacement', () => {
    const coloured = renderText([stackReport(fullPlan())], { color: true });
    const plain = renderText([stackReport(fullPlan())], { color: false });

    expect(plain).not.toContain(ESC);
    expect(coloured).toContain(`${ESC}32m+${ESC}39m username = "svc"`);
    expect(coloured).toContain(`${ESC}33m~${ESC}39m url = `);
    expect(coloured).toContain(`${ESC}31m-${ESC}39m ttl = 3600`);
    expect(coloured).toContain(`${ESC}31m# forces replacement${ESC}39m`);
    expect(coloured).toContain(`${ESC}1m  # prod/ldap/svc-role will be created${ESC}22m`);
    // eslint-disable-next-line no-control-regex -- strips ANSI colour sequences, which start with ESC
    expect(coloured.replace(/\u001b\[\d+m/g, '')).toBe(plain);
  });

  it('shows long values whole, never cut with ...', () => {
    const longLdif = `dn: cn={{.Username}},ou=users,dc=example,dc=org\n${'objectClass: person\n'.repeat(40)}`;
    const names = Array.from({ length: 100 }, (_, i) => `svc-account-${i}`);
    const plan = emptyPlan({
      changes: [
        change({
          address: 'prod/ldap/dynamic',
          type: 'ldap_dynamic_role',
          id: 'ldap/role/dynamic',
          action: 'update',
          before: { creation_ldif: longLdif },
          after: { creation_ldif: `${longLdif}userPassword: {{.Password}}\n` },
          fieldChanges: [
            { field: 'creation_ldif', from: longLdif, to: `${longLdif}userPassword: {{.Password}}\n`, forcesReplacement: false },
          ],
        }),
        change({ address: 'prod/ldap/library', type: 'ldap_library_set', id: 'ldap/library/big', action: 'create', after: { service_account_names: names } }),
        change({ address: 'prod/ldap/dyn', action: 'create', after: { deletion_ldif: 'a\n'.repeat(300) } }),
      ],
    });
    const text = renderText([stackReport(plan)], { color: false });
    const ldifLine = lines(text).find((line) => line.includes('creation_ldif'))!;
    const namesLine = lines(text).find((line) => line.includes('service_account_names'))!;
    const deletionLine = lines(text).find((line) => line.includes('deletion_ldif'))!;

    expect(ldifLine).toBe(`      ~ creation_ldif = ${JSON.stringify(longLdif)} -> ${JSON.stringify(`${longLdif}userPassword: {{.Password}}\n`)}`);
    expect(namesLine).toBe(`      + service_account_names = ${JSON.stringify(names)}`);
    expect(deletionLine).toBe(`      + deletion_ldif = ${JSON.stringify('a\n'.repeat(300))}`);
    expect(text).not.toContain('...');
  });

  it('never prints a secret value, even if one slipped into before or after', () => {
    const plan = emptyPlan({
      changes: [
        change({
          address: 'prod/users/alice',
          type: 'userpass_user',
          id: 'auth/userpass/users/alice',
          action: 'create',
          after: { token_ttl: 3600, password: 'hunter2-secret' },
          sensitive: ['password'],
          secrets: [{ field: 'password', status: 'changed' }],
        }),
      ],
    });
    const text = renderText([stackReport(plan)], { color: false });

    expect(text).not.toContain('hunter2-secret');
    expect(text).toContain('      + password = (sensitive value)\n');
  });
});

describe('shouldUseColor', () => {
  const tty = { isTTY: true };
  const pipe = { isTTY: false };

  it('colours a terminal when NO_COLOR is unset or empty', () => {
    expect(shouldUseColor(tty, {})).toBe(true);
    expect(shouldUseColor(tty, { NO_COLOR: '' })).toBe(true);
  });

  it('does not colour when NO_COLOR is set to anything, or when the stream is not a terminal', () => {
    expect(shouldUseColor(tty, { NO_COLOR: '1' })).toBe(false);
    expect(shouldUseColor(tty, { NO_COLOR: '0' })).toBe(false);
    expect(shouldUseColor(pipe, {})).toBe(false);
    expect(shouldUseColor({}, {})).toBe(false);
  });

  it('lets FORCE_COLOR force colour on, through a pipe and over NO_COLOR, unless it is 0 or false', () => {
    expect(shouldUseColor(pipe, { FORCE_COLOR: '1' })).toBe(true);
    expect(shouldUseColor(pipe, { FORCE_COLOR: 'true', NO_COLOR: '1' })).toBe(true);
    expect(shouldUseColor(tty, { FORCE_COLOR: '0' })).toBe(false);
    expect(shouldUseColor(tty, { FORCE_COLOR: 'false' })).toBe(false);
    expect(shouldUseColor(pipe, { FORCE_COLOR: '' })).toBe(false);
  });

  it('says "# OLD has moved to NEW" for a moved object, counts it as a change, and notes "moved from" on a moved update', () => {
    const plan = emptyPlan({
      changes: [
        change({ address: 'prod/users/new', previousAddress: 'prod/users/old', type: 'userpass_user', id: 'auth/userpass/users/a', action: 'no-op', before: { token_ttl: 3600, token_max_ttl: 0 }, after: { token_ttl: 3600, token_max_ttl: 0 } }),
        change({
          address: 'prod/users/b2', previousAddress: 'prod/users/b', type: 'userpass_user', id: 'auth/userpass/users/b', action: 'update',
          before: { token_ttl: 60 }, after: { token_ttl: 120 }, fieldChanges: [{ field: 'token_ttl', from: 60, to: 120, forcesReplacement: false }],
        }),
      ],
    });
    const text = renderText([stackReport(plan)], { color: false });
    expect(text).toContain('  # prod/users/old has moved to prod/users/new\n    userpass_user "auth/userpass/users/a" {\n        # (2 unchanged attributes hidden)\n    }\n');
    expect(text).toContain('  # prod/users/b2 will be updated in-place\n  # (moved from prod/users/b)\n  ~ userpass_user "auth/userpass/users/b" {\n      ~ token_ttl = 60 -> 120\n');
    expect(text).toContain('Plan: 0 to add, 1 to change, 0 to destroy.');
    expect(text).not.toContain('No changes.');
  });
});

