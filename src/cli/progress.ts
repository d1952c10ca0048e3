/**
 * Progress of a run. Refresh progress ("Refreshing 120/1000") is redrawn in place on stderr, and only on a
 * terminal: in a CI log it would be hundreds of lines of noise. Finished operations are results, not progress,
 * so they are printed on stdout everywhere ("prod/ldap/svc-role: created").
 */
import type { ProgressEvent } from '../engine/setup/engine-options';
import type { CliIo } from './io';

/** Redraw at most this often, so a fast refresh does not flood the terminal. */
const REDRAW_INTERVAL_MS = 100;

export interface ProgressReporter {
  onProgress: (event: ProgressEvent) => void;
  /** Clears a progress line still on screen; call before writing anything else. */
  finish(): void;
}

/** By operation label (see the engine's task graph): a replacement is a delete, then a create. */
const DONE_WORDS: Record<string, string> = {
  create: 'created',
  update: 'updated',
  delete: 'destroyed',
  'replace:delete': 'destroyed (to be re-created)',
  'replace:create': 'replaced',
};

export function createProgressReporter(io: CliIo, options: { showOperations: boolean }, now: () => number = Date.now): ProgressReporter {
  const onTerminal = io.stderr.isTTY === true;
  let lineShown = false;
  let lastDraw = 0;

  const clearLine = () => {
    if (!lineShown) return;
    io.stderr.write('\r\x1b[2K');
    lineShown = false;
  };

  return {
    onProgress(event) {
      if (event.kind === 'refresh') {
        if (!onTerminal) return;
        const complete = event.done >= event.total;
        if (!complete && now() - lastDraw < REDRAW_INTERVAL_MS) return;
        lastDraw = now();
        if (complete) {
          clearLine();
          return;
        }
        io.stderr.write(`\r\x1b[2KRefreshing ${event.done}/${event.total}`);
        lineShown = true;
        return;
      }
      // Failures and skips are reported once, after the run, with the summary.
      if (event.kind === 'operation-done' && event.status === 'succeeded' && options.showOperations) {
        clearLine();
        io.stdout.write(`${operationLine(event.address, event.action, event.status, event.message)}\n`);
      }
    },
    finish: clearLine,
  };
}

export function operationLine(address: string, action: string, status: 'succeeded' | 'failed' | 'skipped', message?: string): string {
  const reason = message ? `: ${message}` : '';
  if (status === 'succeeded') return `${address}: ${DONE_WORDS[action] ?? `${action} done`}${reason}`;
  if (status === 'failed') return `${address}: ${action} failed${reason}`;
  return `${address}: ${action} skipped${reason}`;
}
