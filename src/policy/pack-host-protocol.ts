/**
 * The messages between secretform, the pack host process and its worker (pack-host.ts, pack-host-process.ts,
 * pack-worker.ts). Requests go down as they are; answers come up through the host process, which adds what only
 * it can tell (a deadline passed, the worker ended). The pack's code shares the host process, so it can write on
 * the channel too: secretform reads every answer as untrusted input (`readAnswer`), and scrubs every text in it.
 */
import { POLICY_ENFORCEMENTS, POLICY_ID_PATTERN, type PolicyEnforcement, type PolicyResource, type PolicyViolation } from './policy';

export type HostRequest =
  | { kind: 'load'; packs: string[]; cwd: string; timeoutMs: number }
  | { kind: 'evaluate'; id: number; resources: readonly PolicyResource[]; timeoutMs: number };

/** A policy of a pack file, as the worker describes it; `pack` is the index of its pack in the load request. */
export interface PolicyDescription {
  pack: number;
  id: string;
  description: string;
  enforcement: PolicyEnforcement;
  resourceTypes?: string[];
}

/** Where a failure happened: the pack being loaded, or the policy (host index) and resource being checked. */
export interface HostPosition {
  pack?: number;
  policy?: number;
  resource?: number;
}

export type FailureReason = 'load' | 'threw' | 'returned' | 'timeout' | 'ended';

export type HostAnswerMessage =
  | { kind: 'loaded'; policies: PolicyDescription[] }
  /** Every check that ran: resource index, policy (host) index, violations. */
  | { kind: 'evaluated'; id: number; checks: [number, number, PolicyViolation[]][] }
  /** `id` null: the load request. */
  | ({ kind: 'failed'; id: number | null; why: FailureReason; detail: string } & HostPosition);

/**
 * The position shared between the worker and the host process (an Int32Array over a SharedArrayBuffer): the
 * worker writes what it is about to run, the host process reads it when the deadline passes or the worker ends.
 */
export const POSITION_SLOTS = { pack: 0, policy: 1, resource: 2 } as const;
export const NOWHERE = -1;

export function positionOf(slots: Int32Array): HostPosition {
  const at = (slot: number): number | undefined => (slots[slot] === NOWHERE ? undefined : slots[slot]);
  return { pack: at(POSITION_SLOTS.pack), policy: at(POSITION_SLOTS.policy), resource: at(POSITION_SLOTS.resource) };
}

/** An answer as secretform reads it: checked field by field; undefined for anything else (it is ignored). */
export function readAnswer(message: unknown): HostAnswerMessage | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const fields = message as Record<string, unknown>;
  switch (fields.kind) {
    case 'loaded':
      return Array.isArray(fields.policies) && fields.policies.every(isDescription) ? { kind: 'loaded', policies: fields.policies.map(copyDescription) } : undefined;
    case 'evaluated':
      return isIndex(fields.id) && Array.isArray(fields.checks) && fields.checks.every(isCheck)
        ? { kind: 'evaluated', id: fields.id, checks: fields.checks.map(([resource, policy, violations]: [number, number, PolicyViolation[]]) => [resource, policy, violations.map(copyViolation)]) }
        : undefined;
    case 'failed':
      if ((fields.id !== null && !isIndex(fields.id)) || !FAILURE_REASONS.includes(fields.why as FailureReason) || typeof fields.detail !== 'string') return undefined;
      if (![fields.pack, fields.policy, fields.resource].every((index) => index === undefined || isIndex(index))) return undefined;
      return {
        kind: 'failed', id: fields.id, why: fields.why as FailureReason, detail: fields.detail,
        ...(fields.pack !== undefined ? { pack: fields.pack as number } : {}),
        ...(fields.policy !== undefined ? { policy: fields.policy as number } : {}),
        ...(fields.resource !== undefined ? { resource: fields.resource as number } : {}),
      };
    default:
      return undefined;
  }
}

const FAILURE_REASONS: readonly FailureReason[] = ['load', 'threw', 'returned', 'timeout', 'ended'];

function isIndex(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

function isDescription(value: unknown): value is PolicyDescription {
  if (typeof value !== 'object' || value === null) return false;
  const { pack, id, description, enforcement, resourceTypes } = value as Record<string, unknown>;
  return isIndex(pack) && typeof id === 'string' && POLICY_ID_PATTERN.test(id) && typeof description === 'string' && description.trim() !== ''
    && POLICY_ENFORCEMENTS.includes(enforcement as PolicyEnforcement)
    && (resourceTypes === undefined || (Array.isArray(resourceTypes) && resourceTypes.every((type) => typeof type === 'string')));
}

function copyDescription(value: PolicyDescription): PolicyDescription {
  const { pack, id, description, enforcement, resourceTypes } = value;
  return { pack, id, description, enforcement, ...(resourceTypes !== undefined ? { resourceTypes: [...resourceTypes] } : {}) };
}

function isCheck(value: unknown): value is [number, number, PolicyViolation[]] {
  return Array.isArray(value) && value.length === 3 && isIndex(value[0]) && isIndex(value[1]) && Array.isArray(value[2]) && value[2].every(isViolation);
}

function isViolation(value: unknown): value is PolicyViolation {
  if (typeof value !== 'object' || value === null) return false;
  const { message, field } = value as Record<string, unknown>;
  return typeof message === 'string' && (field === undefined || typeof field === 'string');
}

function copyViolation({ message, field }: PolicyViolation): PolicyViolation {
  return field === undefined ? { message } : { message, field };
}
