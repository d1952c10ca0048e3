/**
 * Writing a plan in the format asked for (`--format text|markdown|json`) to stdout or to `--out-file`.
 *
 * Markdown comes in parts when the comment is longer than GitHub accepts. On stdout the parts are separated by
 * a line holding only MARKDOWN_PART_DIVIDER (an HTML comment: invisible if pasted, easy to split on). With
 * `--out-file PATH` the first part is PATH and part i (i >= 2) is PATH with its `.md` extension, if any,
 * replaced by `.i.md`: `plan.md`, `plan.2.md`, `plan.3.md` (`comment` -> `comment.2.md`).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Command } from 'commander';
import { jsonReportPieces, renderJson, renderMarkdown, renderText, reportWarnings, shouldUseColor, type CommentContext, type StackReport } from '../../report';
import { commentContext } from '../run/ci-context';
import { nonEmptyFlag } from '../run/engine-flags';
import { writeWarning, type CliIo } from '../run/io';
import { writePieces } from '../run/pieces-write';
import { writeSliced } from '../run/sliced-write';
import { UsageError } from '../run/usage-error';

export const PLAN_FORMATS = ['text', 'markdown', 'json'] as const;
export type PlanFormat = (typeof PLAN_FORMATS)[number];

export const MARKDOWN_PART_DIVIDER = '<!-- secretform: next part -->';

/** Highest part number looked for when removing the extra parts an earlier, longer plan left behind. */
const STALE_PART_LIMIT = 10_000;

/** `--format` and `--out-file` as commander hands them to plan and show. */
export interface ReportFlags {
  format: string;
  outFile?: string;
}

export function addReportOptions(command: Command): Command {
  return command
    .option('--format <format>', 'report format: text, markdown (pull-request comment) or json', 'text')
    .option('--out-file <path>', 'write the report (the --format output) to this file instead of stdout (markdown parts after the first: <name>.2.md, <name>.3.md, ...)');
}

/** Checks both flags; throws a UsageError naming the flag. */
export function parseReportFlags(flags: ReportFlags): { format: PlanFormat; outFile: string | undefined } {
  return { format: parseFormat(flags.format), outFile: nonEmptyFlag('--out-file', flags.outFile) };
}

export function parseFormat(value: string): PlanFormat {
  const format = PLAN_FORMATS.find((candidate) => candidate === value);
  if (format === undefined) throw new UsageError(`--format must be one of ${PLAN_FORMATS.join(', ')}; got "${value}"`);
  return format;
}

/** The file of markdown part `index` (1-based) when the plan goes to `outFile`. */
export function markdownPartPath(outFile: string, index: number): string {
  if (index === 1) return outFile;
  const base = outFile.toLowerCase().endsWith('.md') ? outFile.slice(0, -3) : outFile;
  return `${base}.${index}.md`;
}

/** The report as the texts to write: one per file (markdown may have several parts). */
export function renderReport(reports: readonly StackReport[], format: PlanFormat, color: boolean, context?: CommentContext): string[] {
  if (format === 'json') return [renderJson(reports)];
  if (format === 'text') return [renderText(reports, { color })];
  return renderMarkdown(reports, { context }).map((part) => (part.endsWith('\n') ? part : `${part}\n`));
}

/**
 * Writes the report of the stacks (one section each; one stack that planned reads as that stack alone) to stdout
 * or `outFile` (relative to the project directory). Plan warnings go to stderr unless the text report on stdout
 * already shows them. Throws when a file cannot be written. `savedPlanFile` (the plan saved with `--out`, or the
 * one `show` reads) goes into the markdown's context line as the command applying it. Resolves once the whole
 * report is handed to stdout (a JSON report on a pipe is written while it is made, pieces-write.ts, and the pipe
 * may still hold part of it: the binary waits for it before exiting); on a stream that takes every write at once,
 * all is written before this returns.
 */
export function writePlanReport(reports: readonly StackReport[], format: PlanFormat, outFile: string | undefined, io: CliIo, savedPlanFile?: string): Promise<void> {
  const context = markdownContext(format, io, savedPlanFile);
  const report: Rendering = {
    files: () => renderReport(reports, format, false, context),
    stdout: (color) => (format === 'json' ? jsonPieces(reports) : [renderReport(reports, format, color, context).join(`\n${MARKDOWN_PART_DIVIDER}\n\n`)]),
    inPieces: format === 'json',
  };
  return writeReport(report, reportWarnings(reports), format, outFile, io);
}

/** The JSON report's pieces (made as they are taken), then its final newline. */
function* jsonPieces(reports: readonly StackReport[]): Generator<string, void, undefined> {
  yield* jsonReportPieces(reports);
  yield '\n';
}

/**
 * The report as written: `files`, one text per file (markdown may have several parts); `stdout`, the texts written
 * one after the other: the parts joined, or (`inPieces`) the JSON report in pieces made as they are written.
 */
interface Rendering {
  files: () => string[];
  stdout: (color: boolean) => Iterable<string>;
  inPieces: boolean;
}

/** The comment's context line (commit, CI run, time, how a saved plan is applied), for markdown only. */
function markdownContext(format: PlanFormat, io: CliIo, savedPlanFile: string | undefined): CommentContext | undefined {
  return format === 'markdown' ? commentContext(io.env, savedPlanFile) : undefined;
}

function writeReport(report: Rendering, warnings: readonly string[], format: PlanFormat, outFile: string | undefined, io: CliIo): Promise<void> {
  const textOnStdout = format === 'text' && outFile === undefined;
  if (!textOnStdout) for (const warning of warnings) writeWarning(io, warning);

  if (outFile === undefined) {
    const texts = report.stdout(shouldUseColor(io.stdout, io.env));
    if (report.inPieces) return writePieces(io.stdout, texts);
    // A report of thousands of objects is megabytes: written in slices of whole lines (sliced-write.ts says why).
    for (const text of texts) writeSliced(io.stdout, text);
    return Promise.resolve();
  }

  const parts = report.files();
  const target = path.resolve(io.cwd, outFile);
  const written = parts.map((_, i) => markdownPartPath(target, i + 1));
  fs.mkdirSync(path.dirname(target), { recursive: true });
  parts.forEach((part, i) => writeReportFile(written[i], part));
  if (format === 'markdown') removeStaleParts(target, parts.length);

  const shown = parts.map((_, i) => markdownPartPath(outFile, i + 1));
  io.stderr.write(shown.length === 1 ? `Plan written to ${shown[0]}\n` : `Plan written in ${shown.length} parts: ${shown.join(', ')}\n`);
  return Promise.resolve();
}

function writeReportFile(file: string, text: string): void {
  try {
    fs.writeFileSync(file, text);
  } catch (error) {
    throw new Error(`cannot write the plan to ${file}: ${(error as Error).message}`, { cause: error });
  }
}

/** A shorter plan must not leave an earlier plan's part 3 next to its own parts 1 and 2. */
function removeStaleParts(outFile: string, partCount: number): void {
  for (let index = partCount + 1; index <= STALE_PART_LIMIT; index++) {
    const stale = markdownPartPath(outFile, index);
    if (!fs.existsSync(stale)) return;
    fs.rmSync(stale, { force: true });
  }
}

/**
 * Whether the text report goes to the same terminal as stderr: then it already shows each failed stack's error
 * in the stack's section, and stderr says only where to look (one message per failure on a screen), instead of
 * repeating each error. Piped, stderr carries every error in full (a CI log keeps them apart from the report).
 */
export function reportShowsErrorsOnScreen(io: CliIo, format: PlanFormat, outFile: string | undefined): boolean {
  return format === 'text' && outFile === undefined && io.stdout.isTTY === true && io.stderr.isTTY === true;
}

/** `stack prod did not plan: its error is in its section above` (stacks that failed or were skipped). */
export function stacksProblemsAboveLine(stacks: readonly string[]): string {
  return stacks.length === 1
    ? `stack ${stacks[0]} did not plan: its error is in its section above`
    : `stacks ${stacks.join(', ')} did not plan: their errors are in their sections above`;
}
