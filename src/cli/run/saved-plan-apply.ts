/**
 * `secretform apply PLANFILE`: carries out a saved plan. The plan is the approval (it was reviewed when it was
 * made), so there is no prompt, and nothing is synthesized: the desired state is the one saved. The options that
 * would change what the plan is (--target, --refresh-only, --app, --output) are refused; the state location and
 * how the run goes (--state, --lock-timeout, --parallelism) are this run's.
 *
 * `secretform apply PLANFILE...`: several files (one per CI job of a fleet) are applied as one set, as one plan
 * over their stacks would be: a stack in two files, a file of another app or planned against another state, and
 * a file whose MAC does not match the SECRETFORM_STATE_KEY are refused before any request; then every stack is
 * checked for staleness (and its MAC with its key) before the first write anywhere, and the stacks run in
 * dependency order across the files.
 */
import * as path from 'node:path';
import { applySavedPlan, checkPlanFilesOrigin, checkSavedPlanSetWithoutService, type SavedPlan, type SavedPlanSet, type SavedPlanSetApplyOptions } from '../../engine';
import { writeResult } from '../views/apply-report';
import { defaultProcessHooks, runChange, type ChangeFlags, type ProcessHooks } from './change-run';
import { configuredOutputDir, parseEngineFlags, runSettings, stateFlagValue, type EngineSettings } from './engine-flags';
import { commandFailure, CommandFailure, failureInStack, usageFailure, type CommandEnd } from './command-failure';
import type { CliIo } from './io';
import type { LoadedPolicies } from '../../policy';
import { readPlanFiles, type PlanFiles } from './plan-files';
import { loadRunPolicies } from './policy-flags';
import { savedPlanConnectionMismatch } from '../../engine/saved-plan/saved-plan-connection';
import { checkSavedPlanConnection } from './service-environment';
import { UsageError } from './usage-error';
import { plannedOperations } from './progress';

export async function runSavedPlanApply(planFiles: readonly string[], flags: ChangeFlags, io: CliIo, hooks: ProcessHooks = defaultProcessHooks()): Promise<CommandEnd> {
  let settings: EngineSettings;
  try {
    settings = parseEngineFlags(flags);
    refuseFlagsThatChangeThePlan(flags, settings);
  } catch (error) {
    return commandFailure(error);
  }
  const files = await readPlanFiles(planFiles, io.cwd);
  if (!files.ok) return commandFailure(files.error);
  const planFile = planFiles.join(' ');
  if (planFiles.length > 1) {
    const joined = checkJoinedFiles(files.value, settings, io);
    if (joined !== undefined) return joined;
  }
  const set = files.value.set;
  // The file is not trusted before its MAC is checked, and that check may read the key from the service: each
  // stack's service must be the one the code or the environment names, checked for every stack before anything.
  for (const plan of set.plans) {
    const mismatch = savedPlanConnectionMismatch(plan, io, settings.output);
    if (mismatch !== undefined) {
      const failure = new CommandFailure('service_mismatch', mismatch);
      // In a plan of several stacks the failure names its stack.
      return set.plans.length > 1 ? failureInStack(failure, plan.stack) : failure;
    }
  }
  let policies: LoadedPolicies | undefined;
  try {
    // The packs the plan was made with, and any given now.
    policies = await loadRunPolicies(flags, io, set.plans.flatMap((plan) => plan.policy_packs ?? []));
  } catch (error) {
    return commandFailure(error);
  }
  // Each stack goes to the service it was planned against: its connection, else the environment. Every
  // stack's is checked before the first request to any.
  for (const plan of set.plans) {
    const connectionProblem = checkSavedPlanConnection(plan, io);
    if (connectionProblem !== undefined) return set.plans.length > 1 ? failureInStack(connectionProblem, plan.stack) : connectionProblem;
  }
  const problem = savedPlanStackProblem(planFile, set, settings);
  if (problem !== undefined) return problem;
  io.stdout.write(`Applying the saved plan${planFiles.length > 1 ? 's' : ''} ${planFiles.join(', ')} (${describePlan(set)}).\n`);
  // The plan chose its stacks and targets (each stack's plan holds its own): the advice of an error repeats them.
  // Its --stack always, even for a plan of one stack: this run reads no synth output, so it cannot tell that
  // the app has no other stack, and without it a pasted apply in an app of several is refused and a plan covers
  // them all.
  const selection = { stacks: set.plans.map((plan) => plan.stack), targets: set.plans.flatMap((plan) => plan.targets) };
  return runChange({
    command: 'apply',
    several: set.plans.length > 1,
    operations: plannedOperations(set.plans.map((saved) => saved.plan)),
    start: (run) => applySavedPlan(set, { ...savedPlanRunOptions(planFile, settings, io), planFileOf: files.value.fileOf, ...run, policies, output: settings.output, allowUnverified: flags.allowUnverifiedPlan === true }),
    writeStack: (command, stackResult, stackIo) => writeResult(command, stackResult, stackIo, selection),
  }, io, hooks);
}

/**
 * Files of separate runs joined into one set: checked before any request, where one file alone needs none of it:
 * that they are this app's and were planned against this run's state (plan-file-origin.ts), and, when the run has
 * SECRETFORM_STATE_KEY, that each one's MAC matches it (the engine checks each stack's MAC again with its key).
 */
function checkJoinedFiles(files: PlanFiles, settings: EngineSettings, io: CliIo): CommandFailure | undefined {
  const outdir = path.resolve(io.cwd, settings.output ?? configuredOutputDir(io.cwd));
  const origin = checkPlanFilesOrigin(files.set, files.fileOf, { outdir, statePath: stateFlagValue(settings.statePath, io.cwd), env: io.env, cwd: io.cwd });
  if (!origin.ok) return commandFailure(origin.error);
  const bound = checkSavedPlanSetWithoutService(files.set, io.env, files.fileOf);
  return bound.ok ? undefined : commandFailure(bound.error);
}

/**
 * Why `--stack` does not go with this plan, or undefined: the plan fixes its stacks. A plan of one stack takes
 * that stack's name (or none), a plan of several takes none.
 */
function savedPlanStackProblem(planFile: string, set: SavedPlanSet, settings: EngineSettings): CommandFailure | undefined {
  const stacks = set.plans.map((plan) => plan.stack);
  if (stacks.length > 1) {
    if (settings.stacks.length === 0) return undefined;
    return usageFailure(`${planFile} is a plan of ${stacks.length} stacks (${stacks.join(', ')}), applied together; drop --stack (to apply fewer stacks, make a plan of those: \`secretform plan --stack NAME --out PLANFILE\`)`);
  }
  const [stack] = stacks;
  if (settings.stacks.length > 1) {
    return usageFailure(`${planFile} is a plan of stack "${stack}" only; drop --stack or use a plan of the stacks you name`);
  }
  if (settings.stack !== undefined && settings.stack !== stack) {
    return usageFailure(`${planFile} is a plan of stack "${stack}", not "${settings.stack}"; drop --stack or use that stack's plan`);
  }
  return undefined;
}

/** What the plan covers, as the line before its run says it. */
function describePlan(set: SavedPlanSet): string {
  if (set.plans.length > 1) return `${set.plans.length} stacks: ${set.plans.map((plan) => plan.stack).join(', ')}; made ${set.plans[0].created_at}`;
  const [saved] = set.plans;
  return `stack ${saved.stack}, made ${saved.created_at}${describeMode(saved)}`;
}

/** How this run of a saved plan goes: the state location and the run's settings are this run's. */
function savedPlanRunOptions(planFile: string, settings: EngineSettings, io: CliIo): Pick<SavedPlanSetApplyOptions, 'planFile' | 'statePath' | 'lockTimeoutMs' | 'env' | 'cwd' | 'parallelism' | 'timeoutMs'> {
  return { planFile, ...runSettings(settings, io) };
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
  // The plan's stacks were chosen when it was made (`plan --changed --out PLANFILE`).
  if (flags.changed === true) refused.push('--changed');
  if (settings.app !== undefined) refused.push('--app');
  if (refused.length > 0) {
    throw new UsageError(`${refused.join(', ')} cannot be combined with a saved plan: the plan fixes what is applied (make a new plan with them: \`secretform plan ${refused[0]} ... --out PLANFILE\`)`);
  }
}
