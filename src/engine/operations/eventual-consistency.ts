/** Calls the service may briefly refuse after a root rotation, while the new credential propagates. */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ServiceResult } from '../../client';

/** How long such a call is retried before its failure is reported. */
export const EVENTUAL_CONSISTENCY_LIMIT_MS = 30_000;
const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 4_000;

/**
 * After a rotation the service may refuse for a few seconds while the new credential propagates (the document
 * says so): a server error is retried with growing waits, up to EVENTUAL_CONSISTENCY_LIMIT_MS; anything else, or
 * a success, ends at once.
 */
export async function retryWhileSettling(send: () => Promise<ServiceResult>): Promise<ServiceResult> {
  const deadline = Date.now() + EVENTUAL_CONSISTENCY_LIMIT_MS;
  let delay = FIRST_DELAY_MS;
  for (;;) {
    const result = await send();
    if (result.ok || result.error.status === undefined || result.error.status < 500 || result.error.runFailure !== undefined) return result;
    if (Date.now() + delay > deadline) return result;
    await sleep(delay);
    delay = Math.min(delay * 2, MAX_DELAY_MS);
  }
}

