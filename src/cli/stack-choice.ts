/**
 * Which stacks of the synth output a command runs on (`--stack`, repeatable, glob patterns), and whether that
 * is a run of one stack (the commands as they always were) or over several (src/engine/stacks).
 */
import { resolveStack, selectSynthesizedStacks, type SelectionUse } from '../engine';
import type { EngineOptions } from '../engine/setup/engine-options';
import { connectionProblem, type EngineSettings } from './engine-flags';
import { failWith, type CliIo } from './io';

export type StackChoice =
  | { kind: 'one'; options: EngineOptions }
  | { kind: 'several'; options: EngineOptions; outdir: string; stacks: string[] }
  | { kind: 'failed'; exitCode: number };

/** The stacks `settings.stacks` select in the run's synth output; a failure is reported on stderr. */
export function chooseStacks(options: EngineOptions, settings: EngineSettings, use: SelectionUse, command: string, io: CliIo): StackChoice {
  if (options.desired.kind !== 'synth-output') return { kind: 'one', options };
  const { outdir } = options.desired;
  const selected = selectSynthesizedStacks(outdir, settings.stacks, use, command);
  if (!selected.ok) return { kind: 'failed', exitCode: failWith(io, selected.error) };
  // prepareServiceRun checked the connection of the stack the options name, if they name one: the others now.
  const checked = resolveStack(options);
  for (const stack of selected.value.filter((name) => !(checked.ok && checked.value === name))) {
    const problem = connectionProblem({ ...options, stack }, io);
    if (problem !== undefined) return { kind: 'failed', exitCode: failWith(io, selected.value.length > 1 && !problem.startsWith(`stack ${stack}:`) ? `stack ${stack}: ${problem}` : problem) };
  }
  if (selected.value.length === 1) return { kind: 'one', options: { ...options, stack: selected.value[0] } };
  return { kind: 'several', options, outdir, stacks: selected.value };
}
