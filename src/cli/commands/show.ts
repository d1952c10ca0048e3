/**
 * `secretform show PLANFILE [--format text|markdown|json] [--out-file PATH]`: renders a saved plan as `plan`
 * rendered it, without contacting the service (the CI job that posts the pull-request comment needs no token).
 */
import * as path from 'node:path';
import type { Command } from 'commander';
import { readSavedPlan } from '../../engine';
import { nonEmptyFlag } from '../engine-flags';
import { failWith, processIo, type CliIo } from '../io';
import type { CommandOutcome } from '../main';
import { parseFormat, writePlanReport } from '../plan-report';

export interface ShowFlags {
  format: string;
  outFile?: string;
}

export function registerShowCommand(program: Command, outcome: CommandOutcome): void {
  program
    .command('show')
    .description('render a saved plan (`plan --out PLANFILE`) as `plan` shows it; reads the file only')
    .argument('<planfile>', 'the saved plan')
    .option('--format <format>', 'report format: text, markdown (pull-request comment) or json', 'text')
    .option('--out-file <path>', 'write the report to this file instead of stdout (markdown parts after the first: <name>.2.md, ...)')
    .action(async (planFile: string, flags: ShowFlags) => {
      outcome.exitCode = await runShow(planFile, flags, processIo());
    });
}

export async function runShow(planFile: string, flags: ShowFlags, io: CliIo): Promise<number> {
  let format;
  let outFile;
  try {
    format = parseFormat(flags.format);
    outFile = nonEmptyFlag('--out-file', flags.outFile);
  } catch (error) {
    return failWith(io, error);
  }
  const read = await readSavedPlan(path.resolve(io.cwd, planFile));
  if (!read.ok) return failWith(io, read.error);
  try {
    writePlanReport(read.value.plan, format, outFile, io);
  } catch (error) {
    return failWith(io, error);
  }
  return 0;
}
