/**
 * `secretform apply PLANFILE`: carries out a saved plan. The plan is the approval (it was reviewed when it was
 * made), so there is no prompt, and nothing is synthesized: the desired state is the one saved. The options that
 * would change what the plan is (--target, --refresh-only, --app, --output) are refused; the state location and
 * how the run goes (--state, --lock-timeout, --parallelism) are this run's.
 */
import * as path from 'node:path';
import { applySavedPlan, applySavedPlanSet, readSavedPlanSet, type SavedPlan, type SavedPlanApplyOptions, type SavedPlanSet } from '../engine';
import { writeResult, writeRunResult } from './apply-report';
import { defaultProcessHooks, withInterrupts, type ChangeFlags, type ProcessHooks } from './change-run';
import { parseEngineFlags, stateFlagValue, type EngineSettings } from './engine-flags';
import { watchInterrupts } from './interrupt';
import { failWith, type CliIo } from './io';
import type { LoadedPolicies } from '../policy';
import { loadRunPolicies } from './policy-flags';
import { createProgressReporter } from './progress';
import { checkSavedPlanConnection } from './service-environment';
import { writeStacksResult } from './stacks-change-run';
import { UsageError } from './usage-error';

export async function runSavedPlanApply(planFile: string, flags: ChangeFlags, io: CliIo, hooks: ProcessHooks = defaultProcessHooks()): Promise<number> {
  let settings: EngineSettings;
  try {
    settings = parseEngineFlags(flags);
    refuseFlagsThatChangeThePlan(flags, settings);
  } catch (error) {
    return failWith(io, error);
  }
  const read = await readSavedPlanSet(path.resolve(io.cwd, planFile));
  if (!read.ok) return failWith(io, read.error);
  let policies: LoadedPolicies | undefined;
  try {
    // The packs the plan was made with, and any given now.
    policies = await loadRunPolicies(flags, io, read.value.plans.flatMap((plan) => plan.policy_packs ?? []));
  } catch (error) {
    return failWith(io, error);
  }
  // Each stack goes to the service it was planned against: its connection, else the environment. Every
  // stack's is checked before the first request to any.
  for (const plan of read.value.plans) {
    const connectionProblem = checkSavedPlanConnection(plan, io);
    if (connectionProblem !== undefined) return failWith(io, read.value.plans.length > 1 ? `stack ${plan.stack}: ${connectionProblem}` : connectionProblem);
  }
  if (read.value.plans.length > 1) return runSavedPlanSetApply(planFile, read.value, settings, policies, io, hooks);
  const saved = read.value.plans[0];
  if (settings.stacks.length > 1) {
    return failWith(io, new UsageError(`${planFile} is a plan of stack "${saved.stack}" only; drop --stack or use a plan of the stacks you name`));
  }
  if (settings.stack !== undefined && settings.stack !== saved.stack) {
    return failWith(io, new UsageError(`${planFile} is a plan of stack "${saved.stack}", not "${settings.stack}"; drop --stack or use that stack's plan`));
  }
  io.stdout.write(`Applying the saved plan ${planFile} (stack ${saved.stack}, made ${saved.created_at}${describeMode(saved)}).\n`);

  const progress = createProgressReporter(io, { showOperations: true });
  const watch = watchInterrupts(io, hooks.signals, hooks.exit);
  let result;
  try {
    result = await applySavedPlan(saved, { ...savedPlanRunOptions(planFile, settings, io, progress.onProgress, watch.signal), policies });
  } finally {
    watch.dispose();
    progress.finish();
  }
  if (!result.ok) return failWith(io, result.error);
  // The plan chose its stack and targets: the advice of an error repeats them. Its --stack always, as a plan of
  // several names its stacks: this run reads no synth output, so it cannot tell that the app has no other stack,
  // and without it a pasted apply in an app of several is refused and a plan covers them all.
  return writeRunResult('apply', result.value, io, progress, { stacks: [saved.stack], targets: saved.targets });
}

/**
 * A saved plan over several stacks: every stack is checked for staleness before the first write anywhere, then
 * the stacks are applied in dependency order. The plan fixes its stacks: --stack is refused.
 */
async function runSavedPlanSetApply(
  planFile: string,
  set: SavedPlanSet,
  settings: EngineSettings,
  policies: LoadedPolicies | undefined,
  io: CliIo,
  hooks: ProcessHooks,
): Promise<number> {
  const stacks = set.plans.map((plan) => plan.stack);
  if (settings.stacks.length > 0) {
    return failWith(io, new UsageError(`${planFile} is a plan of ${stacks.length} stacks (${stacks.join(', ')}), applied together; drop --stack (to apply fewer stacks, make a plan of those: \`secretform plan --stack NAME --out PLANFILE\`)`));
  }
  io.stdout.write(`Applying the saved plan ${planFile} (${stacks.length} stacks: ${stacks.join(', ')}; made ${set.plans[0].created_at}).\n`);
  const progress = createProgressReporter(io, { showOperations: true });
  const result = await withInterrupts(io, hooks, progress, (signal) => applySavedPlanSet(set, { ...savedPlanRunOptions(planFile, settings, io, progress.onProgress, signal), policies }));
  if (!result.ok) return failWith(io, result.error);
  // The plan chose its stacks and targets (each stack's plan holds its own): the advice of an error repeats them.
  const selection = { stacks, targets: set.plans.flatMap((plan) => plan.targets) };
  return writeStacksResult('apply', result.value, io, progress, (command, stackResult, stackIo) => writeResult(command, stackResult, stackIo, selection));
}

/** How this run of a saved plan goes: the state location and the run's settings are this run's. */
function savedPlanRunOptions(
  planFile: string,
  settings: EngineSettings,
  io: CliIo,
  onProgress: SavedPlanApplyOptions['onProgress'],
  signal: AbortSignal,
): Pick<SavedPlanApplyOptions, 'planFile' | 'statePath' | 'lockTimeoutMs' | 'env' | 'cwd' | 'parallelism' | 'onProgress' | 'signal'> {
  return {
    planFile,
    statePath: stateFlagValue(settings.statePath, io.cwd),
    lockTimeoutMs: settings.lockTimeoutMs,
    env: io.env,
    cwd: io.cwd,
    parallelism: settings.parallelism,
    onProgress,
    signal,
  };
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
