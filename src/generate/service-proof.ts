/**
 * Whether generate may conclude that what it did not find is not on the service. Discovery takes a listing that
 * answered 404 as an empty area (the service answers a LIST with no entries so), and the app it writes says that
 * what it leaves out does not exist. Another HTTP server answers 404 to every path too, and so does the service
 * itself when SERVICE_ADDR ends in /v1 ("no handler for route"): without proof, a wrong address gave an empty or
 * partial app and exit 0. The proof is the one refresh uses (client/service-identity.ts): some object read back
 * as itself (on the service the sync configuration always does, so no request is added), else one token lookup.
 */
import { confirmService, notTheServiceMessage, type ServiceClient } from '../client';
import { EngineError, fail, ok, type Result } from '../engine/errors';

/** A listing discovery read as empty: its path, and the answer that said so (see `notFoundAnswer`). */
export interface EmptyListing {
  readonly path: string;
  readonly how: string;
}

/**
 * Nothing, once the run knows it talks to the service; otherwise the error that stops generate before it writes
 * anything, naming SERVICE_ADDR, what read as empty and the fix.
 */
export async function serviceProven(client: ServiceClient, emptyListings: readonly EmptyListing[]): Promise<Result<void>> {
  const identity = await confirmService(client);
  if (identity.confirmed) return ok(undefined);
  const sorted = [...emptyListings].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const first = sorted[0];
  const absent =
    first === undefined
      ? 'Nothing it read looked like an object of the service'
      : `The listing ${first.path}${sorted.length > 1 ? ` and ${sorted.length - 1} more` : ''} read as empty (${first.how})`;
  return fail(
    new EngineError(
      'service_unusable',
      notTheServiceMessage(client, { run: 'generate', conclusion: 'no area is taken as empty and nothing is written', absent, answer: identity.answer }),
    ),
  );
}
