/**
 * Policies over the plan: the API packs are written with (`definePolicy`), the built-in `recommended` pack,
 * loading packs (pack files run in the pack host: pack-host.ts), and running them over a plan's resources (the
 * engine's policy stage calls `runPolicies` with the views it builds).
 */
export { definePolicy, PolicyDefinitionError, SENSITIVE_PLACEHOLDER, POLICY_ENFORCEMENTS } from './policy';
export type {
  Policy, PolicyDefinition, PolicyEnforcement, PolicyResource, PolicyViolation, PolicyAttributes, PolicyDrift, PolicyCheckOutcome,
} from './policy';
export { RECOMMENDED_PACK, RECOMMENDED_POLICIES } from './recommended';
export { loadPolicyPacks, PolicyLoadError } from './load-packs';
export type { PolicyLoadOptions } from './load-packs';
export { DEFAULT_POLICY_TIMEOUT_MS } from './loaded-policies';
export type { LoadedPolicies } from './loaded-policies';
export { mandatoryFailures, policyCounts } from './evaluation';
export type { PolicyEvaluation, PolicyResult, PolicyRule, PolicyStatus } from './evaluation';
