import pc from 'picocolors';
import { withVisibleControls } from '../visible-controls';
import { consequenceComments, warningsBesideConsequences } from './consequences';
import type { DriftEntry, Plan, PlanAction, PlannedChange } from '../engine/plan/plan';
import { policyTextSection } from './policy-text';
import {
  actionableChanges,
  changeAttributeLines,
  changeTitle,
  driftAttributeLines,
  driftHeadline,
  movedFromNote,
  NOT_VERIFIABLE,
  planTotals,
  refreshOnlyPhrase,
  totalsPhrase,
  unchangedAttributeCount,
  unchangedAttributesNote,
  UNVERIFIABLE_SECRETS_TITLE,
  unverifiableSecrets,
  serviceManagedSecrets,
  serviceManagedText,
  SERVICE_MANAGED_TITLE,
  type AttributeLine,
  type LineSymbol,
} from './plan-view';
import { appendAll } from '../append-all';
import { wrapProse } from './wrap-prose';
import { onlyPlan, problemsPhrase, stackCount, stackProblem, stacksTotals, stacksTotalsPhrase, unchangedPhrase, type StackReport } from './stacks-view';

export interface TextOptions {
  /** ANSI colours; the caller decides (see `shouldUseColor`). */
  color: boolean;
  /**
   * A line shown instead of a planned stack's plan, when the command shows that stack another way (destroy with
   * nothing in state says so in one line: src/cli/change-preview.ts); undefined shows the plan.
   */
  standIn?: (plan: Plan) => string | undefined;
}

type Colors = ReturnType<typeof pc.createColors>;

const LEGEND: { action: Exclude<PlanAction, 'no-op'>; words: string }[] = [
  { action: 'create', words: 'create' },
  { action: 'update', words: 'update in-place' },
  { action: 'delete', words: 'destroy' },
  { action: 'replace', words: 'destroy and then create replacement' },
  { action: 'forget', words: 'forget (removed from state, left on the service)' },
];

/**
 * The report for a terminal, ending with a newline. One stack that planned is shown as its plan alone (see
 * `onlyPlan`); several stacks as a section per stack (its plan, or why it has none) under `=== Stack <name> ===`,
 * then one total line in the words of the stacks' plans.
 */
export function renderText(reports: readonly StackReport[], options: TextOptions): string {
  const only = onlyPlan(reports);
  if (only !== undefined) return stackText(only, options);
  const colors = pc.createColors(options.color);
  const out: string[] = [];
  for (const report of reports) {
    out.push(colors.bold(`=== Stack ${report.stack} ===`), '');
    if (report.status === 'done') out.push(stackText(report.value, options));
    else if (report.status === 'unchanged') out.push(`Unchanged since its last apply, not read (--changed).`, '');
    else out.push(`${colors.bold(colors.red(report.status === 'failed' ? 'Error:' : 'Skipped:'))} ${stackProblem(report)}`, '');
  }
  const totals = stacksTotals(reports);
  out.push(colors.bold(`Total over ${stackCount(reports.length)}: ${stacksTotalsPhrase(reports, totals)}${problemsPhrase(totals)}${unchangedPhrase(totals)}.`));
  return `${out.join('\n')}\n`;
}

/** A planned stack's section: its stand-in line when it has one, else its plan. Ends with a newline. */
function stackText(plan: Plan, options: TextOptions): string {
  const standIn = options.standIn?.(plan);
  return standIn === undefined ? planText(plan, options) : `${standIn}\n`;
}

/**
 * A plan laid out like terraform's: what changed outside secretform first, then the actions with their
 * attributes, secrets that cannot be verified, the summary line and warnings. Ends with a newline.
 */
function planText(given: Plan, options: TextOptions): string {
  // With colour the report writes control sequences of its own, which the terminal's guard lets through: so the
  // names, values and messages it embeds show theirs as text first (src/cli/run/terminal-output.ts).
  const plan = options.color ? withVisibleControls(given) : given;
  const colors = pc.createColors(options.color);
  const out: string[] = [];

  if (plan.drift.length > 0) appendAll(out, driftSection(plan.drift, colors));

  if (plan.refreshOnly) {
    appendAll(out, refreshOnlyEnding(plan, colors));
  } else {
    const changes = actionableChanges(plan);
    if (changes.length > 0) appendAll(out, actionsSection(plan, changes, colors));
    appendAll(out, unverifiableSection(plan, colors));
    appendAll(out, serviceManagedSection(plan, colors));
    appendAll(out, summarySection(plan, changes.length, colors));
  }
  appendAll(out, policyTextSection(plan, colors));

  // An uncounted consequence's reason is under its resource; its warning points there (see report/consequences).
  for (const warning of warningsBesideConsequences(plan)) out.push(`${colors.bold(colors.yellow('Warning:'))} ${warning}`, '');
  return `${trimTrailingBlankLines(out).join('\n')}\n`;
}

function driftSection(drift: readonly DriftEntry[], colors: Colors): string[] {
  const out = [
    colors.bold('Note: Objects have changed outside of secretform'),
    '',
    ...wrapProse('secretform detected the following changes made outside of secretform since the last apply:'),
    '',
  ];
  for (const entry of drift) {
    out.push(colors.bold(`  # ${entry.address} ${driftHeadline(entry)}`));
    // A health problem is said in full by its headline; the other kinds list the fields.
    if (!entry.health) {
      const symbol = entry.kind === 'deleted' ? '-' : '~';
      appendAll(out, block(`  ${colorSymbol(symbol, colors)}`, entry.type, entry.id, driftAttributeLines(entry), 0, colors));
    }
    out.push('');
  }
  return out;
}

function refreshOnlyEnding(plan: Plan, colors: Colors): string[] {
  if (plan.drift.length === 0) return [colors.bold('No changes.') + ' No objects have changed outside of secretform.', ''];
  return [
    'This is a refresh-only plan: secretform will not change anything on the service.',
    '',
    colors.bold(`${refreshOnlyPhrase(plan.drift.length)}.`),
    '',
  ];
}

function actionsSection(plan: Plan, changes: readonly PlannedChange[], colors: Colors): string[] {
  const used = new Set(changes.map((change) => change.action));
  const out = [
    ...wrapProse(`secretform compared stack ${JSON.stringify(plan.stack)} with the service. Resource actions are indicated with the following symbols:`),
    ...LEGEND.filter((entry) => used.has(entry.action)).map(
      (entry) => `${colorBlockSymbol(entry.action, colors)} ${entry.words}`,
    ),
    '',
    colors.bold('secretform will perform the following actions:'),
    '',
  ];
  for (const change of changes) {
    const lines = changeAttributeLines(change);
    out.push(colors.bold(`  # ${changeTitle(change)}`));
    const note = movedFromNote(change);
    if (note !== undefined) out.push(`  # ${note}`);
    out.push(...consequenceComments(change).map((line) => colors.yellow(line)));
    const opener = change.action === 'no-op' ? '   ' : colorBlockSymbol(change.action, colors);
    out.push(...block(opener, change.type, change.id, lines, unchangedAttributeCount(change, lines), colors), '');
  }
  return out;
}

/** Secrets the plan does not touch and the service cannot confirm: a compact note, not a change. */
function unverifiableSection(plan: Plan, colors: Colors): string[] {
  const notes = plan.changes
    .map((change) => ({ address: change.address, fields: unverifiableSecrets(change) }))
    .filter((note) => note.fields.length > 0);
  if (notes.length === 0) return [];
  return [
    ...wrapProse(`${UNVERIFIABLE_SECRETS_TITLE}:`).map((line) => colors.bold(line)),
    ...notes.map((note) => `  ${note.address}: ${note.fields.join(', ')} ${colors.dim(NOT_VERIFIABLE)}`),
    '',
  ];
}

/** Root credentials the service rotated: managed by the service now, never shown as changes. */
function serviceManagedSection(plan: Plan, colors: Colors): string[] {
  const notes = plan.changes
    .map((change) => ({ address: change.address, entries: serviceManagedSecrets(change) }))
    .filter((note) => note.entries.length > 0);
  if (notes.length === 0) return [];
  return [
    colors.bold(`${SERVICE_MANAGED_TITLE}:`),
    ...notes.map((note) => `  ${note.address}: ${note.entries.map(serviceManagedText).join(', ')}`),
    '',
  ];
}

function summarySection(plan: Plan, actionableCount: number, colors: Colors): string[] {
  if (actionableCount === 0 && plan.drift.length === 0) {
    return [colors.bold(colors.green('No changes.')) + ' Your configuration matches the service.', ''];
  }
  const totals = planTotals(plan);
  return [`${colors.bold(`${totalsPhrase(totals)}.`)} ${totals.drifted} drifted.`, ''];
}

/** `  + type "id" {`, the attribute lines, the hidden-attributes count, and the closing brace. */
function block(
  opener: string,
  type: string,
  id: string,
  lines: AttributeLine[],
  unchangedCount: number,
  colors: Colors,
): string[] {
  const out = [`${opener} ${type} ${JSON.stringify(id)} {`];
  for (const line of lines) out.push(`      ${colorAttributeLine(line, colors)}`);
  if (unchangedCount > 0) out.push(colors.dim(`        ${unchangedAttributesNote(unchangedCount)}`));
  out.push('    }');
  return out;
}

function colorAttributeLine(line: AttributeLine, colors: Colors): string {
  let text = `${colorSymbol(line.symbol, colors)} ${line.name} = ${line.value}`;
  if (line.forcesReplacement) text += ` ${colors.red('# forces replacement')}`;
  if (line.note !== undefined) text += ` ${colors.yellow(`# ${line.note}`)}`;
  return text;
}

function colorSymbol(symbol: LineSymbol, colors: Colors): string {
  if (symbol === '+') return colors.green(symbol);
  if (symbol === '-') return colors.red(symbol);
  return colors.yellow(symbol);
}

/** Three columns wide, as terraform prints them, so that `-/+` lines up with `  +`. */
function colorBlockSymbol(action: Exclude<PlanAction, 'no-op'>, colors: Colors): string {
  switch (action) {
    case 'create':
      return `  ${colorSymbol('+', colors)}`;
    case 'update':
      return `  ${colorSymbol('~', colors)}`;
    case 'delete':
      return `  ${colorSymbol('-', colors)}`;
    case 'replace':
      return `${colors.red('-')}/${colors.green('+')}`;
    case 'forget':
      return `  ${colors.yellow('.')}`;
  }
}

function trimTrailingBlankLines(lines: string[]): string[] {
  let end = lines.length;
  while (end > 0 && lines[end - 1] === '') end -= 1;
  return lines.slice(0, end);
}
