/**
 * A plan's reads sent while its state is still being read. The read of every object the code describes depends on
 * the code alone (its identity is the desired spec), so `plan` sends them as soon as the desired state is loaded,
 * and the state (a PostgreSQL round trip, or a large file to parse) is read while they are on their way; the
 * refresh then shares their answers (read-queue.ts) and adds the reads of what only state records.
 *
 * Only for a read-only plan of the whole stack: `--target` reads a selection that needs the state to compute, and
 * apply/destroy read under the state's lock, never before it. When secrets cannot be resolved or the client not
 * made, nothing is sent ahead, and the run reports those errors in its usual order, after the state's.
 */
import type { ServiceClient } from '../../client';
import { getResourceType } from '../../resources/registry';
import { readCallOf } from '../refresh/read-call';
import { ReadQueue } from '../refresh/read-queue';
import { readOrder } from '../refresh/read-order';
import { clientFor, resolveRunSecrets, runFingerprintKey, type RunContext } from '../setup/run-context';
import type { ResolvedSecrets } from '../setup/secret-resolution';
import type { FingerprintKey } from '../state/fingerprint';
import { openStateBackend } from '../state/open-backend';
import type { StateFile } from '../state/state-file';
import type { Result } from '../errors';

export interface ReadAhead {
  secrets: ResolvedSecrets;
  client: ServiceClient;
  reads: ReadQueue;
  /** Read from the service (or the state backend) while the rest runs; the diff of a secret waits for it. */
  fingerprintKey: Promise<FingerprintKey>;
  /** The run's state, read over the backend the key is read from (one PostgreSQL connection for both). */
  readState(): Promise<Result<StateFile>>;
  /** Closes that backend once the key is read (or failed); call when the run no longer needs either. */
  release(): Promise<void>;
}

/** How many reads are queued between two turns of the event loop (a few ms of work each at most). */
const READ_AHEAD_SLICE = 250;

export async function startReadAhead(context: RunContext): Promise<ReadAhead | undefined> {
  if ((context.options.targets ?? []).length > 0) return undefined;
  const secrets = await resolveRunSecrets(context, 'apply');
  if (!secrets.ok) return undefined;
  const client = clientFor(context, secrets.value);
  if (!client.ok) return undefined;
  const reads = new ReadQueue(client.value, context.parallelism);
  // One object of each type first, then by address (read-order.ts): the code judging the answers compiles once.
  const resources = readOrder(context.desired.resources, (resource) => resource.type);
  // A slice at a time, each followed by a turn of the event loop: the connections open and the first reads go
  // out at once, and the answers that arrive meanwhile send the next ones, where queueing all 10,000 of a large
  // plan in one go held the first answers (and so every next read) for about 60 ms.
  let start = 0;
  do {
    for (const resource of resources.slice(start, start + READ_AHEAD_SLICE)) void reads.read(readCallOf(getResourceType(resource.type), resource.spec));
    start += READ_AHEAD_SLICE;
    // After the last slice too: the state backend's module is loaded and the state parsed after it (synchronous
    // work of tens of ms), when the reads are on their way.
    await new Promise((resolve) => setImmediate(resolve));
  } while (start < resources.length);
  const backend = openStateBackend(context.stateLocation, context.stack);
  const fingerprintKey = runFingerprintKey(context, client.value, 'read', backend);
  // A run that stops before the diff (a state that cannot be read) never awaits it.
  fingerprintKey.catch(() => undefined);
  return {
    secrets: secrets.value,
    client: client.value,
    reads,
    fingerprintKey,
    // A backend that keeps the key (PostgreSQL) reads the state after the key's query, never beside it: on one
    // connection, a key query that fails (a role without access to the key's table) inside the state read's
    // transaction would abort that transaction.
    readState: async () => {
      if (backend.fingerprintKeySource !== undefined) await fingerprintKey.catch(() => undefined);
      return backend.read();
    },
    release: async () => {
      await fingerprintKey.catch(() => undefined);
      await backend.close();
    },
  };
}
