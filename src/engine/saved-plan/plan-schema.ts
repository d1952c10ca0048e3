/**
 * The schema of a plan as the saved-plan reader accepts it. It is built from the same lists as the plan's
 * types (PLAN_ACTIONS, SECRET_STATUSES, DRIFT_KINDS in plan/plan.ts), and the compile-time checks at the end
 * fail the build when the schema and the `Plan` type disagree in either direction: a status, reason or field
 * the engine can write is always one the reader accepts (a plan made after `rotate-root` once could not be
 * read back because the reader kept its own list).
 */
import { POLICY_STATUSES, type PolicyEvaluation } from '../../policy/evaluation';
import { POLICY_ENFORCEMENTS } from '../../policy/policy';
import { lazy, type Infer } from '../../lazy-zod';
import { DRIFT_KINDS, PLAN_ACTIONS, SECRET_STATUSES, type ActionReason, type DriftEntry, type Plan, type PlannedChange, type SecretFieldStatus } from '../plan/plan';

// Each schema is built on its first call (lazy-zod.ts): reading a command's arguments never loads zod.
const attributes = lazy((z) => z.record(z.string(), z.unknown()).readonly());
const strings = lazy((z) => z.array(z.string()).readonly());

const secretFieldStatusSchema = lazy((z) => z
  .object({ field: z.string(), status: z.enum(SECRET_STATUSES), rotatedAt: z.string().optional() })
  .readonly());

export const actionReasonSchema = lazy((z) => z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('deleted_outside') }).readonly(),
  z.object({ kind: z.literal('identity_changed'), from: z.string(), to: z.string() }).readonly(),
  z.object({ kind: z.literal('immutable_fields'), fields: strings() }).readonly(),
  z.object({ kind: z.literal('container_replaced'), replaced: strings() }).readonly(),
  z.object({ kind: z.literal('changed_outside') }).readonly(),
  z.object({ kind: z.literal('secret_differs'), fields: strings() }).readonly(),
  z.object({ kind: z.literal('unhealthy'), label: z.string(), status: z.string() }).readonly(),
  z.object({ kind: z.literal('root_credential_changed'), fields: strings() }).readonly(),
  z.object({ kind: z.literal('adopt') }).readonly(),
  z.object({ kind: z.literal('forget_deleted') }).readonly(),
]));

/**
 * Every reason kind the schema (and so the `ActionReason` type) has, in its order: written out so that it
 * does not build the schema; the check at the end and a unit test fail when the two disagree.
 */
export const ACTION_REASON_KINDS = [
  'deleted_outside', 'identity_changed', 'immutable_fields', 'container_replaced', 'changed_outside', 'secret_differs', 'unhealthy',
  'root_credential_changed', 'adopt', 'forget_deleted',
] as const satisfies readonly ActionReason['kind'][];

const fieldChangeSchema = lazy((z) => z.object({ field: z.string(), from: z.unknown(), to: z.unknown(), forcesReplacement: z.boolean() }));
const fieldDriftSchema = lazy((z) => z.object({ field: z.string(), applied: z.unknown(), live: z.unknown() }));

const consequenceSchema = lazy((z) => z.union([
  z.object({ what: z.string(), one: z.string().optional(), count: z.number().int().nonnegative(), atLeast: z.boolean().optional(), detail: z.string() }).readonly(),
  z.object({ what: z.string(), uncounted: z.string(), detail: z.string() }).readonly(),
]));

const plannedChangeSchema = lazy((z) => z
  .object({
    address: z.string(),
    type: z.string(),
    id: z.string(),
    action: z.enum(PLAN_ACTIONS),
    previousAddress: z.string().optional(),
    reasons: z.array(actionReasonSchema()).readonly(),
    before: attributes().nullable(),
    after: attributes().nullable(),
    sensitive: strings(),
    replacePaths: z.array(strings()).readonly(),
    fieldChanges: z.array(fieldChangeSchema()).readonly(),
    secrets: z.array(secretFieldStatusSchema()).readonly(),
    dependsOn: strings().optional(),
    consequences: z.array(consequenceSchema()).readonly().optional(),
    source: z.object({ file: z.string().min(1), line: z.number().int().positive(), column: z.number().int().positive() }).readonly().optional(),
  })
  .readonly());

const driftEntrySchema = lazy((z) => z
  .object({
    address: z.string(),
    type: z.string(),
    id: z.string(),
    kind: z.enum(DRIFT_KINDS),
    before: attributes().nullable(),
    after: attributes().nullable(),
    fields: z.array(fieldDriftSchema()).readonly(),
    detail: z.string().optional(),
    health: z.object({ headline: z.string(), label: z.string() }).readonly().optional(),
  })
  .readonly());

const policyEvaluationSchema = lazy((z) => z
  .object({
    packs: strings(),
    rules: z.array(z.object({ id: z.string(), description: z.string(), enforcement: z.enum(POLICY_ENFORCEMENTS), pack: z.string() }).readonly()).readonly(),
    results: z.array(z.object({
      policy: z.string(),
      enforcement: z.enum(POLICY_ENFORCEMENTS),
      address: z.string(),
      status: z.enum(POLICY_STATUSES),
      message: z.string(),
      fields: strings(),
      waiverReason: z.string().optional(),
    }).readonly()).readonly(),
  })
  .readonly());

export const planSchema = lazy((z) => z
  .object({
    stack: z.string(),
    refreshOnly: z.boolean(),
    changes: z.array(plannedChangeSchema()).readonly(),
    drift: z.array(driftEntrySchema()).readonly(),
    warnings: strings(),
    policy: policyEvaluationSchema().optional(),
  })
  .readonly());

// ---- the schema and the plan's types are one: each assignable to the other, or the build fails ----

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Holds<T extends true> = T;
export type PlanSchemaChecks = [
  Holds<Same<Infer<typeof secretFieldStatusSchema>, SecretFieldStatus>>,
  Holds<Same<Infer<typeof actionReasonSchema>, ActionReason>>,
  Holds<Same<Infer<typeof plannedChangeSchema>, PlannedChange>>,
  Holds<Same<Infer<typeof driftEntrySchema>, DriftEntry>>,
  Holds<Same<Infer<typeof policyEvaluationSchema>, PolicyEvaluation>>,
  Holds<Same<Infer<typeof planSchema>, Plan>>,
  Holds<Same<(typeof ACTION_REASON_KINDS)[number], ActionReason['kind']>>,
];
