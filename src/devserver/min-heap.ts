/** A binary min-heap: `pop` returns the smallest item by `before` (true when `a` comes before `b`). */
export class MinHeap<T> {
  private items: T[] = [];

  constructor(private readonly before: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  push(item: T): void {
    const items = this.items;
    items.push(item);
    let child = items.length - 1;
    while (child > 0) {
      const parent = (child - 1) >> 1;
      if (!this.before(items[child], items[parent])) break;
      [items[child], items[parent]] = [items[parent], items[child]];
      child = parent;
    }
  }

  pop(): T | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last !== undefined) {
      items[0] = last;
      this.siftDown(0);
    }
    return top;
  }

  /** Replaces the contents with `items` (in O(n), not one push each). */
  reset(items: T[]): void {
    this.items = items;
    for (let index = (items.length >> 1) - 1; index >= 0; index--) this.siftDown(index);
  }

  private siftDown(index: number): void {
    const items = this.items;
    for (;;) {
      const left = 2 * index + 1;
      const right = left + 1;
      let smallest = index;
      if (left < items.length && this.before(items[left], items[smallest])) smallest = left;
      if (right < items.length && this.before(items[right], items[smallest])) smallest = right;
      if (smallest === index) return;
      [items[index], items[smallest]] = [items[smallest], items[index]];
      index = smallest;
    }
  }
}
