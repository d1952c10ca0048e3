/**
 * Refresh: reads the live object of every resource of the run, at most `parallelism` requests at a time and at
 * most one request per resource. Identical read calls (the mount listing serves every mount, the per-secret
 * association lookup serves every association of that secret) are sent once and shared.
 *
 * A failure that concerns the whole run (wrong token, service unreachable, TLS) stops the refresh: the client
 * sends nothing after it, and it is reported once with its likely cause instead of once per resource.
 */
import pLimit from 'p-limit';
import { runFailureMessage, type ServiceClient, type ServiceClientError } from '../../client';
import { unwrapData } from '../../resources/define';
import type { ApiCall, Attributes, ResourceType } from '../../resources/types';
import type { ProgressEvent } from '../setup/engine-options';
import { EngineError, fail, ok, type Result } from '../errors';

export interface RefreshRequest {
  address: string;
  resourceType: ResourceType;
  /** A spec holding the object's identity fields (the desired spec, or the attributes recorded in state). */
  identity: Attributes;
  /** The forms to read into: the desired spec, or the attributes last applied (see `refreshRequestFor`). */
  desired?: Attributes;
}

export interface LiveObject {
  /** Canonical non-secret attributes, or null when the object does not exist. */
  attributes: Attributes | null;
  /** The server's answer unwrapped from its envelope (for values outside the model, e.g. a key fingerprint). */
  data: Record<string, unknown> | null;
  /** What the service warned about while reading it (envelope `warnings`, secrets removed). */
  warnings?: string[];
}

/**
 * The read of one resource, built the same way by every command (plan, apply, destroy, import), so that a live
 * object is normalised into one form whatever the command: the identity is the object the run works on (the
 * code's, else the one state recorded); the forms the read picks between server-filled equivalents (a cloud role
 * given by name is read back with its id too) are the code's when the code manages that object, else the ones
 * last applied.
 */
export function refreshRequestFor(
  address: string,
  resourceType: ResourceType,
  sources: { desired?: Attributes; desiredId?: string; recorded?: { id: string; attributes: Attributes }; identity: 'desired' | 'recorded' },
): RefreshRequest {
  const { desired, recorded } = sources;
  const identity = sources.identity === 'desired' && desired ? desired : recorded?.attributes ?? desired;
  if (!identity) throw new Error(`${address}: neither in code nor in state`);
  const codeManagesIt = desired !== undefined && (recorded === undefined || sources.identity === 'desired' || recorded.id === sources.desiredId);
  const forms = codeManagesIt ? desired : recorded?.attributes;
  return { address, resourceType, identity, desired: forms };
}

type ReadAnswer = { ok: true; raw: unknown; warnings: string[] } | { ok: false; message: string; error: ServiceClientError };

export async function refresh(
  client: ServiceClient,
  requests: readonly RefreshRequest[],
  options: {
    parallelism: number;
    onProgress?: (event: ProgressEvent) => void;
    /** Called with each object as soon as it is read (the plan diffs it while other reads are on their way). */
    onRead?: (request: RefreshRequest, live: LiveObject) => void;
  },
): Promise<Result<Map<string, LiveObject>>> {
  const limit = pLimit(Math.max(1, options.parallelism));
  const reads = new Map<string, Promise<ReadAnswer>>();
  const read = (call: ApiCall): Promise<ReadAnswer> => {
    const key = callKey(call);
    let pending = reads.get(key);
    if (!pending) {
      pending = limit(async (): Promise<ReadAnswer> => {
        const result = await client.request(call.method, call.path, { query: call.query });
        if (result.ok) return { ok: true, raw: result.raw, warnings: result.warnings };
        if (result.error.status === 404) return { ok: true, raw: undefined, warnings: [] }; // 404 on refresh means gone
        return { ok: false, message: result.error.message, error: result.error };
      });
      reads.set(key, pending);
    }
    return pending;
  };

  const total = requests.length;
  let done = 0;
  options.onProgress?.({ kind: 'refresh', done, total });
  const live = new Map<string, LiveObject>();
  const problems: string[] = [];
  let runFailure: ServiceClientError | undefined;
  await Promise.all(
    requests.map(async (request) => {
      const answer = await read(request.resourceType.api(request.identity).read);
      if (!answer.ok) {
        if (answer.error.runFailure !== undefined) runFailure ??= answer.error;
        else problems.push(`${request.address}: ${answer.message}`);
      } else {
        let object: LiveObject | undefined;
        try {
          const attributes = answer.raw === undefined ? null : request.resourceType.normaliseRead(answer.raw, request.identity, request.desired);
          object = { attributes, data: attributes === null ? null : unwrapData(answer.raw), warnings: answer.warnings };
        } catch (error) {
          problems.push(`${request.address}: cannot interpret the server's answer: ${client.scrub((error as Error).message)}`);
        }
        if (object) {
          live.set(request.address, object);
          options.onRead?.(request, object);
        }
      }
      done += 1;
      options.onProgress?.({ kind: 'refresh', done, total });
    }),
  );
  runFailure = client.runFailure() ?? runFailure;
  if (runFailure) return fail(new EngineError('service_unusable', `refresh ${runFailureMessage(runFailure)}`));
  if (problems.length > 0) {
    problems.sort();
    return fail(new EngineError('service_error', `refresh failed for ${problems.length} resource${problems.length === 1 ? '' : 's'}:\n  ${problems.join('\n  ')}`));
  }
  return ok(live);
}

function callKey(call: ApiCall): string {
  const query = Object.entries(call.query ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `${call.method} ${call.path} ${JSON.stringify(query)}`;
}
