/**
 * Props every secretform construct takes besides its service fields, declared once: the generated field props
 * of each construct extend ResourceOptions, the props schema adds its shape, and the construct base carries
 * the values into the synthesized spec.
 */
import { z } from 'zod';
import { POLICY_ID_PATTERN } from '../policy/policy';

export interface ResourceOptions {
  /**
   * Policies this construct is exempt from, by policy id, each with the reason: a waived violation is reported
   * as `waived` with that reason, and never fails a plan (`{ 'userpass-token-bound-cidrs': 'CI runners have no
   * fixed addresses' }`).
   * @default - none
   */
  readonly policyWaivers?: Readonly<Record<string, string>>;
}

const policyWaiversSchema = z.record(
  z.string().regex(POLICY_ID_PATTERN, 'a policy id (letters, digits, "-", "_", ".", "/")'),
  z.string().trim().min(1, 'a reason: say why the policy does not apply here'),
);

/** The zod shape of ResourceOptions, added to every construct's props schema. */
export const RESOURCE_OPTIONS_SHAPE = { policyWaivers: policyWaiversSchema.optional() } satisfies z.ZodRawShape;

/** The options as the synthesized spec carries them (only those set). */
export function resourceOptionsOf(props: Record<string, unknown>): { policyWaivers?: Readonly<Record<string, string>> } {
  const waivers = props.policyWaivers;
  if (typeof waivers !== 'object' || waivers === null || Object.keys(waivers).length === 0) return {};
  return { policyWaivers: Object.freeze({ ...(waivers as Record<string, string>) }) };
}
