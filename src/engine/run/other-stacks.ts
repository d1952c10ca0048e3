/**
 * The other stacks a run's deletes can reach: the stacks of the same synth output whose objects live on the same
 * service as this run's (their state records that service, or, recording none, their connection names it). A
 * container this stack deletes or replaces takes with it what another stack keeps in it (environments: `base`
 * owns the auth mount, `prod` its users), so the protection check sees their states too (read without their
 * locks: the check reads, it writes nothing). A stack whose state or desired state cannot be read is left out:
 * its own runs report why.
 */
import type { DesiredStack } from '../setup/desired';
import { listSynthesizedStacks, loadDesired } from '../setup/desired';
import type { RunContext } from '../setup/run-context';
import { serviceIdentity } from '../setup/service-identity';
import { readStateAt } from '../state/locked-state';
import type { StateFile } from '../state/state-file';
import { resolveStateLocation } from '../state/state-location';

export interface OtherStack {
  readonly desired: DesiredStack;
  readonly state: StateFile;
}

/** The other stacks of the synth output on `service` (this run's service identity), each with its state. */
export async function otherStacksOnService(context: RunContext, service: string | undefined): Promise<OtherStack[]> {
  const source = context.options.desired;
  if (service === undefined || source.kind !== 'synth-output') return [];
  let names: string[];
  try {
    names = listSynthesizedStacks(source.outdir).filter((name) => name !== context.stack);
  } catch {
    return [];
  }
  const found: OtherStack[] = [];
  for (const name of names) {
    let desired: DesiredStack;
    try {
      desired = loadDesired(source.outdir, name);
    } catch {
      continue;
    }
    const location = resolveStateLocation(context.options.statePath, context.env, context.cwd, name);
    // One state file named for every stack (no {stack} in it) is this stack's: there is no other stack's to read.
    if (!location.ok || (location.value.kind === 'file' && location.value.display === context.statePath)) continue;
    const state = await readStateAt(location.value, name);
    if (!state.ok) continue;
    const address = state.value.service ?? desired.connection?.address ?? context.env.SERVICE_ADDR;
    if (address !== undefined && serviceIdentity(address) === service) found.push({ desired, state: state.value });
  }
  return found;
}
