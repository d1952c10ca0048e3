/**
 * `secretform show PLANFILE [--stack PATTERN]... [--format text|markdown|json] [--out-file PATH]`: renders a saved
 * plan as `plan` rendered it, without contacting the service (the CI job that posts the pull-request comment
 * needs no token). A plan over several stacks renders as one report of them all, or of the stacks --stack names.
 */
import * as path from 'node:path';
import type { Command } from 'commander';
import { checkSavedPlanWithoutService, readSavedPlanSet, selectStacks } from '../../engine';
import { collectNames, nonEmptyFlag } from '../run/engine-flags';
import { commandFailure, type CommandEnd } from '../run/command-failure';
import { processIo, type CliIo } from '../run/io';
import type { CommandOutcome } from '../run/command-outcome';
import { addReportOptions, parseReportFlags, writePlanReport, type ReportFlags } from '../views/plan-report';
import { stackReport } from '../../report';
import { SARIF_OPTION_HELP, writeSarifFile } from '../views/sarif-output';

export interface ShowFlags extends ReportFlags {
  /** `--stack`, repeatable: the stacks of a plan over several stacks to show. */
  stack?: string[];
  /** `--sarif PATH`: the policy results saved with the plan, as SARIF. */
  sarif?: string;
}

export function registerShowCommand(program: Command, outcome: CommandOutcome): void {
  addReportOptions(
    program
      .command('show')
      .description('render a saved plan (`plan --out PLANFILE`) as `plan` shows it; reads the file only')
      .argument('<planfile>', 'the saved plan')
      .option('--stack <pattern>', "show only these stacks of a plan over several stacks (repeatable; glob patterns such as 'prod-*')", collectNames)
      .option('--sarif <path>', SARIF_OPTION_HELP),
  )
    .action(async (planFile: string, flags: ShowFlags) => {
      outcome.end = await runShow(planFile, flags, processIo());
    });
}

export async function runShow(planFile: string, flags: ShowFlags, io: CliIo): Promise<CommandEnd> {
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
  const read = await readSavedPlanSet(path.resolve(io.cwd, planFile));
  if (!read.ok) return commandFailure(read.error);
  const plans = read.value.plans;
  for (const saved of plans) {
    const bound = checkSavedPlanWithoutService(saved, io.env, planFile);
    if (!bound.ok) return commandFailure(bound.error);
  }
  const selected = selectStacks(plans.map((saved) => saved.stack), patterns, 'read', 'show');
  if (!selected.ok) return commandFailure(selected.error);
  const shown = plans.filter((saved) => selected.value.includes(saved.stack));
  try {
    writePlanReport(shown.map((saved) => stackReport(saved.plan)), report.format, report.outFile, io, planFile);
    if (sarifFile !== undefined) writeSarifFile(shown.map((saved) => saved.plan), sarifFile, io);
  } catch (error) {
    return commandFailure(error);
  }
  return 0;
}
