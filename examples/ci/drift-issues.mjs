#!/usr/bin/env node
// What the nightly drift check (secretform-drift.yml) does with each stack's issue, decided from the check's
// JSON report and the open issues: one issue per stack, found by the marker line its body starts with
// (`<!-- secretform:drift stack=NAME -->`, the first line of the stack's section of the markdown report).
//
//   node drift-issues.mjs --report drift.json --markdown drift.md --issues open-issues.json --bodies DIR [--run-url URL]
//
// --issues is what `gh issue list --json number,body` prints. For each stack of the report it prints one line,
// tab-separated: ACTION, STACK, ISSUE (a number, or -), BODY (a file under --bodies holding the stack's section
// of the markdown report, or -). ACTION is one of:
//   open    drift the history has not seen (new or changed; or the statuses are unknown) and no open issue
//   update  drift, and the stack's issue is open: its body becomes this check's section
//   close   no drift, and the stack's issue is open: its body becomes this check's section (what was resolved)
//   none    no drift and no issue; or drift already seen whose issue someone closed (it opens again on new
//           or changed drift; `secretform drift ack` is the way to say "known, leave it")
//   keep    the stack could not be checked: its issue is left as it is (the job fails on the error)
// Plain Node (no dependency): it runs before anything is installed, and the workflow calls `gh` with its lines.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

/** GitHub refuses an issue body longer than this (characters). */
const BODY_LIMIT = 65536;

function driftMarker(stack) {
  return `<!-- secretform:drift stack=${stack} -->`;
}

/** The open issue of a stack: the oldest whose body has the stack's marker as a line of its own. */
function findIssue(issues, stack) {
  const marker = driftMarker(stack);
  const matching = issues.filter((issue) => (issue.body ?? '').split('\n').some((line) => line.trimEnd() === marker));
  matching.sort((a, b) => a.number - b.number);
  return matching[0];
}

/** What to do with one stack's issue, from the stack's entry of the JSON report and its open issue (or none). */
function decide(stackReport, issue) {
  if (stackReport.status === 'error') return 'keep';
  if (stackReport.drifted.length === 0) return issue ? 'close' : 'none';
  if (issue) return 'update';
  // `known_drift`: all of it seen before or acknowledged, so its issue was closed by someone on purpose.
  return stackReport.status === 'known_drift' ? 'none' : 'open';
}

/**
 * Each stack's section of the markdown report, by its marker: sections are in the report's stack order, each
 * from its marker up to the separator before the next stack's marker.
 */
function splitSections(markdown, stacks) {
  const sections = new Map();
  const starts = [];
  let from = 0;
  for (const stack of stacks) {
    const at = markdown.indexOf(`${driftMarker(stack)}\n`, from);
    if (at === -1) throw new Error(`the markdown report has no section for stack ${stack} (no line ${driftMarker(stack)}): give the markdown report of the same check as the JSON report`);
    starts.push(at);
    from = at + 1;
  }
  stacks.forEach((stack, index) => {
    const end = index + 1 < starts.length ? starts[index + 1] : markdown.length;
    sections.set(stack, markdown.slice(starts[index], end).replace(/\n---\n\n$/, ''));
  });
  return sections;
}

/** The issue body: the stack's section and where it came from, cut to GitHub's limit when it is longer. */
function issueBody(section, runUrl) {
  const footer = runUrl ? `\n---\nUpdated by [the nightly drift check](${runUrl}).\n` : '';
  if (section.length + footer.length <= BODY_LIMIT) return section + footer;
  const cut = `\n\n… (cut: the report is longer than an issue body can be; the run's artifact has all of it)\n`;
  return section.slice(0, BODY_LIMIT - cut.length - footer.length) + cut + footer;
}

function readJson(path, what) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`cannot read ${what} ${path}: ${error.message}`, { cause: error });
  }
}

function main(argv) {
  const { values } = parseArgs({ args: argv, options: { report: { type: 'string' }, markdown: { type: 'string' }, issues: { type: 'string' }, bodies: { type: 'string' }, 'run-url': { type: 'string' } } });
  for (const name of ['report', 'markdown', 'issues', 'bodies']) {
    if (values[name] === undefined) throw new Error(`--${name} is required (usage: drift-issues.mjs --report drift.json --markdown drift.md --issues open-issues.json --bodies DIR [--run-url URL])`);
  }
  const report = readJson(values.report, 'the drift JSON report');
  if (report.format_version?.split('.')[0] !== '1') throw new Error(`${values.report} is not a drift JSON report of format 1.x (format_version ${JSON.stringify(report.format_version)})`);
  const issues = readJson(values.issues, 'the open issues');
  const sections = splitSections(readFileSync(values.markdown, 'utf8'), report.stacks.map((stack) => stack.stack));
  mkdirSync(values.bodies, { recursive: true });
  const lines = report.stacks.map((stackReport, index) => {
    const issue = findIssue(issues, stackReport.stack);
    const action = decide(stackReport, issue);
    let body = '-';
    if (action === 'open' || action === 'update' || action === 'close') {
      body = join(values.bodies, `stack-${index + 1}.md`);
      writeFileSync(body, issueBody(sections.get(stackReport.stack), values['run-url']));
    }
    return [action, stackReport.stack, issue ? String(issue.number) : '-', body].join('\t');
  });
  process.stdout.write(lines.map((line) => `${line}\n`).join(''));
}

try {
  main(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`drift-issues: ${error.message}\n`);
  process.exitCode = 1;
}
