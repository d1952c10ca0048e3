import { graphEdges, renderMermaid, type GraphNode } from './graph';
import type { DriftEntry, Plan, PlannedChange, PlanAction } from '../engine/plan/plan';
import { alertSections, cautionSection, stackAlertSections } from './markdown-alerts';
import { warningsBesideConsequences } from './consequences';
import { contextLine, type CommentContext } from './markdown-context';
import { diffLines } from './markdown-diff';
import { codeFence, escapeHtml, escapeInline, inlineCode, tableCode } from './markdown-escape';
import { splitComment, type MarkdownSection } from './markdown-split';
import { policyMarkdownSections } from './policy-markdown';
import {
  actionableChanges,
  actionLabel,
  changeAttributeLines,
  changeHeadline,
  driftAttributeLines,
  driftDetailLine,
  driftHeadline,
  movedFromNote,
  NOT_VERIFIABLE,
  planTotals,
  unchangedAttributeCount,
  unchangedAttributesNote,
  UNVERIFIABLE_SECRETS_TITLE,
  unverifiableSecrets,
  serviceManagedSecrets,
  serviceManagedText,
  SERVICE_MANAGED_TITLE,
} from './plan-view';
import { policyCell } from './policy-view';
import { ACTION_ICON, MOVE_ICON, OUTCOME_LOOK, planOutcome, type PlanOutcome } from './status';
import { onlyPlan, problemsPhrase, runOutcome, stackCount, stackOutcome, stackProblem, stacksTotals, UNCHANGED_WORDS, unchangedPhrase, type StackReport } from './stacks-view';
import { appendAll } from '../append-all';

export type { CommentContext } from './markdown-context';

export interface MarkdownOptions {
  /** A heading above the status line, e.g. the CI job's name. */
  title?: string;
  /** Longest part, in characters; longer comments are split. @default 65000 (GitHub's limit is 65,536) */
  maxLength?: number;
  /** Commit, CI run, time and how a saved plan is applied: the line under the status line (none when absent). */
  context?: CommentContext;
}

export const DEFAULT_MARKDOWN_MAX_LENGTH = 65000;

/**
 * The report as a pull-request comment, in the shape Atlantis, tfcmt and tfplan2md agree on: a status line (an
 * icon and a word for the outcome, then the counts), the CI context, alert blocks for what loses an object and
 * for drift, a table of the resources that change, the dependency order when changes depend on each other, one
 * collapsible `<details>` per resource with a coloured diff, and the drift. One stack that planned is shown so
 * (see `onlyPlan`); several stacks get one status line for the run, a table of the stacks (add / change / destroy
 * / drifted / policy, a status each), then a section per stack: its status line and those blocks, or its error.
 * Returns one string, or several parts when the comment is longer than `maxLength` (post them in order; each
 * repeats the status and context lines).
 */
export function renderMarkdown(reports: readonly StackReport[], options: MarkdownOptions = {}): string[] {
  const maxLength = options.maxLength ?? DEFAULT_MARKDOWN_MAX_LENGTH;
  const title = options.title ? `## ${escapeInline(options.title)}\n\n` : '';
  const context = contextLine(options.context);
  const only = onlyPlan(reports);
  const status = only === undefined ? runStatusLine(reports) : statusLine(only);
  const header = title + status + (context === undefined ? '' : `\n\n${context}`);
  const sections = only === undefined ? stacksSections(reports) : planSections(only);
  return splitComment(header, sections, maxLength);
}

/**
 * One label, then the counts, as one stack's status line says them:
 * `❌ **Error** over 4 stacks: 4 to add, 1 to change, 2 to destroy, 3 drifted, 1 stack failed`.
 */
function runStatusLine(reports: readonly StackReport[]): string {
  const look = OUTCOME_LOOK[runOutcome(reports)];
  const totals = stacksTotals(reports);
  const refreshOnly = reports.some((report) => report.status === 'done' && report.value.refreshOnly);
  const forget = totals.forget > 0 ? `, ${totals.forget} to forget` : '';
  const counts = refreshOnly
    ? `${totals.drifted} drifted (refresh-only plan)`
    : `${totals.add} to add, ${totals.change} to change, ${totals.destroy} to destroy${forget}, ${totals.drifted} drifted`;
  return `${look.icon} **${look.word}** over ${stackCount(reports.length)}: ${counts}${problemsPhrase(totals)}${unchangedPhrase(totals)}`;
}

/**
 * The comment over several stacks after its status and context lines: what every stack loses (one CAUTION
 * block, at the top), the table of stacks, then each stack, its blocks a heading level below its own.
 */
function stacksSections(reports: readonly StackReport[]): MarkdownSection[] {
  const plans = reports.flatMap((report) => (report.status === 'done' && !report.value.refreshOnly ? [report.value] : []));
  const sections: MarkdownSection[] = [...cautionSection(plans, true), stacksTable(reports)];
  for (const report of reports) appendAll(sections, stackSections(report));
  return sections;
}

function stacksTable(reports: readonly StackReport[]): MarkdownSection {
  return {
    head: '| Stack | Add | Change | Destroy | Drifted | Policy | Status |\n| --- | ---: | ---: | ---: | ---: | --- | --- |',
    lines: reports.map((report) => {
      const look = OUTCOME_LOOK[stackOutcome(report)];
      const status = `${look.icon} ${look.word}`;
      if (report.status === 'unchanged') return `| ${tableCode(report.stack)} | — | — | — | — | — | ⏭️ ${UNCHANGED_WORDS} |`;
      if (report.status !== 'done') {
        const why = report.status === 'failed' ? 'error' : `skipped (${tableCode(report.dependency)} failed)`;
        return `| ${tableCode(report.stack)} | — | — | — | — | — | ${status}: ${why} |`;
      }
      const counts = planTotals(report.value);
      return `| ${tableCode(report.stack)} | ${counts.add} | ${counts.change} | ${counts.destroy} | ${counts.drifted} | ${policyCell(report.value)} | ${status} |`;
    }),
    tail: '',
  };
}

/** A stack under its heading: its status line and the blocks of its plan, or why it has none. */
function stackSections(report: StackReport): MarkdownSection[] {
  const heading = `### Stack ${inlineCode(report.stack)}`;
  if (report.status === 'unchanged') return [{ head: heading, lines: [`⏭️ Unchanged since its last apply, not read (\`--changed\`): nothing new to plan from the code.`], tail: '' }];
  if (report.status !== 'done') {
    // In a CAUTION alert, as everything a reviewer must not miss: this stack's changes are unknown.
    const word = report.status === 'failed' ? 'Error' : 'Skipped';
    return [{ head: `${heading}\n\n> [!CAUTION]`, lines: [`> ${OUTCOME_LOOK.error.icon} **${word}:** ${escapeInline(stackProblem(report)!)}`], tail: '' }];
  }
  return [{ head: `${heading}\n\n${statusLine(report.value)}`, lines: [], tail: '', keepWithNext: true }, ...planSections(report.value, true)];
}

/**
 * A plan's blocks after its status line: the whole comment's body in the one-section form; under a stack's
 * heading (`nested`), its headings one level down and without the CAUTION block, which the comment's top lists.
 */
function planSections(plan: Plan, nested = false): MarkdownSection[] {
  const heading = nested ? '####' : '###';
  const sections: MarkdownSection[] = [...(nested ? stackAlertSections(plan) : alertSections(plan))];
  if (!plan.refreshOnly) {
    const changes = actionableChanges(plan);
    for (const part of [summaryTable(changes), dependencyPicture(changes), changeSections(changes, heading)]) appendAll(sections, part);
  }
  appendAll(sections, driftSections(plan.drift, heading));
  if (!plan.refreshOnly) for (const part of [unverifiableSection(plan.changes), serviceManagedSection(plan.changes)]) appendAll(sections, part);
  appendAll(sections, policyMarkdownSections(plan, heading));
  appendAll(sections, planWarnings(warningsBesideConsequences(plan)));
  return sections;
}

/**
 * The first line a reviewer reads: one icon and one word for the outcome, then the counts, e.g.
 * `🗑️ **Destroys** for stack `prod`: 2 to add, 1 to change, 1 to destroy, 0 drifted`.
 */
function statusLine(plan: Plan): string {
  const stack = `for stack ${inlineCode(plan.stack)}`;
  const totals = planTotals(plan);
  if (plan.refreshOnly) {
    if (totals.drifted === 0) return `${outcomeLabel('no_changes')} ${stack}. No objects have changed outside of secretform.`;
    return `${outcomeLabel('drift')} ${stack}: ${totals.drifted} drifted. Refresh-only plan: secretform will not change anything on the service.`;
  }
  const outcome = planOutcome(plan);
  if (outcome === 'no_changes') return `${outcomeLabel(outcome)} ${stack}. Your configuration matches the service.`;
  const forget = totals.forget > 0 ? `, ${totals.forget} to forget` : '';
  return `${outcomeLabel(outcome)} ${stack}: ${totals.add} to add, ${totals.change} to change, ${totals.destroy} to destroy${forget}, ${totals.drifted} drifted`;
}

/** `✅ **No changes**`. */
function outcomeLabel(outcome: PlanOutcome): string {
  const look = OUTCOME_LOOK[outcome];
  return `${look.icon} **${look.word}**`;
}

function summaryTable(changes: readonly PlannedChange[]): MarkdownSection[] {
  if (changes.length === 0) return [];
  const head = '| Address | Type | Action |\n| --- | --- | --- |';
  return [
    {
      head,
      lines: changes.map((c) => `| ${tableCode(c.address)} | ${tableCode(c.type)} | ${actionIcon(c)} ${escapeInline(actionLabel(c))} |`),
      tail: '',
    },
  ];
}

/** The action's icon; an object that only moves has its own. */
function actionIcon(change: PlannedChange): string {
  return change.action === 'no-op' && change.previousAddress !== undefined ? MOVE_ICON : ACTION_ICON[change.action];
}

/** Above this many changes a picture is unreadable (and beyond what GitHub renders): none is drawn. */
export const MAX_PICTURED_CHANGES = 100;

/** The colour of each action in the dependency picture (GitHub's diff colours: green, amber, red). */
const ACTION_STYLES: Readonly<Record<PlanAction, string>> = {
  create: 'fill:#dafbe1,stroke:#1a7f37,color:#1f2328',
  update: 'fill:#fff8c5,stroke:#9a6700,color:#1f2328',
  replace: 'fill:#ffebe9,stroke:#cf222e,color:#1f2328,stroke-dasharray:4 2',
  delete: 'fill:#ffebe9,stroke:#cf222e,color:#1f2328',
  forget: 'fill:#f6f8fa,stroke:#57606a,color:#1f2328,stroke-dasharray:2 2',
  'no-op': 'fill:#f6f8fa,stroke:#8c959f,color:#1f2328',
};
const ACTION_CLASSES = {
  classOf: (node: GraphNode) => `action_${(node.note ?? 'no-op').replace('-', '')}`,
  styles: Object.fromEntries(Object.entries(ACTION_STYLES).map(([action, style]) => [`action_${action.replace('-', '')}`, style])),
};

/**
 * A collapsed Mermaid flowchart of the changes that depend on each other, coloured by action. Only changes
 * joined by an edge are drawn: a column of unrelated boxes says nothing the table does not, so with no edge
 * between changes there is no picture.
 */
function dependencyPicture(changes: readonly PlannedChange[]): MarkdownSection[] {
  if (changes.length === 0 || changes.length > MAX_PICTURED_CHANGES) return [];
  const all: GraphNode[] = changes.map((change) => ({ address: change.address, type: change.type, dependsOn: change.dependsOn ?? [], note: change.action }));
  const edges = graphEdges(all);
  if (edges.length === 0) return [];
  const joined = new Set(edges.flat());
  const nodes = all.filter((node) => joined.has(node.address));
  const summary = `Dependency order (${nodes.length} of ${changes.length} change${changes.length === 1 ? '' : 's'})`;
  return [{
    head: `<details><summary>${escapeHtml(summary)}</summary>\n\n\`\`\`mermaid`,
    continuedHead: `<details><summary>${escapeHtml(`${summary} (continued)`)}</summary>\n\n\`\`\`mermaid\nflowchart LR`,
    lines: renderMermaid(nodes, ACTION_CLASSES).trimEnd().split('\n'),
    tail: '```\n\n</details>',
  }];
}

function changeSections(changes: readonly PlannedChange[], heading: string): MarkdownSection[] {
  if (changes.length === 0) return [];
  const sections: MarkdownSection[] = [{ head: `${heading} Changes`, lines: [], tail: '', keepWithNext: true }];
  for (const change of changes) {
    const attributeLines = changeAttributeLines(change);
    const moved = change.previousAddress === undefined ? [] : [`# ${change.previousAddress} has moved to ${change.address}`];
    const lines = [...moved, `# id: ${change.id}`, ...attributeLines.flatMap(diffLines)];
    const unchanged = unchangedAttributeCount(change, attributeLines);
    if (unchanged > 0) lines.push(unchangedAttributesNote(unchanged));
    const headline = change.action === 'no-op' && change.previousAddress !== undefined
      ? `has moved here from ${change.previousAddress}`
      : [changeHeadline(change), movedFromNote(change)].filter((part) => part !== undefined).join(' ');
    // Nothing to show but the id (a forget): a line, not a block to open onto an empty diff.
    const empty = attributeLines.length === 0 && moved.length === 0 && unchanged === 0;
    sections.push(empty ? lineWithoutDiff(change.address, change.type, headline, change.id) : detailsWithDiff(change.address, change.type, headline, lines));
  }
  return sections;
}

function driftSections(drift: readonly DriftEntry[], heading: string): MarkdownSection[] {
  if (drift.length === 0) return [];
  const sections: MarkdownSection[] = [
    { head: `${heading} Changed outside of secretform (${drift.length})`, lines: [], tail: '', keepWithNext: true },
  ];
  for (const entry of drift) {
    const lines = [`# id: ${entry.id}`, ...driftAttributeLines(entry).flatMap(diffLines)];
    const detail = driftDetailLine(entry);
    if (detail !== undefined) lines.push(`# ${detail}`);
    sections.push(detailsWithDiff(entry.address, entry.type, driftHeadline(entry), lines));
  }
  return sections;
}

/** Root credentials the service rotated: listed as managed by the service, never shown as changes. */
function serviceManagedSection(changes: readonly PlannedChange[]): MarkdownSection[] {
  const lines = changes.flatMap((change) => {
    const entries = serviceManagedSecrets(change);
    if (entries.length === 0) return [];
    return [`- ${inlineCode(change.address)}: ${entries.map((entry) => escapeInline(serviceManagedText(entry))).join(', ')}`];
  });
  if (lines.length === 0) return [];
  return [{ head: `**${escapeInline(SERVICE_MANAGED_TITLE)}**\n`, continuedHead: `**${escapeInline(SERVICE_MANAGED_TITLE)} (continued)**\n`, lines, tail: '' }];
}

/** Secrets the plan does not touch and the service cannot confirm: listed, never shown as changes. */
function unverifiableSection(changes: readonly PlannedChange[]): MarkdownSection[] {
  const lines = changes.flatMap((change) => {
    const fields = unverifiableSecrets(change);
    if (fields.length === 0) return [];
    return [`- ${inlineCode(change.address)}: ${fields.map(inlineCode).join(', ')} ${NOT_VERIFIABLE}`];
  });
  if (lines.length === 0) return [];
  const summary = `${UNVERIFIABLE_SECRETS_TITLE} (${lines.length})`;
  return [
    {
      head: `<details><summary>${escapeHtml(summary)}</summary>\n`,
      continuedHead: `<details><summary>${escapeHtml(`${summary} (continued)`)}</summary>\n`,
      lines,
      tail: '\n</details>',
    },
  ];
}

function planWarnings(warnings: readonly string[]): MarkdownSection[] {
  if (warnings.length === 0) return [];
  return [
    {
      head: '> [!NOTE]\n> **Warnings:**',
      lines: warnings.map((warning) => `> - ${escapeInline(warning)}`),
      tail: '',
    },
  ];
}

/** A change with nothing to show but its id, as one line: `<code>prod/users</code> (auth_mount) will no longer ... (id <code>sys/auth/users</code>)`. */
function lineWithoutDiff(address: string, type: string, headline: string, id: string): MarkdownSection {
  return { head: `<code>${escapeHtml(address)}</code> (${escapeHtml(type)}) ${escapeHtml(headline)} (id <code>${escapeHtml(id)}</code>)`, lines: [], tail: '' };
}

/** A collapsed block whose summary names the resource and whose body is a `diff` code block. */
function detailsWithDiff(address: string, type: string, headline: string, lines: string[]): MarkdownSection {
  const fence = codeFence(lines);
  const summary = (suffix: string) =>
    `<details><summary><code>${escapeHtml(address)}</code> (${escapeHtml(type)}) ${escapeHtml(headline)}${suffix}</summary>\n\n${fence}diff`;
  return {
    head: summary(''),
    continuedHead: summary(' (continued)'),
    lines,
    tail: `${fence}\n\n</details>`,
  };
}
