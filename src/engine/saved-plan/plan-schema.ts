/**
 * The schema of a plan as the saved-plan reader accepts it. It is built from the same lists as the plan's
 * types (PLAN_ACTIONS, SECRET_STATUSES, DRIFT_KINDS in plan/plan.ts), and the compile-time checks at the end
 * fail the build when the schema and the `Plan` type disagree in either direction: a status, reason or field
 * the engine can write is always one the reader accepts (a plan made after `rotate-root` once could not be
 * read back because the reader kept its own list).
 */
import { z } from 'zod';
import { POLICY_STATUSES, type PolicyEvaluation } from '../../policy/evaluation';
import { POLICY_ENFORCEMENTS } from '../../policy/policy';
import { DRIFT_KINDS, PLAN_ACTIONS, SECRET_STATUSES, type ActionReason, type DriftEntry, type Plan, type PlannedChange, type SecretFieldStatus } from '../plan/plan';

const attributes = z.record(z.string(), z.unknown()).readonly();
const strings = z.array(z.string()).readonly();

const secretFieldStatusSchema = z
  .object({ field: z.string(), status: z.enum(SECRET_STATUSES), rotatedAt: z.string().optional() })
  .readonly();

export const actionReasonSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('deleted_outside') }).readonly(),
  z.object({ kind: z.literal('identity_changed'), from: z.string(), to: z.string() }).readonly(),
  z.object({ kind: z.literal('immutable_fields'), fields: strings }).readonly(),
  z.object({ kind: z.literal('container_replaced'), replaced: strings }).readonly(),
  z.object({ kind: z.literal('changed_outside') }).readonly(),
  z.object({ kind: z.literal('secret_differs'), fields: strings }).readonly(),
  z.object({ kind: z.literal('unhealthy'), label: z.string(), status: z.string() }).readonly(),
  z.object({ kind: z.literal('root_credential_changed'), fields: strings }).readonly(),
  z.object({ kind: z.literal('adopt') }).readonly(),
  z.object({ kind: z.literal('forget_deleted') }).readonly(),
]);

/** Every reason kind the schema (and so the `ActionReason` type) has. */
export const ACTION_REASON_KINDS = actionReasonSchema.options.map((option) => option.def.innerType.shape.kind.value);

const fieldChangeSchema = z.object({ field: z.string(), from: z.unknown(), to: z.unknown(), forcesReplacement: z.boolean() });
const fieldDriftSchema = z.object({ field: z.string(), applied: z.unknown(), live: z.unknown() });

const consequenceSchema = z
  .object({ what: z.string(), count: z.number().int().nonnegative(), atLeast: z.boolean().optional(), detail: z.string() })
  .readonly();

const plannedChangeSchema = z
  .object({
    address: z.string(),
    type: z.string(),
    id: z.string(),
    action: z.enum(PLAN_ACTIONS),
    previousAddress: z.string().optional(),
    reasons: z.array(actionReasonSchema).readonly(),
    before: attributes.nullable(),
    after: attributes.nullable(),
    sensitive: strings,
    replacePaths: z.array(strings).readonly(),
    fieldChanges: z.array(fieldChangeSchema).readonly(),
    secrets: z.array(secretFieldStatusSchema).readonly(),
    dependsOn: strings.optional(),
    consequences: z.array(consequenceSchema).readonly().optional(),
  })
  .readonly();

const driftEntrySchema = z
  .object({
    address: z.string(),
    type: z.string(),
    id: z.string(),
    kind: z.enum(DRIFT_KINDS),
    before: attributes.nullable(),
    after: attributes.nullable(),
    fields: z.array(fieldDriftSchema).readonly(),
    detail: z.string().optional(),
    health: z.object({ headline: z.string(), label: z.string() }).readonly().optional(),
  })
  .readonly();

const policyEvaluationSchema = z
  .object({
    packs: strings,
    rules: z.array(z.object({ id: z.string(), description: z.string(), enforcement: z.enum(POLICY_ENFORCEMENTS), pack: z.string() }).readonly()).readonly(),
    results: z.array(z.object({
      policy: z.string(),
      enforcement: z.enum(POLICY_ENFORCEMENTS),
      address: z.string(),
      status: z.enum(POLICY_STATUSES),
      message: z.string(),
      fields: strings,
      waiverReason: z.string().optional(),
    }).readonly()).readonly(),
  })
  .readonly();

export const planSchema = z
  .object({
    stack: z.string(),
    refreshOnly: z.boolean(),
    changes: z.array(plannedChangeSchema).readonly(),
    drift: z.array(driftEntrySchema).readonly(),
    warnings: strings,
    policy: policyEvaluationSchema.optional(),
  })
  .readonly();

// ---- the schema and the plan's types are one: each assignable to the other, or the build fails ----

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Holds<T extends true> = T;
export type PlanSchemaChecks = [
  Holds<Same<z.infer<typeof secretFieldStatusSchema>, SecretFieldStatus>>,
  Holds<Same<z.infer<typeof actionReasonSchema>, ActionReason>>,
  Holds<Same<z.infer<typeof plannedChangeSchema>, PlannedChange>>,
  Holds<Same<z.infer<typeof driftEntrySchema>, DriftEntry>>,
  Holds<Same<z.infer<typeof policyEvaluationSchema>, PolicyEvaluation>>,
  Holds<Same<z.infer<typeof planSchema>, Plan>>,
];
