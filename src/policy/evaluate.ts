/**
 * Runs the loaded policies over a computed plan: each policy's `check` once per resource of the plan it applies
 * to (no-ops included), the construct's waivers applied. A check that throws or returns something that is not a
 * list of violations is an error naming the policy and the address, never a crash and never a silent pass.
 */
import type { Plan } from '../engine/plan/plan';
import type { PolicyEvaluation, PolicyResult, PolicyRule } from './evaluation';
import type { LoadedPolicies } from './loaded-policies';
import type { Policy, PolicyViolation } from './policy';
import { RECOMMENDED_POLICIES } from './recommended';
import { policyResourceOf, type PolicyDesiredInput } from '../engine/policy/resource-view';

export class PolicyCheckError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PolicyCheckError';
  }
}

export type PolicyRun =
  | { readonly ok: true; readonly evaluation: PolicyEvaluation; readonly warnings: readonly string[] }
  | { readonly ok: false; readonly error: PolicyCheckError };

export async function evaluatePolicies(plan: Plan, desired: readonly PolicyDesiredInput[], loaded: LoadedPolicies): Promise<PolicyRun> {
  const desiredByAddress = new Map(desired.map((resource) => [resource.address, resource]));
  const driftByAddress = new Map(plan.drift.map((entry) => [entry.address, entry]));
  const results: PolicyResult[] = [];
  for (const change of plan.changes) {
    const inCode = desiredByAddress.get(change.address);
    const resource = policyResourceOf(plan.stack, change, inCode, driftByAddress.get(change.address));
    for (const { policy } of loaded.policies) {
      if (policy.resourceTypes !== undefined && !policy.resourceTypes.includes(change.type)) continue;
      const checked = await runCheck(policy, resource);
      if (!checked.ok) return checked;
      results.push(resultOf(policy, change.address, checked.violations, inCode?.policyWaivers?.[policy.id]));
    }
  }
  const rules: PolicyRule[] = loaded.policies.map(({ policy, pack }) => ({ id: policy.id, description: policy.description, enforcement: policy.enforcement, pack }));
  return { ok: true, evaluation: { packs: [...loaded.packs], rules, results }, warnings: unknownWaiverWarnings(desired, loaded) };
}

async function runCheck(policy: Policy, resource: Parameters<Policy['check']>[0]): Promise<{ ok: true; violations: PolicyViolation[] } | { ok: false; error: PolicyCheckError }> {
  const where = `policy "${policy.id}" on ${resource.address}`;
  let returned: unknown;
  try {
    returned = await policy.check(resource);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, error: new PolicyCheckError(`${where}: check threw: ${reason}. Fix the policy (or remove its pack); nothing was evaluated further`) };
  }
  if (returned === undefined || returned === null) return { ok: true, violations: [] };
  if (!Array.isArray(returned) || returned.some((violation) => !isViolation(violation))) {
    return { ok: false, error: new PolicyCheckError(`${where}: check returned ${describe(returned)}; it must return an array of { message: string, field?: string } (empty or nothing when the resource passes)`) };
  }
  return { ok: true, violations: returned as PolicyViolation[] };
}

function isViolation(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const { message, field } = value as { message?: unknown; field?: unknown };
  return typeof message === 'string' && (field === undefined || typeof field === 'string');
}

function resultOf(policy: Policy, address: string, violations: readonly PolicyViolation[], waiver: string | undefined): PolicyResult {
  const base = { policy: policy.id, enforcement: policy.enforcement, address };
  if (violations.length === 0) return { ...base, status: 'passed', message: '', fields: [] };
  const message = violations.map((violation) => (violation.field !== undefined ? `${violation.field}: ${violation.message}` : violation.message)).join('; ');
  const fields = [...new Set(violations.flatMap((violation) => (violation.field !== undefined ? [violation.field] : [])))];
  if (waiver !== undefined) return { ...base, status: 'waived', message, fields, waiverReason: waiver };
  return { ...base, status: 'failed', message, fields };
}

/** A waiver that names no loaded policy and no built-in rule is most likely a typo: it waives nothing. */
function unknownWaiverWarnings(desired: readonly PolicyDesiredInput[], loaded: LoadedPolicies): string[] {
  const known = new Set([...loaded.policies.map(({ policy }) => policy.id), ...RECOMMENDED_POLICIES.map((policy) => policy.id)]);
  const warnings: string[] = [];
  for (const resource of desired) {
    for (const id of Object.keys(resource.policyWaivers ?? {})) {
      if (!known.has(id)) {
        warnings.push(`${resource.address}: policyWaivers names "${id}", which is no policy of the packs loaded (${loaded.packs.join(', ')}) nor a built-in rule; it waives nothing (a typo, or a pack not loaded?)`);
      }
    }
  }
  return warnings;
}

function describe(value: unknown): string {
  const text = JSON.stringify(value) ?? typeof value;
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
