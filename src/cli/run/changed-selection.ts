/**
 * `--changed` on plan and apply: of the stacks the command chose (`--stack`, or every stack), those change
 * detection finds changed (engine/stacks/changed-stacks.ts: code, state, service or a dependency changed since
 * the last complete apply); the others are reported as unchanged and never read. Reads the synth output and the
 * state only: nothing is sent to any service.
 */
import { detectChangedStacks, EngineError, fail, ok, type Result } from '../../engine';
import type { EngineOptions } from '../../engine/setup/engine-options';

export interface ChangedSelection {
  /** The chosen stacks that are changed, in the order chosen. */
  changed: string[];
  /** The chosen stacks that are not, in the order chosen. */
  unchanged: string[];
}

/** Splits `chosen` into the changed stacks and the others. */
export async function selectChangedStacks(options: EngineOptions, chosen: readonly string[]): Promise<Result<ChangedSelection>> {
  if (options.desired.kind !== 'synth-output') {
    return fail(new EngineError('desired_invalid', '--changed compares a synth output with the state: it needs the synth output (run without a saved plan)'));
  }
  const detected = await detectChangedStacks({ outdir: options.desired.outdir, statePath: options.statePath, env: options.env, cwd: options.cwd });
  if (!detected.ok) return detected;
  const changed = new Set(detected.value.filter((stack) => stack.changed).map((stack) => stack.stack));
  return ok({ changed: chosen.filter((stack) => changed.has(stack)), unchanged: chosen.filter((stack) => !changed.has(stack)) });
}
