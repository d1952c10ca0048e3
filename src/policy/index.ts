/**
 * Policies over the plan: the API packs are written with (`definePolicy`), the built-in `recommended` pack,
 * loading packs, and evaluating them (the engine's policy stage calls `evaluatePolicies`).
 */
export { definePolicy, PolicyDefinitionError, SENSITIVE_PLACEHOLDER, POLICY_ENFORCEMENTS } from './policy';
export type {
  Policy, PolicyDefinition, PolicyEnforcement, PolicyResource, PolicyViolation, PolicyAttributes, PolicyDrift, PolicyCheckOutcome,
} from './policy';
export { RECOMMENDED_PACK, RECOMMENDED_POLICIES } from './recommended';
export { loadPolicyPacks, PolicyLoadError } from './load-packs';
export type { LoadedPolicies } from './loaded-policies';
export { mandatoryFailures, policyCounts } from './evaluation';
export type { PolicyEvaluation, PolicyResult, PolicyRule, PolicyStatus } from './evaluation';
