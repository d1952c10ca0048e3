/**
 * The pull-request comment's scenarios, as a reviewer meets them: the same plans feed the markdown snapshot test
 * (test/unit/report-markdown-scenarios.test.ts) and the browser test that renders them as GitHub would
 * (test/e2e/comment-browser.test.ts). Each comes with the CI context of a GitHub Actions run at a fixed time.
 */
import type { Plan } from '../../src/engine/plan/plan';
import type { PolicyEvaluation } from '../../src/policy';
import { EngineError } from '../../src/engine/errors';
import { renderMarkdown, stackReport, type MarkdownOptions, type StackReport } from '../../src/report';
import {
  associationOutOfSync,
  change,
  cloud1DestinationCreate,
  emptyPlan,
  ldapConfigUpdate,
  ldapDynamicRoleDeleted,
  ldapLibrarySetDelete,
  ldapStaticRoleCreate,
  ldapStaticRoleReplace,
  userpassUserCreate,
  userpassUserDrift,
} from '../unit/report-plan-fixture';

export interface CommentScenario {
  /** A file name: the screenshot is test-artifacts/comment/<name>.png. */
  readonly name: string;
  /** One stack's plan, or the stacks of a run over several. */
  readonly plan?: Plan;
  readonly stacks?: readonly StackReport[];
  /** The outcome word the status line must show. */
  readonly status: string;
  /** The alert blocks it must hold, in order. */
  readonly alerts: readonly ('CAUTION' | 'WARNING' | 'NOTE')[];
  /** Whether it has a dependency picture. */
  readonly mermaid: boolean;
}

export const SCENARIO_OPTIONS: MarkdownOptions = {
  context: {
    commit: '3f9c2d1e8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e',
    links: [{ text: 'run 4242', url: 'https://github.com/acme/infra/actions/runs/4242' }],
    time: new Date('2026-11-25T20:55:00Z'),
    applyCommand: 'secretform apply plan.out',
  },
};

/** A sync destination whose tags are too long for one line: pretty-printed in the diff. */
function destinationWithManyTags() {
  const base = cloud1DestinationCreate();
  const tags = Object.fromEntries(['payments', 'billing', 'ledger', 'invoicing', 'reporting'].map((team, i) => [`team_${i}`, `${team}-platform-owners`]));
  return { ...base, after: { ...base.after, custom_tags: tags }, dependsOn: ['prod/users/alice'] };
}

/**
 * What the policy stage hands the reports for a plan of two users against two of the `recommended` rules and
 * a team's own mandatory one: a mandatory failure, an advisory failure, a waiver with its reason, passes.
 */
function policyEvaluation(): PolicyEvaluation {
  return {
    packs: ['recommended', './policies/team.ts'],
    rules: [
      { id: 'userpass-token-ttl', description: 'Login tokens live at most a day.', enforcement: 'mandatory', pack: 'recommended' },
      { id: 'userpass-token-bound-cidrs', description: 'Login tokens are bound to known networks.', enforcement: 'advisory', pack: 'recommended' },
      { id: 'team-no-admin-policy', description: 'No login gets the admin policy.', enforcement: 'mandatory', pack: './policies/team.ts' },
    ],
    results: [
      { policy: 'team-no-admin-policy', enforcement: 'mandatory', address: 'prod/users/alice', status: 'passed', message: '', fields: [] },
      { policy: 'userpass-token-bound-cidrs', enforcement: 'advisory', address: 'prod/users/alice', status: 'failed', message: 'token_bound_cidrs is empty: tokens work from any network', fields: ['token_bound_cidrs'] },
      { policy: 'userpass-token-ttl', enforcement: 'mandatory', address: 'prod/users/alice', status: 'failed', message: 'token_ttl is 172800 s (48h); at most 86400 s (24h)', fields: ['token_ttl'] },
      { policy: 'team-no-admin-policy', enforcement: 'mandatory', address: 'prod/users/ci-bot', status: 'passed', message: '', fields: [] },
      { policy: 'userpass-token-bound-cidrs', enforcement: 'advisory', address: 'prod/users/ci-bot', status: 'waived', message: 'token_bound_cidrs is empty: tokens work from any network', fields: ['token_bound_cidrs'], waiverReason: 'CI runners have no fixed addresses' },
      { policy: 'userpass-token-ttl', enforcement: 'mandatory', address: 'prod/users/ci-bot', status: 'passed', message: '', fields: [] },
    ],
  };
}

export const COMMENT_SCENARIOS: readonly CommentScenario[] = [
  {
    name: 'no-changes',
    plan: emptyPlan({ changes: [change({ address: 'prod/ldap/svc-role', action: 'no-op', before: {}, after: {} })] }),
    status: 'No changes',
    alerts: [],
    mermaid: false,
  },
  {
    name: 'changes-only',
    plan: emptyPlan({
      changes: [
        ldapConfigUpdate(),
        { ...ldapStaticRoleCreate(), dependsOn: ['prod/ldap/backend'] },
        userpassUserCreate(),
        destinationWithManyTags(),
      ],
    }),
    status: 'Changes',
    alerts: [],
    mermaid: true,
  },
  {
    name: 'destroys',
    plan: emptyPlan({
      changes: [ldapLibrarySetDelete(), { ...ldapStaticRoleReplace(), dependsOn: ['prod/ldap/old-set'] }, ldapStaticRoleCreate()],
    }),
    status: 'Destroys',
    alerts: ['CAUTION'],
    mermaid: true,
  },
  {
    name: 'drift-only',
    plan: emptyPlan({
      changes: [
        change({
          address: 'prod/users/carol', type: 'userpass_user', id: 'auth/userpass/users/carol', action: 'update', reasons: [{ kind: 'changed_outside' }],
          before: { token_ttl: 7200 }, after: { token_ttl: 3600 }, fieldChanges: [{ field: 'token_ttl', from: 7200, to: 3600, forcesReplacement: false }],
        }),
      ],
      drift: [userpassUserDrift(), associationOutOfSync()],
    }),
    status: 'Drift',
    alerts: ['WARNING'],
    mermaid: false,
  },
  {
    name: 'drift-with-deletions',
    plan: emptyPlan({
      changes: [
        change({
          address: 'prod/ldap/dyn', type: 'ldap_dynamic_role', id: 'ldap/role/dyn', action: 'create', reasons: [{ kind: 'deleted_outside' }],
          after: { default_ttl: 3600, max_ttl: 86400, username_template: 'v_{{.RoleName}}_{{random 8}}' },
        }),
      ],
      drift: [ldapDynamicRoleDeleted(), userpassUserDrift()],
      warnings: ['the state file was written by a newer secretform'],
    }),
    status: 'Drift',
    alerts: ['CAUTION', 'WARNING', 'NOTE'],
    mermaid: false,
  },
  {
    name: 'policy-failure',
    plan: {
      ...emptyPlan({
        changes: [
          { ...userpassUserCreate(), after: { token_policies: ['default', 'dev'], token_ttl: 172800 } },
          change({ address: 'prod/users/ci-bot', type: 'userpass_user', id: 'auth/userpass/users/ci-bot', action: 'no-op', before: { token_ttl: 3600 }, after: { token_ttl: 3600 } }),
        ],
      }),
      policy: policyEvaluation(),
    },
    status: 'Policy failed',
    alerts: [],
    mermaid: false,
  },
  {
    name: 'error-in-one-stack',
    stacks: [
      { stack: 'base', status: 'done', value: emptyPlan({ stack: 'base', changes: [ldapConfigUpdate()] }) },
      {
        stack: 'prod',
        status: 'failed',
        error: new EngineError('service_error', 'cannot reach the service at https://vault.prod.example:8200 (connect ECONNREFUSED): check SERVICE_ADDR_PROD'),
      },
      { stack: 'staging', status: 'done', value: emptyPlan({ stack: 'staging', changes: [ldapLibrarySetDelete()] }) },
    ],
    status: 'Error',
    alerts: ['CAUTION', 'CAUTION'],
    mermaid: false,
  },
  {
    // What a reviewer must see above the fold over several environments: which stack loses which object.
    name: 'destroys-over-stacks',
    stacks: [
      { stack: 'base', status: 'done', value: emptyPlan({ stack: 'base', changes: [{ ...ldapConfigUpdate(), address: 'base/ldap/backend' }] }) },
      {
        stack: 'prod',
        status: 'done',
        value: emptyPlan({
          stack: 'prod',
          changes: [
            {
              ...ldapLibrarySetDelete(),
              consequences: [{ what: 'check-outs', one: 'check-out', count: 2, detail: 'the accounts checked out of the set are checked in' }],
            },
            ldapStaticRoleReplace(),
          ],
        }),
      },
      { stack: 'staging', status: 'done', value: emptyPlan({ stack: 'staging', changes: [{ ...ldapLibrarySetDelete(), address: 'staging/ldap/old-set' }] }) },
    ],
    status: 'Destroys',
    alerts: ['CAUTION'],
    mermaid: false,
  },
];

/** The scenario's comment (one part), with the CI context. */
export function scenarioComment(scenario: CommentScenario): string[] {
  if (scenario.stacks === undefined) return renderMarkdown([stackReport(scenario.plan!)], SCENARIO_OPTIONS);
  // A plan over several stacks with a failed stack is not saved: no "applies on merge" (as the CLI does).
  return renderMarkdown(scenario.stacks, { context: { ...SCENARIO_OPTIONS.context, applyCommand: undefined } });
}
