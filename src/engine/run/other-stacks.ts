/**
 * The other stacks a run's deletes can reach: the stacks of the same synth output whose objects live on the same
 * service as this run's (their state records that service, or, recording none, their connection names it). A
 * container this stack deletes or replaces takes with it what another stack keeps in it (environments: `base`
 * owns the auth mount, `prod` its users), so the protection check sees their states too (read without their
 * locks: the check reads, it writes nothing).
 *
 * The check fails closed (issue 34): another stack that may be on this service but whose state this run cannot
 * read (damaged, unreadable, a database error) or cannot even find (one `--state FILE` serves every stack, and the
 * file is this stack's: a state file records one stack and is refused for another) is returned as unchecked, and
 * a plan that deletes or replaces something is refused for it (guardrails/unchecked-stacks.ts). A missing state
 * file is an empty state: that stack has nothing on the service to lose.
 */
import type { DesiredStack } from '../setup/desired';
import { listSynthesizedStacks, loadDesired } from '../setup/desired';
import type { RunContext } from '../setup/run-context';
import { serviceIdentity } from '../setup/service-identity';
import { readStateAt } from '../state/locked-state';
import type { StateFile } from '../state/state-file';
import { resolveStateLocation } from '../state/state-location';
import type { UncheckedStack } from '../guardrails/unchecked-stacks';

export interface OtherStack {
  readonly desired: DesiredStack;
  readonly state: StateFile;
}

export interface OtherStacks {
  /** The other stacks on the run's service, each with its state. */
  readonly found: OtherStack[];
  /** Other stacks that may be on the run's service and whose state could not be read: the check cannot see them. */
  readonly unchecked: UncheckedStack[];
}

/** The other stacks of the synth output on `service` (this run's service identity), each with its state. */
export async function otherStacksOnService(context: RunContext, service: string | undefined): Promise<OtherStacks> {
  const source = context.options.desired;
  const found: OtherStack[] = [];
  const unchecked: UncheckedStack[] = [];
  if (service === undefined || source.kind !== 'synth-output') return { found, unchecked };
  let names: string[];
  try {
    names = listSynthesizedStacks(source.outdir).filter((name) => name !== context.stack);
  } catch (error) {
    // The run's own stack was loaded from this output a moment ago: which other stacks it holds is unknown now.
    unchecked.push({ stack: '(the other stacks of the synth output)', kind: 'synth_output', reason: (error as Error).message });
    return { found, unchecked };
  }
  for (const name of names) {
    let desired: DesiredStack;
    try {
      desired = loadDesired(source.outdir, name);
    } catch (error) {
      unchecked.push({ stack: name, kind: 'synth_output', reason: (error as Error).message });
      continue;
    }
    // Where the other stack's connection would send its runs: the service its state is on when that cannot be read.
    const named = desired.connection?.address ?? context.env.SERVICE_ADDR;
    const maybeHere = named === undefined || serviceIdentity(named) === service;
    const location = resolveStateLocation(context.options.statePath, context.env, context.cwd, name);
    if (!location.ok) {
      if (maybeHere) unchecked.push({ stack: name, kind: 'unreadable', reason: location.error.message });
      continue;
    }
    // One state file named for every stack (no {stack} in it) is this stack's: the other stack's is elsewhere.
    if (location.value.kind === 'file' && location.value.display === context.statePath) {
      if (maybeHere) unchecked.push({ stack: name, kind: 'one_state_file', reason: `the state file ${context.statePath} is stack ${context.stack}'s` });
      continue;
    }
    const state = await readStateAt(location.value, name);
    if (!state.ok) {
      if (maybeHere) unchecked.push({ stack: name, kind: 'unreadable', reason: state.error.message });
      continue;
    }
    const address = state.value.service ?? named;
    if (address !== undefined && serviceIdentity(address) === service) found.push({ desired, state: state.value });
  }
  return { found, unchecked };
}
