/**
 * The policies a run evaluates, each with the pack it came from, and the packs as given (for a saved plan).
 * A policy runs in this process when it is secretform's own (`recommended`) or was made in the caller's code;
 * a policy of a pack file runs in the pack host (pack-host.ts), a child process with the synth child's
 * environment and a deadline, and is known here by its description only.
 */
import type { Policy, PolicyEnforcement, PolicyResource, PolicyViolation } from './policy';

/** How long the packs may take to load, and to check one stack's plan, unless told otherwise. */
export const DEFAULT_POLICY_TIMEOUT_MS = 60_000;

/** A policy of a pack file, as the pack host described it: everything but `check`, which runs in the host. */
export interface HostedPolicy {
  readonly id: string;
  readonly description: string;
  readonly enforcement: PolicyEnforcement;
  readonly resourceTypes?: readonly string[];
  /** Its position in the host's list of policies (what an evaluation's answers refer to). */
  readonly hostIndex: number;
}

/** The part of the pack host evaluation needs (see pack-host.ts). */
export interface PolicyHost {
  /**
   * Runs every hosted policy over `resources`; by resource index, then host index, the violations. Texts in the
   * answer are scrubbed with `scrub` and the host's own list of secrets.
   */
  evaluate(request: HostEvaluation): Promise<HostAnswer>;
  /** Stops the host process (at once; a check in flight is abandoned). */
  close(): Promise<void>;
}

export interface HostEvaluation {
  readonly resources: readonly PolicyResource[];
  readonly scrub: (text: string) => string;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

/** What went wrong in the host, where: the policy and resource (by index) when a check was running. */
export interface HostFailure {
  readonly why: 'threw' | 'returned' | 'timeout' | 'ended' | 'interrupted' | 'unusable';
  readonly policy?: number;
  readonly resource?: number;
  /** Scrubbed: what the check threw, what was wrong with what it returned, or what happened to the host. */
  readonly detail: string;
}

export type HostAnswer =
  | { readonly ok: true; readonly violations: ReadonlyMap<string, readonly PolicyViolation[]> }
  | { readonly ok: false; readonly failure: HostFailure };

/** The key of a hosted check's answer: resource index, then host index. */
export const hostedCheckKey = (resource: number, hostIndex: number): string => `${resource}/${hostIndex}`;

export interface LoadedPolicy {
  readonly policy: Policy | HostedPolicy;
  readonly pack: string;
}

export interface LoadedPolicies {
  /** The pack specs as given (`recommended`, or a module path relative to the project directory), in order. */
  readonly packs: readonly string[];
  readonly policies: readonly LoadedPolicy[];
  /** Runs the hosted policies; absent when no pack file was loaded (nothing is started then). */
  readonly host?: PolicyHost;
  /** How long one evaluation may take (DEFAULT_POLICY_TIMEOUT_MS when absent). */
  readonly timeoutMs?: number;
}

export function isHostedPolicy(policy: Policy | HostedPolicy): policy is HostedPolicy {
  return typeof (policy as { hostIndex?: unknown }).hostIndex === 'number';
}
