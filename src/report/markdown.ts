import { warningWithConsequences } from './consequences';
import { renderMermaid } from './graph';
import type { DriftEntry, Plan, PlannedChange } from '../engine/plan/plan';
import { codeFence, escapeHtml, escapeInline, inlineCode, tableCode } from './markdown-escape';
import { splitComment, type MarkdownSection } from './markdown-split';
import { policyMarkdownSections } from './policy-markdown';
import {
  actionableChanges,
  actionLabel,
  attributeLineText,
  changeAttributeLines,
  changeHeadline,
  driftAttributeLines,
  driftDetailLine,
  driftHeadline,
  movedFromNote,
  NOT_VERIFIABLE,
  planTotals,
  totalsPhrase,
  unchangedAttributeCount,
  unchangedAttributesNote,
  UNVERIFIABLE_SECRETS_TITLE,
  unverifiableSecrets,
  serviceManagedSecrets,
  serviceManagedText,
  SERVICE_MANAGED_TITLE,
} from './plan-view';

export interface MarkdownOptions {
  /** A heading above the status line, e.g. the CI job's name. */
  title?: string;
  /** Longest part, in characters; longer comments are split. @default 65000 (GitHub's limit is 65,536) */
  maxLength?: number;
}

export const DEFAULT_MARKDOWN_MAX_LENGTH = 65000;

/**
 * The plan as a pull-request comment, in the shape Atlantis, tfcmt and tfplan2md agree on: a status line, a
 * table of the resources that change, a warning block for deletions and replacements, one collapsible
 * `<details>` per resource with a diff, and the drift. Returns one string, or several parts when the comment is
 * longer than `maxLength` (post them in order).
 */
export function renderMarkdown(plan: Plan, options: MarkdownOptions = {}): string[] {
  const maxLength = options.maxLength ?? DEFAULT_MARKDOWN_MAX_LENGTH;
  const title = options.title ? `## ${escapeInline(options.title)}\n\n` : '';
  const header = title + statusLine(plan);
  return splitComment(header, markdownSections(plan), maxLength);
}

/** The comment's blocks after the status line (a run over several stacks puts each stack's under its heading). */
export function markdownSections(plan: Plan): MarkdownSection[] {
  const sections: MarkdownSection[] = [];
  if (!plan.refreshOnly) {
    const changes = actionableChanges(plan);
    sections.push(...summaryTable(changes), ...dependencyPicture(changes), ...destructionWarning(changes), ...changeSections(changes));
  }
  sections.push(...driftSections(plan.drift));
  if (!plan.refreshOnly) sections.push(...unverifiableSection(plan.changes), ...serviceManagedSection(plan.changes));
  sections.push(...policyMarkdownSections(plan));
  sections.push(...planWarnings(plan.warnings));
  return sections;
}

/** `**Plan: 2 to add, 1 to change, 0 to destroy, 1 drifted** for stack `prod``, or "No changes". */
export function statusLine(plan: Plan): string {
  const stack = `for stack ${inlineCode(plan.stack)}`;
  const totals = planTotals(plan);
  if (plan.refreshOnly) {
    if (totals.drifted === 0) return `**No changes** ${stack}. No objects have changed outside of secretform.`;
    return `**Refresh-only plan: ${totals.drifted} drifted** ${stack}. secretform will not change anything on the service.`;
  }
  if (actionableChanges(plan).length === 0 && totals.drifted === 0) {
    return `**No changes** ${stack}. Your configuration matches the service.`;
  }
  return `**${totalsPhrase(totals)}, ${totals.drifted} drifted** ${stack}`;
}

function summaryTable(changes: readonly PlannedChange[]): MarkdownSection[] {
  if (changes.length === 0) return [];
  const head = '| Address | Type | Action |\n| --- | --- | --- |';
  return [
    {
      head,
      lines: changes.map((c) => `| ${tableCode(c.address)} | ${tableCode(c.type)} | ${escapeInline(actionLabel(c))} |`),
      tail: '',
    },
  ];
}

function destructionWarning(changes: readonly PlannedChange[]): MarkdownSection[] {
  const destructive = changes.filter((c) => c.action === 'delete' || c.action === 'replace');
  if (destructive.length === 0) return [];
  const noun = destructive.length === 1 ? 'resource' : 'resources';
  const title = `${destructive.length} ${noun} will be destroyed or replaced`;
  return [
    {
      head: `> [!WARNING]\n> **${title}:**`,
      continuedHead: `> [!WARNING]\n> **${title} (continued):**`,
      lines: destructive.flatMap((c) => warningWithConsequences(`> - ${inlineCode(c.address)} (${inlineCode(c.type)}) ${escapeInline(changeHeadline(c))}`, c)),
      tail: '',
    },
  ];
}

/** Above this many changes a picture is unreadable (and beyond what GitHub renders): none is drawn. */
export const MAX_PICTURED_CHANGES = 100;

/** A collapsed Mermaid flowchart of what changes, in dependency order (edges between changing resources only). */
function dependencyPicture(changes: readonly PlannedChange[]): MarkdownSection[] {
  if (changes.length === 0 || changes.length > MAX_PICTURED_CHANGES) return [];
  const nodes = changes.map((change) => ({ address: change.address, type: change.type, dependsOn: change.dependsOn ?? [], note: change.action }));
  const summary = `Dependency order (${changes.length} change${changes.length === 1 ? '' : 's'})`;
  return [{
    head: `<details><summary>${escapeHtml(summary)}</summary>\n\n\`\`\`mermaid`,
    continuedHead: `<details><summary>${escapeHtml(`${summary} (continued)`)}</summary>\n\n\`\`\`mermaid\nflowchart LR`,
    lines: renderMermaid(nodes).trimEnd().split('\n'),
    tail: '```\n\n</details>',
  }];
}

function changeSections(changes: readonly PlannedChange[]): MarkdownSection[] {
  if (changes.length === 0) return [];
  const sections: MarkdownSection[] = [{ head: '### Changes', lines: [], tail: '', keepWithNext: true }];
  for (const change of changes) {
    const attributeLines = changeAttributeLines(change);
    const moved = change.previousAddress === undefined ? [] : [`# ${change.previousAddress} has moved to ${change.address}`];
    const lines = [...moved, `# id: ${change.id}`, ...attributeLines.map(attributeLineText)];
    const unchanged = unchangedAttributeCount(change, attributeLines);
    if (unchanged > 0) lines.push(unchangedAttributesNote(unchanged));
    const headline = change.action === 'no-op' && change.previousAddress !== undefined
      ? `has moved here from ${change.previousAddress}`
      : [changeHeadline(change), movedFromNote(change)].filter((part) => part !== undefined).join(' ');
    sections.push(detailsWithDiff(change.address, change.type, headline, lines));
  }
  return sections;
}

function driftSections(drift: readonly DriftEntry[]): MarkdownSection[] {
  if (drift.length === 0) return [];
  const sections: MarkdownSection[] = [
    { head: `### Changed outside of secretform (${drift.length})`, lines: [], tail: '', keepWithNext: true },
  ];
  for (const entry of drift) {
    const lines = [`# id: ${entry.id}`, ...driftAttributeLines(entry).map(attributeLineText)];
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
