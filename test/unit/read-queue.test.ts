/**
 * The run's read queue: at most `parallelism` requests at a time, sent in the order asked, each distinct read sent
 * once. The client is a stand-in that records what is sent and answers when the test says so.
 */
import type { ServiceClient, ServiceResult } from '../../src/client';
import { ReadQueue } from '../../src/engine/refresh/read-queue';
import type { ApiCall } from '../../src/resources/types';

interface Sent {
  path: string;
  query: Record<string, string> | undefined;
  answer: (result: ServiceResult) => void;
  fail: (error: Error) => void;
}

function recordingClient(): { client: ServiceClient; sent: Sent[]; inFlight: () => number; maxInFlight: () => number } {
  const sent: Sent[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const client = {
    request(_method: string, path: string, options: { query?: Record<string, string> }) {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      return new Promise<ServiceResult>((resolve, reject) => {
        const settle = () => inFlight--;
        sent.push({ path, query: options.query, answer: (result) => { settle(); resolve(result); }, fail: (error) => { settle(); reject(error); } });
      });
    },
  } as unknown as ServiceClient;
  return { client, sent, inFlight: () => inFlight, maxInFlight: () => maxInFlight };
}

const read = (path: string, query?: Record<string, string>): ApiCall => ({ method: 'GET', path, ...(query ? { query } : {}) });
const answer = (path: string): ServiceResult => ({ ok: true, status: 200, data: { path }, raw: { data: { path } }, warnings: [] });
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('ReadQueue', () => {
  test('sends at most `parallelism` reads at a time, in the order they were asked for', async () => {
    const { client, sent, maxInFlight } = recordingClient();
    const queue = new ReadQueue(client, 3);
    const paths = Array.from({ length: 10 }, (_, i) => `secret/data/app-${i}`);
    const answers = paths.map((path) => queue.read(read(path)));
    expect(sent.map((s) => s.path)).toEqual(paths.slice(0, 3));
    // Answer out of order (the newest read in flight first): each answer frees one slot for the next read.
    const answered = new Set<string>();
    for (let open = sent; open.length > 0; open = sent.filter((s) => !answered.has(s.path))) {
      const newest = open[open.length - 1];
      answered.add(newest.path);
      newest.answer(answer(newest.path));
      await settle();
    }
    expect(sent.map((s) => s.path)).toEqual(paths);
    expect(maxInFlight()).toBe(3);
    expect(await Promise.all(answers)).toEqual(paths.map(answer));
  });

  test('sends a read asked for twice once, and gives both askers its answer (query keys in any order)', async () => {
    const { client, sent } = recordingClient();
    const queue = new ReadQueue(client, 10);
    const first = queue.read(read('sys/sync/associations', { a: '1', b: '2' }));
    const second = queue.read(read('sys/sync/associations', { b: '2', a: '1' }));
    const other = queue.read(read('sys/sync/associations', { a: '1', b: '3' }));
    expect(sent.map((s) => s.query)).toEqual([{ a: '1', b: '2' }, { a: '1', b: '3' }]);
    sent[0].answer(answer('one'));
    sent[1].answer(answer('other'));
    expect(await first).toEqual(answer('one'));
    expect(await second).toBe(await first);
    expect(await other).toEqual(answer('other'));
  });

  test('a request that throws fails its own read only; the reads after it are still sent', async () => {
    const { client, sent } = recordingClient();
    const queue = new ReadQueue(client, 1);
    const broken = queue.read(read('a'));
    const after = queue.read(read('b'));
    expect(sent.map((s) => s.path)).toEqual(['a']);
    sent[0].fail(new Error('internal error in the client'));
    await expect(broken).rejects.toThrow('internal error in the client');
    await settle();
    expect(sent.map((s) => s.path)).toEqual(['a', 'b']);
    sent[1].answer(answer('b'));
    expect(await after).toEqual(answer('b'));
  });

  test('a parallelism below 1 sends one read at a time', async () => {
    const { client, sent } = recordingClient();
    const queue = new ReadQueue(client, 0);
    void queue.read(read('a'));
    void queue.read(read('b'));
    expect(sent.map((s) => s.path)).toEqual(['a']);
    sent[0].answer(answer('a'));
    await settle();
    expect(sent.map((s) => s.path)).toEqual(['a', 'b']);
  });
});
