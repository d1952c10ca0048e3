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
});
