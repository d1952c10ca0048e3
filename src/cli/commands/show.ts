/**
 * `secretform show PLANFILE... [--stack PATTERN]... [--format text|markdown|json] [--out-file PATH]`: renders saved
 * plans as `plan` rendered them, without contacting the service (the CI job that posts the pull-request comment
 * needs no token). A plan over several stacks, or several files (one per CI job of a fleet), render as one report
 * of them all, as one plan over those stacks would, or of the stacks --stack names.
 */
import type { Command } from 'commander';
import { checkSavedPlanSetWithoutService, selectStacks } from '../../engine';
import { collectNames, nonEmptyFlag } from '../run/engine-flags';
import { commandFailure, type CommandEnd } from '../run/command-failure';
import { processIo, type CliIo } from '../run/io';
import { readPlanFiles } from '../run/plan-files';
import type { CommandOutcome } from '../run/command-outcome';
import { addReportOptions, parseReportFlags, writePlanReport, type ReportFlags } from '../views/plan-report';
import { stackReport } from '../../report';
import { SARIF_OPTION_HELP, writeSarifFile } from '../views/sarif-output';
import { addEnvironmentHelp, COLOR_VARIABLES, COMMENT_VARIABLES } from '../run/environment-variables';

export interface ShowFlags extends ReportFlags {
  /** `--stack`, repeatable: the stacks of a plan over several stacks to show. */
  stack?: string[];
  /** `--sarif PATH`: the policy results saved with the plan, as SARIF. */
  sarif?: string;
}

export function registerShowCommand(program: Command, outcome: CommandOutcome): void {
  addReportOptions(
    addEnvironmentHelp(program.command('show'), ['SECRETFORM_STATE_KEY', ...COLOR_VARIABLES, ...COMMENT_VARIABLES])
      .description('render saved plans (`plan --out PLANFILE`) as `plan` shows them, several files as one report; reads the files only')
      .argument('<planfile...>', 'the saved plans (several: one report over all their stacks; a stack may be in one file only)')
      .option('--stack <pattern>', "show only these stacks of a plan over several stacks (repeatable; glob patterns such as 'prod-*')", collectNames)
      .option('--sarif <path>', SARIF_OPTION_HELP),
  )
    .action(async (planFiles: string[], flags: ShowFlags) => {
      outcome.end = await runShow(planFiles, flags, processIo());
    });
}

export async function runShow(files: readonly string[], flags: ShowFlags, io: CliIo): Promise<CommandEnd> {
  let report;
  let patterns;
  let sarifFile;
  try {
    report = parseReportFlags(flags);
    sarifFile = nonEmptyFlag('--sarif', flags.sarif);
    patterns = (flags.stack ?? []).map((pattern) => nonEmptyFlag('--stack', pattern)!);
  } catch (error) {
    return commandFailure(error);
  }
  const read = await readPlanFiles(files, io.cwd);
  if (!read.ok) return commandFailure(read.error);
  const plans = read.value.set.plans;
  const bound = checkSavedPlanSetWithoutService(read.value.set, io.env, read.value.fileOf);
  if (!bound.ok) return commandFailure(bound.error);
  const selected = selectStacks(plans.map((saved) => saved.stack), patterns, 'read', 'show');
  if (!selected.ok) return commandFailure(selected.error);
  const shown = plans.filter((saved) => selected.value.includes(saved.stack));
  try {
    // The comment's "apply with" line names every file: they are applied together, as one set.
    await writePlanReport(shown.map((saved) => stackReport(saved.plan)), report.format, report.outFile, io, files.join(' '));
    if (sarifFile !== undefined) writeSarifFile(shown.map((saved) => saved.plan), sarifFile, io);
  } catch (error) {
    return commandFailure(error);
  }
  return 0;
}
