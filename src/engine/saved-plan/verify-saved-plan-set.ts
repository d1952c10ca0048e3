/**
 * `verifySavedPlanSet`: what `applySavedPlan` (the library's and `secretform apply PLANFILE`) checks before it
 * trusts anything in a saved plan, every stack before the first run of any, so that one refusal refuses the
 * whole set before any write:
 *
 * 1. each stack's service is the one the run names without the file (saved-plan-connection.ts): the synth
 *    output's connection, else the environment. No request goes anywhere before this holds for every stack;
 * 2. each stack's key is read through that trusted connection (never an address the file alone names), or is
 *    SECRETFORM_STATE_KEY (no request), or the state backend's;
 * 3. each stack's MAC checks with that key over its content and the set (plan-mac.ts): stacks with secrets and
 *    without, the stacks' list and order, their dependencies and connections. A stack with no MAC, or a set
 *    written by format version 1 (whose MACs did not cover the set), is refused unless `allowUnverified`.
 */
import { EngineError, fail, inStack, ok, type Result } from '../errors';
import type { EngineOptions } from '../setup/engine-options';
import { objectOfConnection } from '../setup/desired';
import { prepareRun, savedPlanKey } from '../setup/run-context';
import { ALLOW_UNVERIFIED_FLAG, checkSavedPlanMac, checkSavedPlanWithoutService } from './plan-mac';
import type { SavedPlanSet } from './saved-plan-set';
import { trustedSavedPlanConnection } from './saved-plan-connection';
import { savedPlanSetContext } from './sign-saved-plan-set';

/** What the verification needs of the run: where it is, its state, and the user's choices. */
export type SavedPlanVerificationOptions = Omit<EngineOptions, 'desired' | 'stack' | 'targets' | 'refreshOnly'> & {
  /** The plan's file, for messages. */
  planFile?: string;
  /** The synth output the stacks' connections are checked against; default cdktf.json's `output` in `cwd`, else cdktf.out. */
  output?: string;
  /** Apply a stack whose plan carries no MAC, and a set whose own fields no MAC covers (ALLOW_UNVERIFIED_FLAG). */
  allowUnverified?: boolean;
  /** The file of each stack's plan when the set was joined from several (`apply PLANFILE...`), for messages. */
  planFileOf?: (stack: string) => string;
};

/** Ok when every stack of the set may be trusted; else the first refusal, naming its stack in a set of several. */
export async function verifySavedPlanSet(set: SavedPlanSet, options: SavedPlanVerificationOptions): Promise<Result<void>> {
  const file = options.planFile ?? 'given';
  const several = set.plans.length > 1;
  // In a set of several, the refusal names its stack (its subject) and says that none was changed.
  const refuse = (stack: string, error: EngineError) => {
    if (!several) return fail(error);
    const { code, message, subject } = inStack(error, stack);
    return fail(new EngineError(code, `${message.replace(/\.$/, '')}; no stack was changed`, subject));
  };
  const place = { env: options.env ?? process.env, cwd: options.cwd ?? process.cwd() };

  // 1. Every stack's service, before any request to any.
  const trusted = new Map<string, Record<string, unknown> | undefined>();
  for (const plan of set.plans) {
    const connection = trustedSavedPlanConnection(plan, place, options.output);
    if (!connection.ok) return refuse(plan.stack, new EngineError('service_mismatch', connection.message));
    trusted.set(plan.stack, connection.connection === undefined ? undefined : objectOfConnection(connection.connection));
  }
  // Each stack's MAC covers the set of the file it came from: the whole set, or, joined from several files, its own.
  const whole = savedPlanSetContext(set);
  const contextOf = (stack: string) => set.signedIn?.get(stack) ?? whole;
  // A set written before its own fields were covered: its stacks, order and dependencies are unverified.
  const legacy = set.plans.find((plan) => plan.format_version === 1 && contextOf(plan.stack).stacks.length > 1);
  if (legacy !== undefined && options.allowUnverified !== true) {
    return refuse(legacy.stack, new EngineError('plan_tampered', `the saved plan ${file} is refused, so nothing was read or changed: it was made by an older secretform (format version 1), whose MACs do not cover the set's own fields (its stacks, their order and dependencies). Make a new plan (\`secretform plan --out PLANFILE\`), or, having checked the file yourself, apply it with ${ALLOW_UNVERIFIED_FLAG}`));
  }
  // 2 and 3. Each stack's key, through its trusted connection, and its MAC over its content and the set.
  for (const plan of set.plans) {
    const { planFile: _file, output: _output, allowUnverified, planFileOf: _planFileOf, ...engineOptions } = options;
    const run = prepareRun({ ...engineOptions, stack: plan.stack, desired: { kind: 'specs', stack: plan.stack, specs: [], connection: trusted.get(plan.stack) } });
    if (!run.ok) return refuse(plan.stack, run.error);
    const key = await savedPlanKey(run.value);
    if (!key.ok) return refuse(plan.stack, key.error);
    const checked = checkSavedPlanMac(plan, key.value, options.planFileOf?.(plan.stack) ?? file, true, contextOf(plan.stack), allowUnverified === true);
    if (!checked.ok) return refuse(plan.stack, checked.error);
  }
  return ok(undefined);
}

/**
 * The check `show` makes, reading the file only (no request): with SECRETFORM_STATE_KEY set, every stack's MAC
 * must be there and match over the set; without it the keys are on the service or in the state backend, which
 * show does not contact (apply always checks).
 */
export function checkSavedPlanSetWithoutService(set: SavedPlanSet, env: NodeJS.ProcessEnv, fileOf: (stack: string) => string): Result<void> {
  const whole = savedPlanSetContext(set);
  for (const plan of set.plans) {
    const checked = checkSavedPlanWithoutService(plan, env, fileOf(plan.stack), set.signedIn?.get(plan.stack) ?? whole);
    if (!checked.ok) return set.plans.length > 1 ? fail(inStack(checked.error, plan.stack)) : checked;
  }
  return ok(undefined);
}
