/**
 * The progress callback of one stack's part of a run over several stacks. Stacks that do not wait for each other
 * refresh and write at the same time, each reporting its own counts (`done` of `total` objects read) through the
 * run's one callback: each event names its stack, so that whoever shows the counts can tell them apart.
 */
import type { EngineOptions } from '../setup/engine-options';

type OnProgress = EngineOptions['onProgress'];

export function stackProgress(onProgress: OnProgress, stack: string): OnProgress {
  // Object.assign, not `{ ...event, stack }`: the same object (the stack's name last, over any the event had), and
  // a spread followed by a property took V8's slow path, about 1.5-3 us per event against 0.1 us (node 20): a plan
  // of 100 stacks of 1,000 objects reports 100,000 reads.
  return onProgress === undefined ? undefined : (event) => onProgress(Object.assign({}, event, { stack }));
}
