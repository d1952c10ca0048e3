/**
 * The plan as policy code sees it, and the policies run over it: one view per resource of the plan (no-ops
 * included, built without any secret value: resource-view.ts) and the constructs' waivers, handed to
 * src/policy's `runPolicies`.
 */
import { runPolicies, type PolicyRun } from '../../policy/evaluate';
import type { LoadedPolicies } from '../../policy/loaded-policies';
import type { Plan } from '../plan/plan';
import { policyResourceOf, type PolicyDesiredInput } from './resource-view';

/** How one run evaluates: its scrubbing of what policies say, and its abort signal. */
export interface PolicyRunSettings {
  /** Removes the run's secrets from a text (the client's `scrubServerText`); default: the text as it is. */
  readonly scrub?: (text: string) => string;
  readonly signal?: AbortSignal;
}

export function evaluatePolicies(plan: Plan, desired: readonly PolicyDesiredInput[], loaded: LoadedPolicies, settings: PolicyRunSettings = {}): Promise<PolicyRun> {
  const desiredByAddress = new Map(desired.map((resource) => [resource.address, resource]));
  const driftByAddress = new Map(plan.drift.map((entry) => [entry.address, entry]));
  const resources = plan.changes.map((change) => policyResourceOf(plan.stack, change, desiredByAddress.get(change.address), driftByAddress.get(change.address)));
  const waivers = new Map(desired.flatMap((resource) => (resource.policyWaivers !== undefined ? [[resource.address, resource.policyWaivers] as const] : [])));
  return runPolicies({ resources, waivers, loaded, scrub: settings.scrub ?? ((text) => text), signal: settings.signal });
}
