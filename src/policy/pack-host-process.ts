/**
 * The pack host process (started by pack-host.ts with the synth child's environment): runs the worker that
 * imports the packs and runs their checks, and watches it. This thread runs no pack code, so it always answers:
 * it enforces the deadline of each request (the worker is stopped, the check it was on reported), reports a
 * worker that ended in the middle of a request, and ends itself when secretform goes away (its channel closes),
 * so a check that loops never outlives the run.
 */
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { NOWHERE, positionOf, type HostAnswerMessage, type HostRequest } from './pack-host-protocol';

const position = new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT);
const slots = new Int32Array(position).fill(NOWHERE);
const worker = new Worker(path.join(__dirname, 'pack-worker.js'), { workerData: { position } });

/** The request the worker is on, and its deadline. */
let current: { id: number | null; timer: NodeJS.Timeout } | undefined;
let workerError: string | undefined;
/** Set once a failure is being reported: the worker's end is then expected. */
let ending = false;

function send(message: HostAnswerMessage, then?: () => void): void {
  process.send?.(message, undefined, {}, () => then?.());
}

/** Reports the request in flight as failed where the worker is, then ends: the worker cannot be trusted to go on. */
function failCurrent(why: 'timeout' | 'ended', detail: string): void {
  ending = true;
  const id = current?.id ?? null;
  if (current) clearTimeout(current.timer);
  current = undefined;
  const where = positionOf(slots);
  // The worker first (it may be in a loop: terminate stops it), then the report, then the end.
  void worker.terminate().finally(() => send({ kind: 'failed', id, why, detail, ...where }, () => process.exit(1)));
}

process.on('message', (request: HostRequest) => {
  if (current !== undefined || ending) return;
  const id = request.kind === 'evaluate' ? request.id : null;
  current = { id, timer: setTimeout(() => failCurrent('timeout', 'no answer within the deadline'), request.timeoutMs) };
  worker.postMessage(request);
});

worker.on('message', (message: HostAnswerMessage) => {
  // Only an answer to the request in flight ends it; anything else the pack's code posts is passed on for
  // secretform to judge (it reads every answer as untrusted input).
  const answers = message.kind === 'loaded' ? null : (message as { id?: unknown }).id;
  if (current !== undefined && answers === current.id && ['loaded', 'evaluated', 'failed'].includes(message.kind)) {
    clearTimeout(current.timer);
    current = undefined;
  }
  send(message);
});

worker.on('error', (error) => {
  workerError = error instanceof Error ? error.message : String(error);
});

worker.on('exit', (code) => {
  if (ending) return;
  if (current === undefined) {
    process.exit(code === 0 ? 0 : 1);
    return;
  }
  // Ended in the middle of a request: an error thrown where nothing catches it, `process.exit` in pack code, or
  // (exit code 0) nothing left to run while a check waited on its promise: that promise can never settle.
  const detail = workerError !== undefined
    ? `the pack's code failed outside the check: ${workerError}`
    : code === 0
      ? 'check returned a promise that can never settle (nothing was left to run that could settle it)'
      : `the pack's code ended its thread (exit code ${code})`;
  failCurrent('ended', detail);
});

// secretform went away (it ended, or stopped this host): stop everything, a check in flight included.
process.on('disconnect', () => process.exit(0));
