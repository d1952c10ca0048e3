/**
 * Refresh: reads the live object of every resource of the run, at most `parallelism` requests at a time and at
 * most one request per resource. Identical read calls (the mount listing serves every mount, the per-secret
 * association lookup serves every association of that secret) are sent once and shared.
 *
 * A failure that concerns the whole run (wrong token, service unreachable, TLS) stops the refresh: the client
 * sends nothing after it, and it is reported once with its likely cause instead of once per resource.
 */
import { confirmService, notTheServiceMessage, recordServiceAnswer, runFailureMessage, type ServiceClient, type ServiceClientError } from '../../client';
import type { ProgressEvent } from '../setup/engine-options';
import { EngineError, fail, ok, type Result } from '../errors';
import { readOrder } from './read-order';
import { readVerdict } from './read-answer';
import { readCallOf } from './read-call';
import { ReadQueue } from './read-queue';
import type { AbsenceMeaning, LiveObject, RefreshRequest } from './refresh-request';

/** How many reads the refresh starts between two turns of the event loop. */
const REFRESH_SLICE = 500;

/**
 * Reads every requested object. An answer that does not look like its object fails that object's refresh (see
 * read-answer.ts); an object whose absence means something (`absenceMeans`: state records it, or an import
 * looks for it) and that reads as not there is called absent only once the run has proof that SERVICE_ADDR is
 * the service (a read that looked like its object, else one lookup of the token); without it the run stops with
 * an error naming SERVICE_ADDR, and nothing is called deleted or not found.
 */
export async function refresh(
  client: ServiceClient,
  requests: readonly RefreshRequest[],
  options: {
    parallelism: number;
    onProgress?: (event: ProgressEvent) => void;
    /** Called with each object as soon as it is read (the plan diffs it while other reads are on their way). */
    onRead?: (request: RefreshRequest, live: LiveObject) => void;
    /** Reads already sent for this run (a plan's read-ahead), on the same client; else a queue of its own. */
    reads?: ReadQueue;
  },
): Promise<Result<Map<string, LiveObject>>> {
  const reads = options.reads ?? new ReadQueue(client, options.parallelism);

  const total = requests.length;
  let done = 0;
  options.onProgress?.({ kind: 'refresh', done, total });
  const live = new Map<string, LiveObject>();
  const problems: string[] = [];
  /** Objects whose absence needs proof that read as not there: absent only once the service is confirmed. */
  const unconfirmed: Unconfirmed[] = [];
  const found = (request: RefreshRequest, object: LiveObject): void => {
    live.set(request.address, object);
    options.onRead?.(request, object);
  };
  let runFailure: ServiceClientError | undefined;
  // One promise per turn of the event loop, resolved in its check phase (setImmediate), shared by the answers of it.
  let nextCheck: Promise<void> | undefined;
  const checkPhase = (): Promise<void> =>
    (nextCheck ??= new Promise<void>((resolve) => {
      setImmediate(() => {
        nextCheck = undefined;
        resolve();
      });
    }));
  // What a read's handling threw (a bug, not an answer): thrown once every read has settled, so that no read's
  // promise rejects before all of them are awaited together.
  let thrown: { error: unknown } | undefined;
  const readOne = async (request: RefreshRequest): Promise<void> => {
    try {
      const call = readCallOf(request.resourceType, request.identity);
      const result = await reads.read(call);
      // Judged in the event loop's check phase, after every answer that arrived with this one has sent its next
      // read: judging (normalising the answer) between them held those reads back (PostgreSQL plan of 1,000 at
      // 10 ms: 1.332 -> 1.294 s; docs/performance.md).
      await checkPhase();
      if (!result.ok && result.error.status !== 404) {
        if (result.error.runFailure !== undefined) runFailure ??= result.error;
        else problems.push(`${request.address}: ${result.error.message}`);
      } else {
        const verdict = readVerdict(client, request, call, result);
        if (verdict.kind === 'invalid') problems.push(`${request.address}: ${verdict.problem}`);
        else if (verdict.kind === 'present') {
          recordServiceAnswer(client);
          found(request, verdict.object);
        } else if (request.absenceMeans !== undefined) unconfirmed.push({ request, object: verdict.object, how: verdict.how, means: request.absenceMeans });
        else found(request, verdict.object);
      }
      done += 1;
      options.onProgress?.({ kind: 'refresh', done, total });
    } catch (error) {
      thrown ??= { error };
    }
  };
  // Started a slice at a time, each after a turn of the event loop: the answers that arrive meanwhile (a plan's
  // reads went out ahead, read-ahead.ts) send their next reads, where starting 10,000 in one go held them for
  // about 30 ms.
  // In the read-ahead's order (one object of each type first: read-order.ts), which sent most of a plan's
  // reads already; the result is keyed by address, never by when an answer came.
  const ordered = readOrder(requests, (request) => request.resourceType.type);
  const settled: Promise<void>[] = [];
  for (let start = 0; start < ordered.length; start += REFRESH_SLICE) {
    if (start > 0) await new Promise((resolve) => setImmediate(resolve));
    for (const request of ordered.slice(start, start + REFRESH_SLICE)) settled.push(readOne(request));
  }
  await Promise.all(settled);
  if (thrown) throw thrown.error;
  runFailure = client.runFailure() ?? runFailure;
  if (runFailure) return fail(new EngineError('service_unusable', `refresh ${runFailureMessage(runFailure)}`));
  if (problems.length > 0) {
    problems.sort();
    return fail(new EngineError('service_error', `refresh failed for ${problems.length} resource${problems.length === 1 ? '' : 's'}:\n  ${problems.join('\n  ')}`));
  }
  if (unconfirmed.length > 0) {
    const identity = await confirmService(client);
    if (!identity.confirmed) return fail(notTheServiceError(client, unconfirmed, identity.answer));
    unconfirmed.sort((a, b) => (a.request.address < b.request.address ? -1 : 1));
    for (const { request, object } of unconfirmed) found(request, object);
  }
  return ok(live);
}

/** An object whose absence needs proof, read as not there (`how`: the answer that said so). */
interface Unconfirmed {
  request: RefreshRequest;
  object: LiveObject;
  how: string;
  means: AbsenceMeaning;
}

/** What a run does not conclude without proof, and how it counts the objects concerned, per meaning of an absence. */
const UNPROVEN: Readonly<Record<AbsenceMeaning, { conclusion: string; more: string }>> = {
  deleted: { conclusion: 'no object is taken as deleted', more: 'more recorded in state' },
  'not found': { conclusion: 'nothing is imported, nor reported as not on the service', more: 'more of the code' },
};

/** The run-level error of objects that read as not found where nothing shows that SERVICE_ADDR is the service. */
function notTheServiceError(client: ServiceClient, unconfirmed: readonly Unconfirmed[], answer: string): EngineError {
  const addresses = unconfirmed.map((entry) => entry.request.address).sort();
  const first = unconfirmed.find((entry) => entry.request.address === addresses[0])!;
  // A run reads objects of one meaning (plan, apply and destroy: recorded ones; import: the code's).
  const unproven = UNPROVEN[first.means];
  const which = addresses.length === 1 ? addresses[0] : `${addresses[0]} and ${addresses.length - 1} ${unproven.more}`;
  return new EngineError(
    'service_unusable',
    notTheServiceMessage(client, { run: 'refresh', conclusion: unproven.conclusion, absent: `${which} read as not there (${first.how})`, answer }),
  );
}
