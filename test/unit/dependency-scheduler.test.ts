import { runInDependencyOrder } from '../../src/engine/apply/dependency-scheduler';

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('runInDependencyOrder', () => {
  it('starts a task only after everything it waits for has finished', async () => {
    const order: string[] = [];
    const finished = new Set<string>();
    const tasks = [
      { key: 'assoc', after: ['dest'] },
      { key: 'dest', after: ['app'] },
      { key: 'app', after: [] },
      { key: 'mount', after: [] },
    ];
    await runInDependencyOrder(
      tasks,
      async (key) => {
        for (const dep of tasks.find((t) => t.key === key)!.after) expect(finished.has(dep)).toBe(true);
        order.push(key);
        await tick();
        finished.add(key);
      },
      { parallelism: 4 },
    );
    expect(order.indexOf('app')).toBeLessThan(order.indexOf('dest'));
    expect(order.indexOf('dest')).toBeLessThan(order.indexOf('assoc'));
  });

  it('never runs more than `parallelism` tasks at once', async () => {
    let running = 0;
    let peak = 0;
    const tasks = Array.from({ length: 12 }, (_, i) => ({ key: `t${i}`, after: [] }));
    await runInDependencyOrder(
      tasks,
      async () => {
        running += 1;
        peak = Math.max(peak, running);
        await tick();
        running -= 1;
      },
      { parallelism: 3 },
    );
    expect(peak).toBe(3);
  });

  it('skips what depends on a failed task and still runs independent work', async () => {
    const ran: string[] = [];
    const outcomes = await runInDependencyOrder(
      [
        { key: 'a', after: [] },
        { key: 'b', after: ['a'] },
        { key: 'c', after: ['b'] },
        { key: 'd', after: [] },
      ],
      (key) => {
        ran.push(key);
        return key === 'a' ? Promise.reject(new Error('boom')) : Promise.resolve();
      },
      { parallelism: 2 },
    );
    expect(ran.sort()).toEqual(['a', 'd']);
    expect(outcomes.map((o) => [o.key, o.status])).toEqual([
      ['a', 'failed'],
      ['b', 'skipped'],
      ['c', 'skipped'],
      ['d', 'succeeded'],
    ]);
  });

  it('starts nothing new once asked to stop, and lets running tasks finish', async () => {
    let stop = false;
    const ran: string[] = [];
    const outcomes = await runInDependencyOrder(
      [
        { key: 'a', after: [] },
        { key: 'b', after: ['a'] },
      ],
      async (key) => {
        ran.push(key);
        stop = true;
        await tick();
      },
      { parallelism: 1, shouldStop: () => stop },
    );
    expect(ran).toEqual(['a']);
    expect(outcomes[1]).toEqual({ key: 'b', status: 'skipped', reason: { kind: 'stopped' } });
  });

  it('reports a dependency cycle instead of waiting forever', async () => {
    await expect(
      runInDependencyOrder(
        [
          { key: 'a', after: ['b'] },
          { key: 'b', after: ['a'] },
        ],
        () => Promise.resolve(),
        { parallelism: 1 },
      ),
    ).rejects.toThrow(/dependency cycle: (a -> b -> a|b -> a -> b)/);
  });

  it('frees the slot while a task finishes, so recording a result never holds back the next request', async () => {
    const events: string[] = [];
    let releaseRecord!: () => void;
    const recordStarted = new Promise<void>((started) => {
      void runInDependencyOrder(
        [
          { key: 'a', after: [] },
          { key: 'b', after: [] },
        ],
        async (key) => {
          events.push(`request ${key}`);
          await tick();
          if (key === 'b') return undefined;
          return async () => {
            events.push('record a');
            started();
            await new Promise<void>((release) => (releaseRecord = release));
            events.push('recorded a');
          };
        },
        { parallelism: 1 },
      );
    });
    await recordStarted;
    await tick();
    await tick();
    // b's request ran in the only slot while a was still recording.
    expect([...events].sort()).toEqual(['record a', 'request a', 'request b']);
    releaseRecord();
  });

  it('starts dependents only once the finishing part succeeded, and skips them when it failed', async () => {
    const events: string[] = [];
    const outcomes = await runInDependencyOrder(
      [
        { key: 'a', after: [] },
        { key: 'b', after: ['a'] },
        { key: 'c', after: [] },
        { key: 'd', after: ['c'] },
      ],
      (key) => {
        events.push(`request ${key}`);
        return Promise.resolve(async () => {
          await tick();
          if (key === 'c') throw new Error('state write failed');
          events.push(`recorded ${key}`);
        });
      },
      { parallelism: 2 },
    );
    expect(events.indexOf('recorded a')).toBeLessThan(events.indexOf('request b'));
    expect(events).not.toContain('request d');
    expect(outcomes.map((o) => o.status)).toEqual(['succeeded', 'succeeded', 'failed', 'skipped']);
  });

  it('lets a finishing part take a slot again for more requests without waiting on itself', async () => {
    let inSlot = 0;
    let peak = 0;
    const outcomes = await runInDependencyOrder(
      Array.from({ length: 4 }, (_, i) => ({ key: `t${i}`, after: [] })),
      async () => {
        inSlot += 1;
        peak = Math.max(peak, inSlot);
        await tick();
        inSlot -= 1;
        return async (slot) => {
          await slot(async () => {
            inSlot += 1;
            peak = Math.max(peak, inSlot);
            await tick();
            inSlot -= 1;
          });
        };
      },
      { parallelism: 1 },
    );
    expect(outcomes.every((o) => o.status === 'succeeded')).toBe(true);
    expect(peak).toBe(1);
  });

  it("serves a finishing part's slot before the tasks still waiting to start", async () => {
    const requests: string[] = [];
    await runInDependencyOrder(
      ['a', 'b', 'c', 'd'].map((key) => ({ key, after: [] })),
      async (key) => {
        requests.push(key);
        await tick();
        if (key !== 'a') return undefined;
        return async (slot) => {
          await slot(async () => {
            requests.push('a again');
            await tick();
          });
        };
      },
      { parallelism: 1 },
    );
    // b took the slot a freed; a's second request goes before c and d, which were waiting all along.
    expect(requests).toEqual(['a', 'b', 'a again', 'c', 'd']);
  });
});
