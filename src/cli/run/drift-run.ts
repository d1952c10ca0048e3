/**
 * `secretform drift` (the check): the stacks chosen as plan chooses them, each checked read-only
 * (engine/drift/drift-check.ts), one report over all of them, and the exit code. A stack whose history cannot be
 * read is still reported (without statuses); `--detailed-exitcode` then fails, since what alerts is unknown.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { driftCheck } from '../../engine/drift/stacks-drift';
import { alerts } from '../../engine/drift/statuses';
import { renderDriftHtml } from '../../report/drift/html';
import { renderDriftJson } from '../../report/drift/json';
import { renderDriftMarkdown } from '../../report/drift/markdown';
import { renderDriftText } from '../../report/drift/text';
import type { StackDriftOutcome } from '../../report/drift/drift-view';
import { nonEmptyFlag, parseEngineFlags, prepareServiceRun, type StateFlags } from './engine-flags';
import { inStack } from '../../engine/errors';
import { describeEngineError, type SubjectError } from '../../report/engine-error';
import { commandFailure, CommandFailure, type CommandEnd } from './command-failure';
import { writeError, writeWarning, type CliIo } from './io';
import { chooseStacks } from './stack-choice';
import { UsageError } from './usage-error';

export const DRIFT_FORMATS = ['text', 'markdown', 'json', 'html'] as const;
export type DriftFormat = (typeof DRIFT_FORMATS)[number];
export const DRIFT_ALERT_EXIT_CODE = 2;

const DRIFT_RENDERERS: Readonly<Record<DriftFormat, (outcomes: readonly StackDriftOutcome[], checkedAt: string) => string>> = {
  text: renderDriftText,
  markdown: renderDriftMarkdown,
  json: renderDriftJson,
  html: renderDriftHtml,
};

export interface DriftFlags extends StateFlags {
  parallelism?: string;
  timeout?: string;
  format: string;
  outFile?: string;
  /** `--json-out PATH`: the JSON report too, from the same check (a workflow decides by it, posts the markdown). */
  jsonOut?: string;
  detailedExitcode?: boolean;
  failOn?: string;
  /** False with --no-record. */
  record: boolean;
}

export async function runDrift(flags: DriftFlags, io: CliIo): Promise<CommandEnd> {
  let settings;
  let format: DriftFormat;
  let failOn: 'new' | 'any';
  let outFile: string | undefined;
  let jsonOut: string | undefined;
  try {
    settings = parseEngineFlags(flags);
    format = parseDriftFormat(flags.format);
    failOn = parseFailOn(flags.failOn, flags.detailedExitcode === true);
    outFile = nonEmptyFlag('--out-file', flags.outFile);
    jsonOut = nonEmptyFlag('--json-out', flags.jsonOut);
  } catch (error) {
    return commandFailure(error);
  }
  const prepared = await prepareServiceRun(settings, io);
  if (prepared instanceof CommandFailure) return prepared;
  const choice = chooseStacks(prepared, settings, 'read', 'drift', io);
  if (choice instanceof CommandFailure) return choice;
  // The stack set every command runs over: a drift check of several stacks is the check of each.
  const now = new Date();
  const checked = await driftCheck(choice.stacks.length === 1 ? choice.options : { ...choice.options, stacks: choice.stacks }, { record: flags.record, now });
  if (!checked.ok) return commandFailure(checked.error);
  // A stack's report says its failure as the engine said it; the error lines after the report name the stack.
  const outcomes: StackDriftOutcome[] = checked.value.map((outcome) => (
    outcome.status === 'done' ? { stack: outcome.value.stack, check: outcome.value }
      : { stack: outcome.stack, error: outcome.status === 'failed' ? describeEngineError(outcome.error) : `not checked: stack ${outcome.dependency} was not` }
  ));
  const failures: (SubjectError | undefined)[] = checked.value.map((outcome) => (
    outcome.status === 'done' ? undefined
      : outcome.status === 'failed' ? inStack(outcome.error, outcome.stack)
        : { message: `not checked: stack ${outcome.dependency} was not`, subject: { stack: outcome.stack } }
  ));
  const checkedAt = now.toISOString();
  const report = DRIFT_RENDERERS[format](outcomes, checkedAt);
  try {
    writeDriftReport(report, outFile, io);
    // The same check as JSON: a second check would see itself as the previous one (every drift `known`).
    if (jsonOut !== undefined) writeDriftReport(format === 'json' ? report : renderDriftJson(outcomes, checkedAt), jsonOut, io);
  } catch (error) {
    return commandFailure(error);
  }

  for (const [index, outcome] of outcomes.entries()) {
    const failure = failures[index];
    if (failure !== undefined || !('check' in outcome)) {
      writeError(io, describeEngineError(failure!));
      continue;
    }
    for (const warning of outcome.check.warnings) writeWarning(io, warning);
    if (outcome.check.historyProblem) writeError(io, describeEngineError(inStack(outcome.check.historyProblem, outcome.stack)));
  }
  if (failures.some((failure) => failure !== undefined)) return 1;
  if (flags.detailedExitcode !== true) return 0;
  const unknown = outcomes.filter((outcome) => 'check' in outcome && outcome.check.historyProblem !== undefined);
  if (unknown.length > 0) {
    return commandFailure(`--fail-on ${failOn} needs each drifted object's status, and the drift history of ${unknown.map((outcome) => `stack ${outcome.stack}`).join(', ')} cannot be read (see above): fix or remove it, then check again`);
  }
  return outcomes.some((outcome) => 'check' in outcome && alerts(outcome.check.drifted, failOn)) ? DRIFT_ALERT_EXIT_CODE : 0;
}

function parseDriftFormat(value: string): DriftFormat {
  if ((DRIFT_FORMATS as readonly string[]).includes(value)) return value as DriftFormat;
  throw new UsageError(`--format must be one of ${DRIFT_FORMATS.join(', ')}, got "${value}"`);
}

function parseFailOn(value: string | undefined, detailed: boolean): 'new' | 'any' {
  if (value === undefined) return 'new';
  if (!detailed) throw new UsageError('--fail-on decides the exit code of --detailed-exitcode: give --detailed-exitcode too, or drop --fail-on');
  if (value === 'new' || value === 'any') return value;
  throw new UsageError(`--fail-on must be new (new or changed drift) or any (any drift not acknowledged), got "${value}"`);
}

function writeDriftReport(report: string, outFile: string | undefined, io: CliIo): void {
  if (outFile === undefined) {
    io.stdout.write(report);
    return;
  }
  const target = path.resolve(io.cwd, outFile);
  try {
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, report);
  } catch (error) {
    throw new Error(`cannot write the drift report to ${outFile}: ${(error as Error).message}`, { cause: error });
  }
  io.stderr.write(`Drift report written to ${outFile}\n`);
}
