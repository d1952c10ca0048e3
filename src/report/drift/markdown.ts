/**
 * The drift check as markdown, meant as the body of one issue per stack: each stack's section starts with its
 * marker line (`<!-- secretform:drift stack=NAME -->`, what a workflow finds the stack's issue by), then a status
 * line (icon and word), a table of the drifted objects, the acknowledgements, for each drifted field that is not
 * secret the construct prop that keeps the live value, and the commands that revert the drift or accept it.
 */
import { findResourceType } from '../../resources/registry';
import type { DriftedObject, StackDriftCheck } from '../../engine/drift/drift-check';
import { codeFence, escapeInline, inlineCode, tableCode } from '../markdown-escape';
import { formatValue } from '../values';
import { driftTotals, STATUS_WORDS, stackStatus, totalsPhrase, type StackDriftOutcome, type StackStatus } from './drift-view';
import { isMasked } from './text';

const ICONS: Readonly<Record<StackStatus, string>> = { no_drift: '✅', known_drift: '🟡', new_drift: '🔴', drift: '⚠️', error: '❌' };

export function driftMarker(stack: string): string {
  return `<!-- secretform:drift stack=${stack} -->`;
}

export function renderDriftMarkdown(outcomes: readonly StackDriftOutcome[], checkedAt: string): string {
  return `${outcomes.map((outcome) => stackSection(outcome, checkedAt)).join('\n---\n\n')}`;
}

function stackSection(outcome: StackDriftOutcome, checkedAt: string): string {
  const status = stackStatus(outcome);
  const lines = [driftMarker(outcome.stack), `## ${ICONS[status]} ${capitalise(STATUS_WORDS[status])}: stack ${inlineCode(outcome.stack)}`, ''];
  if (!('check' in outcome)) {
    lines.push(`The check failed: ${escapeInline(outcome.error)}`, '');
    return `${lines.join('\n')}\n`;
  }
  const { check } = outcome;
  lines.push(`Checked ${escapeInline(checkedAt)}: ${escapeInline(totalsPhrase(driftTotals([outcome])))}.`, '');
  if (check.historyProblem) lines.push(`> [!WARNING]`, `> No statuses: ${escapeInline(check.historyProblem.message)}`, '');
  if (check.drifted.length > 0) {
    lines.push('| Address | Type | What drifted | Status | Since | Checks | Episodes |', '|---|---|---|---|---|---|---|');
    for (const object of check.drifted) lines.push(tableRow(object));
    lines.push('');
  } else {
    lines.push('Every managed object matches its last apply.', '');
  }
  const acknowledged = check.drifted.filter((object) => object.acknowledgement !== null);
  if (acknowledged.length > 0) {
    lines.push('### Acknowledgements', '');
    for (const object of acknowledged) {
      const ack = object.acknowledgement!;
      lines.push(`- ${inlineCode(object.entry.address)}: by ${escapeInline(ack.by)} on ${escapeInline(ack.at)}, ${ack.until ? `until ${escapeInline(ack.until)}${ack.expired ? ' (**expired**)' : ''}` : 'until the drift changes'}: ${escapeInline(ack.reason)}`);
    }
    lines.push('');
  }
  const keep = keepInCode(check);
  if (keep.length > 0) lines.push('### Keep the live value in code', '', 'To keep what is on the service now, set these props (values in the service\'s form):', '', ...keep, '');
  if (check.drifted.length > 0) {
    lines.push('### Revert or accept', '');
    for (const object of check.drifted) {
      lines.push(`- ${inlineCode(object.entry.address)}: revert with ${inlineCode(`secretform apply --stack ${check.stack} --target ${object.entry.address}`)}`);
    }
    lines.push(`- Accept the live values without changing code: ${inlineCode(`secretform apply --stack ${check.stack} --refresh-only`)} records them as applied (the next plan then offers to put the code's values back until the code is changed).`, '');
  }
  if (check.pending.length > 0) {
    lines.push('### Pending (merged, not applied; not drift)', '');
    for (const change of check.pending) lines.push(`- ${change.action} ${inlineCode(change.address)}${change.fields.length > 0 ? `: ${change.fields.map(inlineCode).join(', ')}` : ''}`);
    lines.push('');
  }
  if (check.resolved.length > 0) {
    lines.push('### Resolved since the previous check', '');
    for (const object of check.resolved) lines.push(`- ${inlineCode(object.address)}: drifted since ${escapeInline(object.since)}, ${object.checks} checks`);
    lines.push('');
  }
  return `${lines.join('\n')}\n`;
}

function tableRow(object: DriftedObject): string {
  const { entry } = object;
  const what = entry.kind === 'deleted' ? 'deleted outside secretform' : entry.fields.length > 0 ? entry.fields.map((field) => tableCode(field.field)).join(', ') : escapeInline(entry.kind);
  const cell = (value: string | number | null) => (value === null ? '-' : escapeInline(String(value)));
  return `| ${tableCode(entry.address)} | ${tableCode(entry.type)} | ${what} | ${cell(object.status)} | ${cell(object.since)} | ${cell(object.checks)} | ${cell(object.episodes)} |`;
}

/** Per drifted object, the construct's props set to the live values (secret fields never: they show no value). */
function keepInCode(check: StackDriftCheck): string[] {
  const lines: string[] = [];
  for (const object of check.drifted) {
    const { entry } = object;
    const resourceType = findResourceType(entry.type);
    const fields = entry.fields.filter((field) => !isMasked(field.live));
    if (entry.kind !== 'changed' || fields.length === 0 || resourceType === undefined) continue;
    const props = fields.map((field) => `  ${resourceType.fields.find((spec) => spec.api === field.field)?.prop ?? field.field}: ${formatValue(field.live)},`);
    const id = entry.address.slice(check.stack.length + 1);
    const block = [`new ${resourceType.construct}(this, ${JSON.stringify(id)}, {`, '  // ...its other props, as they are', ...props, '});'];
    const fence = codeFence(block);
    lines.push(`${fence}ts`, ...block, fence);
  }
  return lines;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
