// A plan's stacks taken by their server a few at a time (src/engine/stacks/server-shares.ts).
import { ServerShares } from '../../src/engine/stacks/server-shares';

/** Which of `entries` have started, after the microtasks of the starts so far ran. */
async function started(entries: Array<{ done: boolean }>): Promise<boolean[]> {
  await new Promise((resolve) => setImmediate(resolve));
  return entries.map((entry) => entry.done);
}

function enter(shares: ServerShares, server: string, objects: number): { done: boolean } {
  const entry = { done: false };
  void shares.enter(server, objects).then(() => (entry.done = true));
  return entry;
}

describe('ServerShares', () => {
  it('starts stacks while their objects fit the share, the next ones as the first end, in the order they asked', async () => {
    const shares = new ServerShares(3000);
    const stacks = [1000, 1000, 1000, 1000, 1000].map((objects) => enter(shares, 'http://a', objects));
    expect(await started(stacks)).toEqual([true, true, true, false, false]);
    shares.leave('http://a', 1000);
    expect(await started(stacks)).toEqual([true, true, true, true, false]);
    shares.leave('http://a', 1000);
    expect(await started(stacks)).toEqual([true, true, true, true, true]);
  });

  it('runs a stack larger than the share alone, and the stacks after it wait for it', async () => {
    const shares = new ServerShares(3000);
    const stacks = [5000, 10].map((objects) => enter(shares, 'http://a', objects));
    expect(await started(stacks)).toEqual([true, false]);
    shares.leave('http://a', 5000);
    expect(await started(stacks)).toEqual([true, true]);
  });

  it('never lets a small stack pass one waiting before it', async () => {
    const shares = new ServerShares(3000);
    const stacks = [2500, 1000, 10].map((objects) => enter(shares, 'http://a', objects));
    expect(await started(stacks)).toEqual([true, false, false]);
    shares.leave('http://a', 2500);
    expect(await started(stacks)).toEqual([true, true, true]);
  });

  it('keeps each server its own share', async () => {
    const shares = new ServerShares(1000);
    const stacks = [enter(shares, 'http://a', 1000), enter(shares, 'http://a', 1000), enter(shares, 'http://b', 1000)];
    expect(await started(stacks)).toEqual([true, false, true]);
  });

  it('starts small stacks all at once', async () => {
    const shares = new ServerShares(3000);
    const stacks = Array.from({ length: 100 }, () => enter(shares, 'http://a', 5));
    expect((await started(stacks)).every(Boolean)).toBe(true);
  });
});
