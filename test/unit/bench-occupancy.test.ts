/**
 * The fleet bench's occupancy of a dev server (bench/dev-server-messages.ts): its requests in flight sampled on a
 * timer, taken as the mean, the share of samples with none and when the first request came, each take starting
 * a new measure; and the line the bench prints of it (bench/fleet.ts).
 */
import { occupancySampler } from '../../bench/dev-server-messages';
import { occupancyText } from '../../bench/fleet';

describe('occupancySampler', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  test('the mean in flight, the idle share and the first busy sample since the last take', () => {
    let inFlight = 0;
    const sampler = occupancySampler(() => inFlight);
    try {
      // 4 samples idle, then 4 with 10 in flight, then 2 with 5.
      jest.advanceTimersByTime(20);
      inFlight = 10;
      jest.advanceTimersByTime(20);
      inFlight = 5;
      jest.advanceTimersByTime(10);
      const taken = sampler.take();
      expect(taken.mean).toBeCloseTo((4 * 10 + 2 * 5) / 10);
      expect(taken.idleShare).toBeCloseTo(0.4);
      expect(taken.firstBusyMs).toBe(25);
      // A take starts a new measure.
      inFlight = 0;
      jest.advanceTimersByTime(10);
      expect(sampler.take()).toEqual({ mean: 0, idleShare: 1 });
    } finally {
      sampler.stop();
    }
  });

  test('a take with no sample yet counts as idle; stop ends the sampling', () => {
    let calls = 0;
    const sampler = occupancySampler(() => ++calls);
    expect(sampler.take()).toEqual({ mean: 0, idleShare: 1 });
    sampler.stop();
    jest.advanceTimersByTime(100);
    expect(calls).toBe(0);
  });
});

test('occupancyText: each server in one line, a server that saw no request without a first one', () => {
  expect(occupancyText([{ mean: 4.25, idleShare: 0.354, firstBusyMs: 1570 }, { mean: 0, idleShare: 1 }]))
    .toBe('mean in flight 4.3/0.0, idle 35%/100%, first request after 1.57/- s');
});
