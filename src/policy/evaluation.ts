/**
 * What evaluating the policy packs over a plan gives: one result per policy and resource evaluated, the rules
 * (for SARIF and the reports), and the packs they came from (recorded in a saved plan). A plain value, carried
 * by the plan and stored with a saved plan.
 */
import type { PolicyEnforcement } from './policy';

/** The saved-plan reader accepts exactly these. */
export const POLICY_STATUSES = ['passed', 'failed', 'waived'] as const;
export type PolicyStatus = (typeof POLICY_STATUSES)[number];

export interface PolicyResult {
  readonly policy: string;
  readonly enforcement: PolicyEnforcement;
  readonly address: string;
  readonly status: PolicyStatus;
  /** The violations in words ("" when the policy passed). */
  readonly message: string;
  /** The service field names the violations name, if any. */
  readonly fields: readonly string[];
  /** For `waived`: the reason given in the construct's `policyWaivers`. */
  readonly waiverReason?: string;
}

/** A policy as the reports and SARIF describe it. */
export interface PolicyRule {
  readonly id: string;
  readonly description: string;
  readonly enforcement: PolicyEnforcement;
  /** The pack it came from, as given (`recommended`, or the module path). */
  readonly pack: string;
}

export interface PolicyEvaluation {
  /** The packs evaluated, as given (`--policy` and cdktf.json), in order. */
  readonly packs: readonly string[];
  readonly rules: readonly PolicyRule[];
  /** By address, then policy id. */
  readonly results: readonly PolicyResult[];
}

/** The failed results of mandatory policies: any one of them stops plan (after its reports) and apply. */
export function mandatoryFailures(evaluation: PolicyEvaluation | undefined): PolicyResult[] {
  return (evaluation?.results ?? []).filter((result) => result.status === 'failed' && result.enforcement === 'mandatory');
}

/** Counts per status, and of the failed ones, how many are mandatory. */
export function policyCounts(evaluation: PolicyEvaluation): { passed: number; failed: number; mandatoryFailed: number; waived: number } {
  const count = (status: PolicyStatus) => evaluation.results.filter((result) => result.status === status).length;
  return { passed: count('passed'), failed: count('failed'), mandatoryFailed: mandatoryFailures(evaluation).length, waived: count('waived') };
}

/** One line per mandatory failure: what `apply` says when it refuses, and what `plan` says before exiting 1. */
export function mandatoryFailureLines(evaluation: PolicyEvaluation | undefined): string[] {
  return mandatoryFailures(evaluation).map((result) => `${result.policy} (mandatory) failed for ${result.address}: ${result.message}`);
}
