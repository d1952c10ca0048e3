/**
 * Whether saved plans joined from several files (plan-file-set.ts) belong to the app and the state of this run,
 * checked before any request: the files come from separate CI jobs, so one of another app, or planned against
 * another state, can be among them by mistake (a shared artifact name, a download of every artifact).
 *
 * What identifies the app: its synth output (the one the run reads: `--output`, cdktf.json's, or cdktf.out).
 * Every stack of the files must be a stack of it, by name; the connection each stack's plan names must be the
 * one that output gives the stack (checked with the connection, saved-plan-connection.ts); and each plan must
 * have been made against the state this run opens for its stack: the same state file, or the same PostgreSQL
 * host, port, database and schema (the user may differ: a plan job can read with a read-only role).
 */
import { EngineError, fail, ok, type Result } from '../errors';
import { listSynthesizedStacks } from '../setup/desired';
import { parsePostgresUrl, resolveStateLocation, type StateLocation } from '../state/state-location';
import type { SavedPlanSet } from './saved-plan-set';

/** Where the run looks: the app's synth output, and its state settings. */
export interface PlanFileRun {
  outdir: string;
  statePath?: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** Why the joined set does not belong to this run's app and state (nothing read, nothing sent), or ok. */
export function checkPlanFilesOrigin(set: SavedPlanSet, fileOf: (stack: string) => string, run: PlanFileRun): Result<void> {
  const refuse = (what: string, fix: string) => fail(new EngineError('plan_file', `${what}, so nothing was read or changed: ${fix}`));
  let appStacks: string[];
  try {
    appStacks = listSynthesizedStacks(run.outdir);
  } catch (error) {
    return refuse(`plan files made by separate runs are applied together only against the app they were made from, and its synth output cannot be read (${(error as Error).message})`, 'run `secretform synth` of the checkout first, or name the output with --output');
  }
  for (const plan of set.plans) {
    const file = fileOf(plan.stack);
    if (!appStacks.includes(plan.stack)) {
      return refuse(`${file} holds stack ${plan.stack}, which is not a stack of this app (${run.outdir} holds ${appStacks.join(', ') || 'no stack'}): it was made from another app`, 'apply each app\'s plans from that app\'s directory');
    }
    const here = resolveStateLocation(run.statePath, run.env, run.cwd, plan.stack);
    if (!here.ok) return here;
    if (!sameState(plan.state.location, here.value)) {
      return refuse(`${file} was planned against the state ${plan.state.location} for stack ${plan.stack}, but this run's state for it is ${here.value.display}`, 'apply with the state the plans were made with (--state or SECRETFORM_STATE), or plan again against this one');
    }
  }
  return ok(undefined);
}

/** Whether the state a plan recorded (as printed) is the state `here`. */
function sameState(recorded: string, here: StateLocation): boolean {
  if (here.kind === 'file') return recorded === here.path;
  const then = parsePostgresUrl(recorded);
  if (!then.ok) return false;
  const { host, port, database, schema } = then.value;
  return host === here.host && port === here.port && database === here.database && schema === here.schema;
}
