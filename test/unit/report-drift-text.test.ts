/**
 * The drift check as text (`secretform drift`), as a nightly job's log shows it: the status, the totals, each
 * drifted object with since when, and lines that fit 80 columns where the addresses allow.
 */
import { renderDriftText } from '../../src/report/drift/text';
import type { StackDriftOutcome } from '../../src/report/drift/drift-view';
import { ldapDynamicRoleDeleted, userpassUserDrift } from './report-plan-fixture';

const AT = '2026-11-29T08:17:36.429Z';

const outcome: StackDriftOutcome = {
  stack: 'prod',
  check: {
    stack: 'prod',
    checkedAt: AT,
    drifted: [
      { entry: userpassUserDrift(), status: 'new', since: AT, checks: 1, episodes: 1, acknowledgement: null },
      { entry: ldapDynamicRoleDeleted(), status: 'known', since: '2026-11-27T02:00:00.000Z', checks: 3, episodes: 2, acknowledgement: null },
    ],
    pending: [],
    resolved: [],
    checks: [],
    recorded: true,
    historyLocation: 'file .secretform/prod.drift.json',
    warnings: [],
  },
};

test('the status line, the totals under it, and each object with since when on a line of its own', () => {
  expect(renderDriftText([outcome], AT)).toBe([
    `Drift check at ${AT}: new drift`,
    '2 drifted (1 new, 0 changed, 1 known, 0 acknowledged), 0 resolved, 0 pending',
    '',
    '== stack prod: new drift',
    '  new          prod/users/carol (userpass_user) changed',
    `               since ${AT} (1 check, episode 1)`,
    '      ~ token_ttl = 3600 -> 7200',
    '  known        prod/ldap/dyn (ldap_dynamic_role) deleted outside secretform',
    '               since 2026-11-27T02:00:00.000Z (3 checks, episode 2)',
    '',
  ].join('\n'));
});

test('every line fits 80 columns', () => {
  for (const line of renderDriftText([outcome], AT).split('\n')) expect({ line, fits: line.length <= 80 }).toEqual({ line, fits: true });
});
