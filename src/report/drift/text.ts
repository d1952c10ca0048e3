/**
 * The drift check as text: a status line and the totals under it, then per stack the drifted objects (status,
 * since on a line of its own, fields with their applied and live values), the pending changes and the resolved
 * objects. A masked field shows only that it differs. Its lines fit an 80-column terminal or CI log where the
 * address allows: the time stamps, 24 characters each, go on lines of their own.
 */
import { formatChange } from '../values';
import type { DriftedObject } from '../../engine/drift/drift-check';
import { driftTotals, runStatus, STATUS_WORDS, stackStatus, totalsPhrase, type StackDriftOutcome } from './drift-view';

export function renderDriftText(outcomes: readonly StackDriftOutcome[], checkedAt: string): string {
  const lines: string[] = [];
  const totals = driftTotals(outcomes);
  lines.push(`Drift check at ${checkedAt}: ${STATUS_WORDS[runStatus(outcomes)]}`, totalsPhrase(totals));
  for (const outcome of outcomes) {
    lines.push('', `== stack ${outcome.stack}: ${STATUS_WORDS[stackStatus(outcome)]}`);
    if (!('check' in outcome)) {
      lines.push(`  ${outcome.error}`);
      continue;
    }
    const { check } = outcome;
    if (check.historyProblem) lines.push(`  (no statuses: ${check.historyProblem.message})`);
    if (check.drifted.length === 0) lines.push('  Every managed object matches its last apply.');
    for (const object of check.drifted) lines.push(...objectLines(object));
    if (check.pending.length > 0) {
      lines.push('  Pending (the code differs from the last apply; not drift):');
      for (const change of check.pending) lines.push(`    ${change.action} ${change.address}${change.fields.length > 0 ? `: ${change.fields.join(', ')}` : ''}`);
    }
    if (check.resolved.length > 0) {
      lines.push('  Resolved (drifted at the previous check, in sync now):');
      for (const object of check.resolved) lines.push(`    ${object.address} (drifted since ${object.since}, ${plural(object.checks, 'check')})`);
    }
    if (!check.recorded && !check.historyProblem) lines.push('  (not recorded: --no-record)');
  }
  return `${lines.join('\n')}\n`;
}

function objectLines(object: DriftedObject): string[] {
  const { entry } = object;
  const status = object.status ?? 'drifted';
  const lines = [`  ${status.padEnd(12)} ${entry.address} (${entry.type}) ${entry.kind === 'deleted' ? 'deleted outside secretform' : entry.kind}`];
  // Under the address, where the status column ends.
  if (object.since !== null) lines.push(`${' '.repeat(15)}since ${object.since} (${plural(object.checks ?? 0, 'check')}, episode ${object.episodes})`);
  for (const field of entry.fields) lines.push(`      ~ ${field.field} = ${isMasked(field.live) ? '(sensitive, differs)' : formatChange(field.applied, field.live)}`);
  if (entry.detail !== undefined) lines.push(`      ${entry.health?.label ?? 'status'}: ${entry.detail}`);
  const ack = object.acknowledgement;
  if (ack) lines.push(`      acknowledged by ${ack.by} at ${ack.at}${ack.until ? ` until ${ack.until}` : ''}${ack.expired ? ' (expired)' : ''}: ${ack.reason}`);
  return lines;
}

export function isMasked(value: unknown): boolean {
  return typeof value === 'string' && value.startsWith('(sensitive');
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}
