/**
 * Runs the loaded policies over the resources of a plan: each policy's `check` once per resource it applies to
 * (no-ops included), the construct's waivers applied. A check that throws, returns something that is not a list
 * of violations, or does not finish within the deadline is an error naming the policy, the address and the pack:
 * never a crash, never a silent pass. Every text a policy gives (messages, fields, descriptions, errors) goes
 * through `scrub` before it is kept: policy code is not trusted with the run's secrets.
 *
 * The policies of pack files run in the pack host (one request for the whole plan); the others run here, where
 * a promise that never settles meets the deadline too.
 */
import { checkOutcomeOf, type CheckOutcome } from './check-outcome';
import type { PolicyEvaluation, PolicyResult, PolicyRule } from './evaluation';
import { DEFAULT_POLICY_TIMEOUT_MS, hostedCheckKey, isHostedPolicy, type HostFailure, type LoadedPolicies, type LoadedPolicy } from './loaded-policies';
import type { Policy, PolicyResource, PolicyViolation } from './policy';
import { RECOMMENDED_POLICIES } from './recommended';
import { ownValue } from './own-value';
import { describeTimeout, TIMEOUT_ADVICE } from './timeout-advice';

export class PolicyCheckError extends Error {
  constructor(
    message: string,
    /** True when the run was interrupted (SIGINT, SIGTERM), not failed by a policy. */
    readonly interrupted = false,
  ) {
    super(message);
    this.name = 'PolicyCheckError';
  }
}

export type PolicyRun =
  | { readonly ok: true; readonly evaluation: PolicyEvaluation; readonly warnings: readonly string[] }
  | { readonly ok: false; readonly error: PolicyCheckError };

export interface PolicyRunInput {
  /** What `check` gets, one per resource of the plan (the engine's policy stage builds them, with no secret). */
  readonly resources: readonly PolicyResource[];
  /** The constructs' `policyWaivers`, by address: every construct of the code (for the unknown-waiver warnings). */
  readonly waivers: ReadonlyMap<string, Readonly<Record<string, string>>>;
  readonly loaded: LoadedPolicies;
  /** Removes the run's secrets from a text a policy gave (the client's scrubbing of server text). */
  readonly scrub: (text: string) => string;
  /** Aborted on SIGINT/SIGTERM: the evaluation stops (the pack host with it). */
  readonly signal?: AbortSignal;
}

export async function runPolicies(input: PolicyRunInput): Promise<PolicyRun> {
  const { resources, loaded, scrub } = input;
  const timeoutMs = loaded.timeoutMs ?? DEFAULT_POLICY_TIMEOUT_MS;
  const hosted = loaded.policies.some(({ policy }) => isHostedPolicy(policy));
  let hostedViolations: ReadonlyMap<string, readonly PolicyViolation[]> = new Map();
  if (hosted && loaded.host !== undefined) {
    const answer = await loaded.host.evaluate({ resources, scrub, timeoutMs, signal: input.signal });
    if (!answer.ok) return { ok: false, error: hostError(answer.failure, input, timeoutMs) };
    hostedViolations = answer.violations;
  }
  const results: PolicyResult[] = [];
  for (const [index, resource] of resources.entries()) {
    const waivers = input.waivers.get(resource.address);
    for (const entry of loaded.policies) {
      const { policy } = entry;
      if (policy.resourceTypes !== undefined && !policy.resourceTypes.includes(resource.type)) continue;
      let outcome: CheckOutcome;
      if (isHostedPolicy(policy)) {
        const violations = hostedViolations.get(hostedCheckKey(index, policy.hostIndex));
        // The host answers every check it ran; a missing answer is a host that did not run this one.
        outcome = violations === undefined
          ? { ok: false, problem: `the pack host gave no result for this check${loaded.host === undefined ? ' (no pack host was started)' : ''}` }
          : { ok: true, violations: [...violations] };
      } else {
        const checked = await runInProcess(policy, resource, timeoutMs, input.signal);
        if ('error' in checked) return { ok: false, error: new PolicyCheckError(`${where(entry, resource.address)}: ${scrub(checked.error)}`, checked.interrupted) };
        outcome = checked;
      }
      if (!outcome.ok) return { ok: false, error: checkError(entry, resource.address, 'returned', scrub(outcome.problem)) };
      results.push(resultOf(policy.id, policy.enforcement, resource.address, outcome.violations.map((violation) => scrubbed(violation, scrub)), ownValue(waivers, policy.id)));
    }
  }
  const rules: PolicyRule[] = loaded.policies.map(({ policy, pack }) => ({ id: policy.id, description: scrub(policy.description), enforcement: policy.enforcement, pack }));
  return { ok: true, evaluation: { packs: [...loaded.packs], rules, results }, warnings: unknownWaiverWarnings(input.waivers, loaded) };
}

/** `policy "<id>" on <address>`, the start of every error about one check. */
function where(entry: LoadedPolicy, address: string): string {
  return `policy "${entry.policy.id}" on ${address}`;
}

function checkError(entry: LoadedPolicy, address: string, why: 'threw' | 'returned', detail: string): PolicyCheckError {
  if (why === 'threw') {
    return new PolicyCheckError(`${where(entry, address)}: check threw: ${detail}. Fix the policy (or remove its pack, ${entry.pack}); nothing was evaluated further`);
  }
  return new PolicyCheckError(`${where(entry, address)}: ${detail} (pack ${entry.pack})`);
}

/** The host's failure in words: the policy, the address and the pack when a check was running. */
function hostError(failure: HostFailure, input: PolicyRunInput, timeoutMs: number): PolicyCheckError {
  const entry = failure.policy === undefined ? undefined : input.loaded.policies.find(({ policy }) => isHostedPolicy(policy) && policy.hostIndex === failure.policy);
  const address = failure.resource === undefined ? undefined : input.resources[failure.resource]?.address;
  const check = entry !== undefined && address !== undefined ? { entry, address } : undefined;
  switch (failure.why) {
    case 'threw':
    case 'returned':
      if (check) return checkError(check.entry, check.address, failure.why, failure.detail);
      break;
    case 'timeout':
      if (check) return new PolicyCheckError(`${where(check.entry, check.address)}: ${describeTimeout(timeoutMs)}, so the policies failed closed and the run stops. Fix the policy in pack ${check.entry.pack} (or remove the pack); ${TIMEOUT_ADVICE}`);
      return new PolicyCheckError(`the policy packs (${hostedPacks(input.loaded).join(', ')}) gave no answer: ${describeTimeout(timeoutMs)}, so the policies failed closed and the run stops. ${TIMEOUT_ADVICE}`);
    case 'ended':
      if (check) return new PolicyCheckError(`${where(check.entry, check.address)}: ${failure.detail}, so the policies failed closed and the run stops. Fix the policy in pack ${check.entry.pack} (or remove the pack)`);
      break;
    case 'interrupted':
      return new PolicyCheckError(`interrupted while the policy packs (${hostedPacks(input.loaded).join(', ')}) were evaluated${check ? ` (policy "${check.entry.policy.id}" on ${check.address})` : ''}; nothing was changed`, true);
    case 'unusable':
      break;
  }
  return new PolicyCheckError(`the policy packs (${hostedPacks(input.loaded).join(', ')}) could not be evaluated: ${failure.detail}; the policies failed closed and the run stops`);
}

function hostedPacks(loaded: LoadedPolicies): string[] {
  return [...new Set(loaded.policies.filter(({ policy }) => isHostedPolicy(policy)).map(({ pack }) => pack))];
}

type InProcessCheck = CheckOutcome | { readonly error: string; readonly interrupted: boolean };

/**
 * A check of a policy made in this process (`recommended`, or the caller's code): its promise, if it returns
 * one, meets the deadline and the abort signal (a promise that never settles would let the process end with
 * nothing said). A synchronous check is not timed: it is this process's own code.
 */
async function runInProcess(policy: Policy, resource: PolicyResource, timeoutMs: number, signal: AbortSignal | undefined): Promise<InProcessCheck> {
  let returned: unknown;
  try {
    returned = policy.check(resource);
    if (isThenable(returned)) {
      const settled = await settleWithin(returned, timeoutMs, signal);
      if (settled.kind === 'timeout') return { error: `${describeTimeout(timeoutMs)}, so the policies failed closed and the run stops. Fix the policy; ${TIMEOUT_ADVICE}`, interrupted: false };
      if (settled.kind === 'aborted') return { error: 'interrupted while the policy ran; nothing was changed', interrupted: true };
      if (settled.kind === 'rejected') return threw(settled.reason);
      returned = settled.value;
    }
  } catch (error) {
    return threw(error);
  }
  return checkOutcomeOf(returned);
}

function threw(error: unknown): InProcessCheck {
  return { error: `check threw: ${error instanceof Error ? error.message : String(error)}. Fix the policy; nothing was evaluated further`, interrupted: false };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

type Settled = { kind: 'value'; value: unknown } | { kind: 'rejected'; reason: unknown } | { kind: 'timeout' } | { kind: 'aborted' };

function settleWithin(promise: PromiseLike<unknown>, timeoutMs: number, signal: AbortSignal | undefined): Promise<Settled> {
  if (signal?.aborted === true) return Promise.resolve({ kind: 'aborted' });
  return new Promise<Settled>((resolve) => {
    // A timer that keeps the process alive: the run ends by the deadline, never by an empty event loop.
    const timer = setTimeout(() => finish(() => resolve({ kind: 'timeout' })), timeoutMs);
    const onAbort = (): void => finish(() => resolve({ kind: 'aborted' }));
    signal?.addEventListener('abort', onAbort, { once: true });
    const finish = (settle: () => void): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      settle();
    };
    Promise.resolve(promise).then((value) => finish(() => resolve({ kind: 'value', value })), (reason: unknown) => finish(() => resolve({ kind: 'rejected', reason })));
  });
}

function scrubbed(violation: PolicyViolation, scrub: (text: string) => string): PolicyViolation {
  return violation.field === undefined ? { message: scrub(violation.message) } : { message: scrub(violation.message), field: scrub(violation.field) };
}

function resultOf(policy: string, enforcement: PolicyResult['enforcement'], address: string, violations: readonly PolicyViolation[], waiver: string | undefined): PolicyResult {
  const base = { policy, enforcement, address };
  if (violations.length === 0) return { ...base, status: 'passed', message: '', fields: [] };
  const message = violations.map((violation) => (violation.field !== undefined ? `${violation.field}: ${violation.message}` : violation.message)).join('; ');
  const fields = [...new Set(violations.flatMap((violation) => (violation.field !== undefined ? [violation.field] : [])))];
  if (waiver !== undefined) return { ...base, status: 'waived', message, fields, waiverReason: waiver };
  return { ...base, status: 'failed', message, fields };
}

/** A waiver that names no loaded policy and no built-in rule is most likely a typo: it waives nothing. */
function unknownWaiverWarnings(waivers: PolicyRunInput['waivers'], loaded: LoadedPolicies): string[] {
  const known = new Set([...loaded.policies.map(({ policy }) => policy.id), ...RECOMMENDED_POLICIES.map((policy) => policy.id)]);
  const warnings: string[] = [];
  for (const [address, byPolicy] of waivers) {
    for (const id of Object.keys(byPolicy)) {
      if (!known.has(id)) {
        warnings.push(`${address}: policyWaivers names "${id}", which is no policy of the packs loaded (${loaded.packs.join(', ')}) nor a built-in rule; it waives nothing (a typo, or a pack not loaded?)`);
      }
    }
  }
  return warnings;
}
