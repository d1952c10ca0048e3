/**
 * `secretform apply PLANFILE`: carries out a saved plan. The plan is the approval (it was reviewed when it was
 * made), so there is no prompt, and nothing is synthesized: the desired state is the one saved. The options that
 * would change what the plan is (--target, --refresh-only, --app, --output) are refused; the state location and
 * how the run goes (--state, --lock-timeout, --parallelism) are this run's.
 */
import * as path from 'node:path';
import { applySavedPlan, readSavedPlan, type SavedPlan } from '../engine';
import { refreshOnlySummaryLine, writeApplyResult } from './apply-report';
import { defaultProcessHooks, type ChangeFlags, type ProcessHooks } from './change-run';
import { parseEngineFlags, stateFlagValue, type EngineSettings } from './engine-flags';
import { watchInterrupts } from './interrupt';
import { failWith, type CliIo } from './io';
import { createProgressReporter } from './progress';
import { checkSavedPlanConnection } from './service-environment';
import { UsageError } from './usage-error';

export async function runSavedPlanApply(planFile: string, flags: ChangeFlags, io: CliIo, hooks: ProcessHooks = defaultProcessHooks()): Promise<number> {
  let settings: EngineSettings;
  try {
    settings = parseEngineFlags(flags);
    refuseFlagsThatChangeThePlan(flags, settings);
  } catch (error) {
    return failWith(io, error);
  }
  const read = await readSavedPlan(path.resolve(io.cwd, planFile));
  if (!read.ok) return failWith(io, read.error);
  const saved = read.value;
  // The plan's stack goes to the service it was planned against: its connection, else the environment.
  const connectionProblem = checkSavedPlanConnection(saved, io);
  if (connectionProblem !== undefined) return failWith(io, connectionProblem);
  if (settings.stack !== undefined && settings.stack !== saved.stack) {
    return failWith(io, new UsageError(`${planFile} is a plan of stack "${saved.stack}", not "${settings.stack}"; drop --stack or use that stack's plan`));
  }
  io.stdout.write(`Applying the saved plan ${planFile} (stack ${saved.stack}, made ${saved.created_at}${describeMode(saved)}).\n`);

  const progress = createProgressReporter(io, { showOperations: true });
  const watch = watchInterrupts(io, hooks.signals, hooks.exit);
  let result;
  try {
    result = await applySavedPlan(saved, {
      statePath: stateFlagValue(settings.statePath, io.cwd),
      lockTimeoutMs: settings.lockTimeoutMs,
      env: io.env,
      cwd: io.cwd,
      parallelism: settings.parallelism,
      onProgress: progress.onProgress,
      signal: watch.signal,
    });
  } finally {
    watch.dispose();
    progress.finish();
  }
  if (!result.ok) return failWith(io, result.error);
  if (saved.refresh_only && result.value.succeeded) {
    io.stdout.write(`\n${refreshOnlySummaryLine(result.value.plan.drift.length)}\n`);
    return 0;
  }
  return writeApplyResult('apply', result.value, io);
}

function describeMode(saved: SavedPlan): string {
  const parts: string[] = [];
  if (saved.refresh_only) parts.push('refresh-only');
  if (saved.targets.length > 0) parts.push(`targets ${saved.targets.join(', ')}`);
  return parts.length > 0 ? `, ${parts.join(', ')}` : '';
}

function refuseFlagsThatChangeThePlan(flags: ChangeFlags, settings: EngineSettings): void {
  const refused: string[] = [];
  if (settings.targets.length > 0) refused.push('--target');
  if (flags.refreshOnly === true) refused.push('--refresh-only');
  if (settings.app !== undefined) refused.push('--app');
  if (settings.output !== undefined) refused.push('--output');
  if (refused.length > 0) {
    throw new UsageError(`${refused.join(', ')} cannot be combined with a saved plan: the plan fixes what is applied (make a new plan with them: \`secretform plan ${refused[0]} ... --out PLANFILE\`)`);
  }
}
