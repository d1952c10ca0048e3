/**
 * Which guardrails apply to an object. The code decides while the construct is in it; once the construct is
 * gone, what the last apply recorded in state decides (so `protect` and `retainOnDelete` still hold for an
 * object whose construct was removed by mistake, as Pulumi's do). `destroy` honours either.
 */
import type { ResourceLifecycle } from '../../synthesized-spec';
import type { DesiredResource } from '../setup/desired';
import type { ResourceState } from '../state/state-file';

export interface Guardrails {
  readonly protect: boolean;
  readonly retainOnDelete: boolean;
}

/**
 * The guardrails of one object: from its construct when it is in code, else from its state entry. With
 * `destroy`, the construct is still in code but on its way out: either source protects or retains.
 */
export function guardrailsOf(desired: DesiredResource | undefined, stateEntry: ResourceState | undefined, destroying: boolean): Guardrails {
  const protect = desired?.lifecycle?.protect === true;
  const retain = desired?.lifecycle?.retainOnDelete === true;
  if (desired !== undefined && !destroying) return guardrails(protect, retain);
  return guardrails(protect || stateEntry?.protect === true, retain || stateEntry?.retain_on_delete === true);
}

/** The four possible values, shared (a plan holds one per object). */
const GUARDRAILS: readonly Guardrails[] = [false, true].flatMap((protect) => [false, true].map((retainOnDelete) => Object.freeze({ protect, retainOnDelete })));

function guardrails(protect: boolean, retainOnDelete: boolean): Guardrails {
  return GUARDRAILS[(protect ? 2 : 0) + (retainOnDelete ? 1 : 0)];
}

/** The state entry's record of the guardrails that outlive the construct (only those that are on). */
export function recordedGuardrails(lifecycle: ResourceLifecycle | undefined): { protect?: true; retain_on_delete?: true } {
  return {
    ...(lifecycle?.protect ? { protect: true as const } : {}),
    ...(lifecycle?.retainOnDelete ? { retain_on_delete: true as const } : {}),
  };
}
