/** Objects read wait for the check phase to be diffed together; a flush diffs what waits and reports a failure. */
import { DiffBatch } from '../../src/engine/plan/diff-batch';
import type { LiveObject, RefreshRequest } from '../../src/engine/refresh/refresh-request';

const read = (address: string) => [{ address } as RefreshRequest, { attributes: {}, data: null } as LiveObject] as const;

test('objects added in one turn of the event loop are diffed together in its check phase, not as they come', async () => {
  const diffed: string[] = [];
  const batch = new DiffBatch((request) => diffed.push(request.address));
  batch.add(...read('a'));
  batch.add(...read('b'));
  expect(diffed).toEqual([]);
  await new Promise((done) => setImmediate(done));
  expect(diffed).toEqual(['a', 'b']);
  batch.add(...read('c'));
  batch.flush();
  expect(diffed).toEqual(['a', 'b', 'c']);
  // Nothing left for the check phase after a flush.
  await new Promise((done) => setImmediate(done));
  expect(diffed).toEqual(['a', 'b', 'c']);
});

test('a diff that throws in the check phase is thrown again by flush, and does not escape to the event loop', async () => {
  const batch = new DiffBatch((request) => {
    if (request.address === 'bad') throw new Error('bad: neither in code nor in state');
  });
  batch.add(...read('bad'));
  await new Promise((done) => setImmediate(done));
  expect(() => batch.flush()).toThrow('bad: neither in code nor in state');
});
