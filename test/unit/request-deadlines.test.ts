/**
 * One timer watches every request's time limit (src/client/request-deadlines.ts): each request is aborted once its
 * own limit has passed, never before, and a request that ended is never aborted.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { RequestDeadlines } from '../../src/client/request-deadlines';

const REASON = new Error('request timeout');

function watch(deadline: { once(event: 'abort', listener: () => void): unknown }): { aborted: boolean } {
  const seen = { aborted: false };
  deadline.once('abort', () => (seen.aborted = true));
  return seen;
}

test('a request is aborted with the reason once its limit has passed, and a request that ended is not', async () => {
  const deadlines = new RequestDeadlines(60);
  const slow = deadlines.start(REASON);
  const quick = deadlines.start(REASON);
  const slowSeen = watch(slow);
  const quickSeen = watch(quick);
  await sleep(20);
  deadlines.end(quick);
  expect(slowSeen.aborted).toBe(false);
  await sleep(80);
  expect(slowSeen.aborted).toBe(true);
  expect(slow.aborted).toBe(true);
  expect(slow.reason).toBe(REASON);
  expect(quickSeen.aborted).toBe(false);
  expect(quick.aborted).toBe(false);
});

test('requests started at different times each get their whole limit', async () => {
  const deadlines = new RequestDeadlines(80);
  const first = deadlines.start(REASON);
  await sleep(50);
  const second = deadlines.start(REASON);
  await sleep(45);
  // 95 ms after the first, 45 ms after the second.
  expect(first.aborted).toBe(true);
  expect(second.aborted).toBe(false);
  await sleep(60);
  expect(second.aborted).toBe(true);
});

test('a request started after all others ended gets a fresh timer', async () => {
  const deadlines = new RequestDeadlines(40);
  deadlines.end(deadlines.start(REASON));
  await sleep(60);
  const later = deadlines.start(REASON);
  await sleep(20);
  expect(later.aborted).toBe(false);
  await sleep(50);
  expect(later.aborted).toBe(true);
});
