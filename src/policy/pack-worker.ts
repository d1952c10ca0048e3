/**
 * The pack host's worker thread: imports the pack files and runs their checks (pack-host.ts says why it is a
 * worker inside a child process). One request at a time, as the host process sends them. Before each import and
 * each check it writes where it is to the shared position, which the host process reads when the deadline
 * passes or this thread ends.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { checkOutcomeOf } from './check-outcome';
import { deepFreeze } from '../deep-freeze';
import { importPack } from './pack-module';
import { NOWHERE, POSITION_SLOTS, type HostAnswerMessage, type HostRequest, type PolicyDescription } from './pack-host-protocol';
import type { Policy, PolicyResource } from './policy';

const port = parentPort!;
const position = new Int32Array((workerData as { position: SharedArrayBuffer }).position);
const policies: Policy[] = [];

function at(pack: number, policy: number, resource: number): void {
  Atomics.store(position, POSITION_SLOTS.pack, pack);
  Atomics.store(position, POSITION_SLOTS.policy, policy);
  Atomics.store(position, POSITION_SLOTS.resource, resource);
}

const send = (message: HostAnswerMessage): void => port.postMessage(message);

async function load(packs: string[], cwd: string): Promise<void> {
  const described: PolicyDescription[] = [];
  for (const [index, pack] of packs.entries()) {
    at(index, NOWHERE, NOWHERE);
    try {
      for (const policy of await waitingOnly(() => importPack(pack, cwd))) {
        policies.push(policy);
        const { id, description, enforcement, resourceTypes } = policy;
        described.push({ pack: index, id, description, enforcement, ...(resourceTypes !== undefined ? { resourceTypes: [...resourceTypes] } : {}) });
      }
    } catch (error) {
      send({ kind: 'failed', id: null, why: 'load', pack: index, detail: error instanceof Error ? error.message : String(error) });
      return;
    }
  }
  at(NOWHERE, NOWHERE, NOWHERE);
  send({ kind: 'loaded', policies: described });
}

async function evaluate(id: number, resources: readonly PolicyResource[]): Promise<void> {
  const checks: [number, number, { message: string; field?: string }[]][] = [];
  for (const [resourceIndex, resource] of resources.entries()) {
    // Frozen as in-process views are: one policy cannot change what the next one sees.
    deepFreeze(resource);
    for (const [policyIndex, policy] of policies.entries()) {
      if (policy.resourceTypes !== undefined && !policy.resourceTypes.includes(resource.type)) continue;
      at(NOWHERE, policyIndex, resourceIndex);
      let returned: unknown;
      try {
        returned = await waitingOnly(() => policy.check(resource));
      } catch (error) {
        send({ kind: 'failed', id, why: 'threw', policy: policyIndex, resource: resourceIndex, detail: error instanceof Error ? error.message : String(error) });
        return;
      }
      const outcome = checkOutcomeOf(returned);
      if (!outcome.ok) {
        send({ kind: 'failed', id, why: 'returned', policy: policyIndex, resource: resourceIndex, detail: outcome.problem });
        return;
      }
      checks.push([resourceIndex, policyIndex, outcome.violations]);
    }
  }
  at(NOWHERE, NOWHERE, NOWHERE);
  send({ kind: 'evaluated', id, checks });
}

/**
 * Runs pack code with the port not keeping this thread alive: a promise that can never settle (nothing left
 * that could settle it) then ends the thread at once, and the host process reports the check it was on, rather
 * than waiting for the deadline.
 */
async function waitingOnly<T>(run: () => T | Promise<T>): Promise<T> {
  port.unref();
  try {
    return await run();
  } finally {
    port.ref();
  }
}

port.on('message', (request: HostRequest) => {
  if (request.kind === 'load') void load(request.packs, request.cwd);
  else void evaluate(request.id, request.resources);
});
