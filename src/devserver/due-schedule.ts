import { MinHeap } from './min-heap';

interface Scheduled {
  due: number;
  /** When the key was first scheduled: `due` lists keys in this order. */
  order: number;
}

interface HeapNode<K> {
  key: K;
  /** The node is current while the schedule still maps `key` to this very object. */
  scheduled: Scheduled;
}

/**
 * When each key (a role, a lease, a check-out...) next needs work, so that the tick before every request visits
 * only what is due instead of every object. The owner keeps it in step: `set` whenever the object's due time is
 * set or changes, `delete` when the object goes.
 *
 * Keys are listed in the order they were first scheduled, which is the order of the owner's Map when the
 * owner schedules each object as it inserts it: the tick then does its work in the order it always did.
 */
export class DueSchedule<K> {
  private readonly scheduled = new Map<K, Scheduled>();
  /** May also hold superseded nodes (a key rescheduled or deleted), skipped when they surface. */
  private readonly heap = new MinHeap<HeapNode<K>>((a, b) => a.scheduled.due < b.scheduled.due);
  private nextOrder = 0;

  set(key: K, due: number): void {
    const current = this.scheduled.get(key);
    if (current?.due === due) return;
    const scheduled = { due, order: current?.order ?? this.nextOrder++ };
    this.scheduled.set(key, scheduled);
    this.heap.push({ key, scheduled });
    this.compactIfMostlySuperseded();
  }

  delete(key: K): void {
    this.scheduled.delete(key);
    this.compactIfMostlySuperseded();
  }

  /**
   * The keys due at `now` (due time <= now), in scheduling order. They stay scheduled: the owner reschedules or
   * deletes each one it dealt with, and one it leaves alone (a failed rotation) is due again on the next tick.
   */
  due(now: number): K[] {
    const due: HeapNode<K>[] = [];
    for (let top = this.heap.peek(); top && top.scheduled.due <= now; top = this.heap.peek()) {
      this.heap.pop();
      if (this.isCurrent(top)) due.push(top);
    }
    for (const node of due) this.heap.push(node);
    return due.sort((a, b) => a.scheduled.order - b.scheduled.order).map((node) => node.key);
  }

  private isCurrent(node: HeapNode<K>): boolean {
    return this.scheduled.get(node.key) === node.scheduled;
  }

  /** Superseded nodes surface only at their old due time: rebuild once they outnumber the current ones. */
  private compactIfMostlySuperseded(): void {
    if (this.heap.size <= 2 * this.scheduled.size + 64) return;
    this.heap.reset([...this.scheduled].map(([key, scheduled]) => ({ key, scheduled })));
  }
}
