/**
 * `secretform show PLANFILE [--format text|markdown|json] [--out-file PATH]`: renders a saved plan as `plan`
 * rendered it, without contacting the service (the CI job that posts the pull-request comment needs no token).
 */
import * as path from 'node:path';
import type { Command } from 'commander';
import { checkSavedPlanWithoutService, readSavedPlan } from '../../engine';
import { failWith, processIo, type CliIo } from '../io';
import type { CommandOutcome } from '../main';
import { addReportOptions, parseReportFlags, writePlanReport, type ReportFlags } from '../plan-report';

export function registerShowCommand(program: Command, outcome: CommandOutcome): void {
  addReportOptions(
    program
      .command('show')
      .description('render a saved plan (`plan --out PLANFILE`) as `plan` shows it; reads the file only')
      .argument('<planfile>', 'the saved plan'),
  )
    .action(async (planFile: string, flags: ReportFlags) => {
      outcome.exitCode = await runShow(planFile, flags, processIo());
    });
}

export async function runShow(planFile: string, flags: ReportFlags, io: CliIo): Promise<number> {
  let report;
  try {
    report = parseReportFlags(flags);
  } catch (error) {
    return failWith(io, error);
  }
  const read = await readSavedPlan(path.resolve(io.cwd, planFile));
  if (!read.ok) return failWith(io, read.error);
  const bound = checkSavedPlanWithoutService(read.value, io.env, planFile);
  if (!bound.ok) return failWith(io, bound.error);
  try {
    writePlanReport(read.value.plan, report.format, report.outFile, io, planFile);
  } catch (error) {
    return failWith(io, error);
  }
  return 0;
}
