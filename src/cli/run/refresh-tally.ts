/**
 * The refresh counter of the live line. A run of one stack shows the objects read out of those to read,
 * `Refreshing 120/1000`. A run over several stacks refreshes the stacks that do not wait for each other at the
 * same time, each reporting its own count: drawn as they came, the line jumped from one stack's count to
 * another's. So the tally keeps each stack's last count and shows the sum over the stacks started so far, with
 * how many are still reading and how many are done: `Refreshing 130/1040, 2 stacks running, 1 done`. The total
 * grows when a stack starts (a stack that waits for another has not said yet how much it reads).
 *
 * One sum rather than a count per stack: with ten environments a count each would not fit a terminal's width,
 * and a line that wraps cannot be redrawn in place.
 */
import type { ProgressEvent } from '../../engine/setup/engine-options';

type RefreshEvent = Extract<ProgressEvent, { kind: 'refresh' }>;

interface Count {
  done: number;
  total: number;
}

export class RefreshTally {
  /** Each stack's last count; the key is undefined in a run of one stack, whose events name none. */
  private readonly counts = new Map<string | undefined, Count>();

  record(event: RefreshEvent): void {
    this.counts.set(event.stack, { done: event.done, total: event.total });
  }

  /** Every stack started so far has read all it reads (more may start later, after the stacks they wait for). */
  get complete(): boolean {
    return [...this.counts.values()].every(isDone);
  }

  /** The live line's text. */
  line(): string {
    let done = 0;
    let total = 0;
    let running = 0;
    for (const count of this.counts.values()) {
      done += count.done;
      total += count.total;
      if (!isDone(count)) running += 1;
    }
    const reads = `Refreshing ${done}/${total}`;
    if (this.counts.has(undefined)) return reads;
    const finished = this.counts.size - running;
    return `${reads}, ${running} ${running === 1 ? 'stack' : 'stacks'} running${finished > 0 ? `, ${finished} done` : ''}`;
  }
}

function isDone(count: Count): boolean {
  return count.done >= count.total;
}
