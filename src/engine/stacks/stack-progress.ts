/**
 * The progress callback of one stack's part of a run over several stacks. Stacks that do not wait for each other
 * refresh and write at the same time, each reporting its own counts (`done` of `total` objects read) through the
 * run's one callback: each event names its stack, so that whoever shows the counts can tell them apart.
 */
import type { EngineOptions } from '../setup/engine-options';

type OnProgress = EngineOptions['onProgress'];

export function stackProgress(onProgress: OnProgress, stack: string): OnProgress {
  return onProgress === undefined ? undefined : (event) => onProgress({ ...event, stack });
}
