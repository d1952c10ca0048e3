/**
 * `secretform show PLANFILE [--format text|markdown|json] [--out-file PATH]`: renders a saved plan as `plan`
 * rendered it, without contacting the service (the CI job that posts the pull-request comment needs no token).
 */
import * as path from 'node:path';
import type { Command } from 'commander';
import { readSavedPlan } from '../../engine';
import { failWith, processIo, type CliIo } from '../io';
import type { CommandOutcome } from '../main';
import { addReportOptions, parseReportFlags, writePlanReport, type ReportFlags } from '../plan-report';
import { nonEmptyFlag } from '../engine-flags';
import { SARIF_OPTION_HELP, writeSarifFile } from '../sarif-output';

interface ShowFlags extends ReportFlags {
  sarif?: string;
}

export function registerShowCommand(program: Command, outcome: CommandOutcome): void {
  addReportOptions(
    program
      .command('show')
      .description('render a saved plan (`plan --out PLANFILE`) as `plan` shows it; reads the file only')
      .argument('<planfile>', 'the saved plan'),
  )
    .option('--sarif <path>', SARIF_OPTION_HELP)
    .action(async (planFile: string, flags: ShowFlags) => {
      outcome.exitCode = await runShow(planFile, flags, processIo());
    });
}

export async function runShow(planFile: string, flags: ShowFlags, io: CliIo): Promise<number> {
  let report;
  let sarifFile;
  try {
    report = parseReportFlags(flags);
    sarifFile = nonEmptyFlag('--sarif', flags.sarif);
  } catch (error) {
    return failWith(io, error);
  }
  const read = await readSavedPlan(path.resolve(io.cwd, planFile));
  if (!read.ok) return failWith(io, read.error);
  try {
    writePlanReport(read.value.plan, report.format, report.outFile, io);
    if (sarifFile !== undefined) writeSarifFile([read.value.plan], sarifFile, io);
  } catch (error) {
    return failWith(io, error);
  }
  return 0;
}
