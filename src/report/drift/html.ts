/**
 * The drift dashboard (`secretform drift --format html`): one self-contained page of the selected stacks, opened
 * from disk with no request to any network (inline CSS and SVG; no script, no font, no image file). Per stack:
 * its status, a chart of the drifted objects at each recorded check, the objects drifted now with since and how
 * long, the acknowledgements, the pending changes and what was resolved. Every text from code or the service is
 * HTML-escaped; a masked field shows only that it differs.
 */
import type { CheckRecord } from '../../engine/drift/history';
import type { StackDriftCheck } from '../../engine/drift/drift-check';
import { escapeHtml } from '../markdown-escape';
import { formatChange } from '../values';
import { driftTotals, runStatus, STATUS_WORDS, stackStatus, totalsPhrase, type StackDriftOutcome, type StackStatus } from './drift-view';
import { isMasked } from './text';

const COLORS: Readonly<Record<StackStatus, string>> = { no_drift: '#1a7f37', known_drift: '#9a6700', new_drift: '#cf222e', drift: '#bc4c00', error: '#57606a' };

const STYLE = `
body { font: 14px/1.5 system-ui, sans-serif; margin: 0; padding: 24px; background: #f6f8fa; color: #1f2328; }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 0; } h3 { font-size: 14px; margin: 16px 0 6px; }
.summary { color: #57606a; margin-bottom: 16px; }
.stack { background: #fff; border: 1px solid #d0d7de; border-radius: 8px; padding: 16px; margin-bottom: 16px; }
.head { display: flex; align-items: center; gap: 10px; }
.badge { color: #fff; border-radius: 12px; padding: 1px 10px; font-size: 12px; font-weight: 600; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { text-align: left; border-bottom: 1px solid #d8dee4; padding: 4px 8px; vertical-align: top; }
th { background: #f6f8fa; } code { font: 12px ui-monospace, monospace; background: #eff1f3; padding: 0 3px; border-radius: 4px; }
.status-new, .status-changed { color: #cf222e; font-weight: 600; } .status-known { color: #9a6700; } .status-acknowledged { color: #57606a; }
.muted { color: #57606a; } svg { display: block; }
`;

export function renderDriftHtml(outcomes: readonly StackDriftOutcome[], checkedAt: string): string {
  const status = runStatus(outcomes);
  const body = [
    `<h1>Drift dashboard</h1>`,
    `<div class="summary">Checked ${escapeHtml(checkedAt)}: <strong style="color:${COLORS[status]}">${escapeHtml(STATUS_WORDS[status])}</strong>; ${escapeHtml(totalsPhrase(driftTotals(outcomes)))}.</div>`,
    ...outcomes.map((outcome) => stackCard(outcome, checkedAt)),
  ];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>Drift dashboard</title><style>${STYLE}</style></head>
<body>
${body.join('\n')}
</body></html>
`;
}

function stackCard(outcome: StackDriftOutcome, checkedAt: string): string {
  const status = stackStatus(outcome);
  const head = `<div class="head"><h2>${escapeHtml(outcome.stack)}</h2><span class="badge" style="background:${COLORS[status]}">${escapeHtml(STATUS_WORDS[status])}</span></div>`;
  if (!('check' in outcome)) return `<section class="stack" data-stack="${escapeHtml(outcome.stack)}">${head}<p>${escapeHtml(outcome.error)}</p></section>`;
  const { check } = outcome;
  const parts = [head];
  if (check.historyProblem) parts.push(`<p class="muted">No statuses: ${escapeHtml(check.historyProblem.message)}</p>`);
  parts.push(`<h3>Drifted objects per check</h3>`, chart(check.checks));
  parts.push(`<h3>Drifted now (${check.drifted.length})</h3>`, driftedTable(check, checkedAt));
  const acknowledged = check.drifted.filter((object) => object.acknowledgement !== null);
  if (acknowledged.length > 0) {
    parts.push(`<h3>Acknowledgements</h3><ul>${acknowledged.map((object) => {
      const ack = object.acknowledgement!;
      return `<li><code>${escapeHtml(object.entry.address)}</code>: by ${escapeHtml(ack.by)} on ${escapeHtml(ack.at)}, ${ack.until ? `until ${escapeHtml(ack.until)}${ack.expired ? ' <strong>(expired)</strong>' : ''}` : 'until the drift changes'}: ${escapeHtml(ack.reason)}</li>`;
    }).join('')}</ul>`);
  }
  if (check.pending.length > 0) {
    parts.push(`<h3>Pending changes (merged, not applied; not drift)</h3><ul>${check.pending.map((change) => `<li>${escapeHtml(change.action)} <code>${escapeHtml(change.address)}</code>${change.fields.length > 0 ? `: ${change.fields.map((field) => `<code>${escapeHtml(field)}</code>`).join(', ')}` : ''}</li>`).join('')}</ul>`);
  }
  if (check.resolved.length > 0) {
    parts.push(`<h3>Resolved since the previous check</h3><ul>${check.resolved.map((object) => `<li><code>${escapeHtml(object.address)}</code>: drifted since ${escapeHtml(object.since)} (${object.checks} checks)</li>`).join('')}</ul>`);
  }
  return `<section class="stack" data-stack="${escapeHtml(check.stack)}">${parts.join('\n')}</section>`;
}

function driftedTable(check: StackDriftCheck, checkedAt: string): string {
  if (check.drifted.length === 0) return '<p class="muted">Every managed object matches its last apply.</p>';
  const rows = check.drifted.map((object) => {
    const { entry } = object;
    const what = entry.kind === 'deleted'
      ? 'deleted outside secretform'
      : entry.fields.map((field) => `<code>${escapeHtml(field.field)}</code> ${escapeHtml(isMasked(field.live) ? '(sensitive, differs)' : formatChange(field.applied, field.live))}`).join('<br>') || escapeHtml(entry.kind);
    const status = object.status ?? 'drifted';
    return `<tr data-address="${escapeHtml(entry.address)}"><td><code>${escapeHtml(entry.address)}</code><br><span class="muted">${escapeHtml(entry.type)}</span></td><td>${what}</td><td class="status-${status}">${status}</td><td>${object.since === null ? '-' : escapeHtml(object.since)}</td><td>${object.since === null ? '-' : escapeHtml(duration(Date.parse(checkedAt) - Date.parse(object.since)))}</td><td>${object.checks ?? '-'}</td><td>${object.episodes ?? '-'}</td></tr>`;
  });
  return `<table><thead><tr><th>Object</th><th>What drifted</th><th>Status</th><th>Since</th><th>For</th><th>Checks</th><th>Episodes</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

const CHART = { width: 640, height: 120, left: 28, bottom: 18, top: 8 };

/** A bar per recorded check: its height the drifted objects, the acknowledged part lighter. */
function chart(checks: readonly CheckRecord[]): string {
  if (checks.length === 0) return '<p class="muted">No check recorded yet.</p>';
  const max = Math.max(1, ...checks.map((check) => check.drifted));
  const plotWidth = CHART.width - CHART.left;
  const plotHeight = CHART.height - CHART.bottom - CHART.top;
  const step = plotWidth / checks.length;
  const barWidth = Math.max(1, step * 0.8);
  const bars = checks.map((check, index) => {
    const x = CHART.left + index * step;
    const total = (check.drifted / max) * plotHeight;
    const alerting = (check.unacknowledged / max) * plotHeight;
    const base = CHART.top + plotHeight;
    return `<g class="bar" data-drifted="${check.drifted}"><title>${escapeHtml(check.at)}: ${check.drifted} drifted, ${check.unacknowledged} not acknowledged</title>` +
      `<rect x="${x.toFixed(1)}" y="${(base - total).toFixed(1)}" width="${barWidth.toFixed(1)}" height="${total.toFixed(1)}" fill="#d4a72c" opacity="0.45"/>` +
      `<rect x="${x.toFixed(1)}" y="${(base - alerting).toFixed(1)}" width="${barWidth.toFixed(1)}" height="${alerting.toFixed(1)}" fill="#cf222e"/></g>`;
  });
  const axis = `<line x1="${CHART.left}" y1="${CHART.top + plotHeight}" x2="${CHART.width}" y2="${CHART.top + plotHeight}" stroke="#8c959f"/>` +
    `<text x="${CHART.left - 4}" y="${CHART.top + 8}" text-anchor="end" font-size="10" fill="#57606a">${max}</text>` +
    `<text x="${CHART.left - 4}" y="${CHART.top + plotHeight}" text-anchor="end" font-size="10" fill="#57606a">0</text>` +
    `<text x="${CHART.left}" y="${CHART.height - 4}" font-size="10" fill="#57606a">${escapeHtml(checks[0].at.slice(0, 10))}</text>` +
    `<text x="${CHART.width}" y="${CHART.height - 4}" text-anchor="end" font-size="10" fill="#57606a">${escapeHtml(checks.at(-1)!.at.slice(0, 10))}</text>`;
  const legend = '<div class="muted" style="font-size:12px"><span style="color:#cf222e">&#9632;</span> drifted, not acknowledged &nbsp; <span style="color:#d4a72c;opacity:.6">&#9632;</span> acknowledged</div>';
  return `${legend}<svg class="chart" role="img" aria-label="drifted objects per check" width="${CHART.width}" height="${CHART.height}" viewBox="0 0 ${CHART.width} ${CHART.height}" xmlns="http://www.w3.org/2000/svg">${axis}${bars.join('')}</svg>`;
}

function duration(ms: number): string {
  const minutes = Math.max(0, Math.floor(ms / 60_000));
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h`;
  return `${Math.floor(hours / 24)} days`;
}
