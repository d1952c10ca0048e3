/**
 * A run's plan, as plan, apply and destroy compute it once their inputs are ready (setup/run-context.ts) and the
 * state is read: the selection, the refresh and diff (plan/), the protection check and the consequences of
 * deletes and replacements (guardrails/), then the policies (policy/). This drives those stages in that order,
 * which is why it sits above them: setup prepares inputs and never diffs.
 */
import type { ServiceClient } from '../../client';
import { fail, ok, type Result } from '../errors';
import { computePlan, type PlanComputation } from '../plan/compute-plan';
import type { ReadAhead } from '../plan/read-ahead';
import { withConsequences } from '../guardrails/consequences';
import { protectionViolation } from '../guardrails/protection';
import { uncheckedStacksRefusal } from '../guardrails/unchecked-stacks';
import { otherStacksOnService } from './other-stacks';
import { vanishedObjectsWarning } from '../guardrails/vanished-objects';
import { planWithPolicies } from '../policy/policy-stage';
import { checkRunConnection, clientFor, resolveRunSecrets, runFingerprintKey, type RunContext } from '../setup/run-context';
import { serviceIdentity, serviceMismatch } from '../setup/service-identity';
import type { ResolvedSecrets } from '../setup/secret-resolution';
import { selectAddresses, type RunMode } from '../setup/targets';
import { FingerprintKey } from '../state/fingerprint';
import { slowHashingHint } from '../state/fingerprint-key-source';
import { unknownRecordedTypes } from '../state/recorded-types';
import type { StateFile } from '../state/state-file';

export interface PlannedRun {
  computation: PlanComputation;
  secrets: ResolvedSecrets;
  /** The run's fingerprint key (for the fingerprints apply records). */
  fingerprintKey: FingerprintKey;
  /** The service the run talks to (`serviceIdentity`), which apply records in the state. */
  service?: string;
}

/**
 * Selects, resolves secrets, creates the client, refreshes and diffs. Secrets are resolved before the first
 * request (destroy and refresh-only need none). On success the client is the caller's to close. A plan's
 * read-ahead (plan/read-ahead.ts) brings its secrets, client and the reads already sent.
 */
export async function planRun(context: RunContext, state: StateFile, mode: RunMode, ahead?: ReadAhead): Promise<Result<PlannedRun & { client: ServiceClient }>> {
  // A state applied to another service than this run's is refused before anything else (service-identity.ts).
  const connection = checkRunConnection(context, false);
  const service = connection.ok ? serviceIdentity(connection.value.config.address) : undefined;
  const mismatch = connection.ok && service !== undefined
    ? serviceMismatch({ stack: context.stack, state, stateLocation: context.statePath, service, source: connection.value.source, migrateState: context.options.migrateState === true })
    : undefined;
  if (mismatch) {
    await ahead?.client.close();
    return fail(mismatch);
  }
  const selection = selectAddresses(context.desired, state, context.options.targets, mode);
  const unknownType = selection.ok ? unknownRecordedTypes(state, context.stateLocation, selection.value.addresses) : undefined;
  if (!selection.ok || unknownType) {
    await ahead?.client.close();
    return selection.ok ? fail(unknownType!) : selection;
  }
  const secrets = ahead ? ok(ahead.secrets) : await resolveRunSecrets(context, mode);
  if (!secrets.ok) return secrets;
  const client = ahead ? ok(ahead.client) : clientFor(context, secrets.value);
  if (!client.ok) return client;
  // The key is read from the service while the refresh runs (the diff of a secret waits for it).
  const fingerprintKeyRead = ahead
    ? ahead.fingerprintKey
    : mode === 'destroy'
      ? Promise.resolve(FingerprintKey.none('destroy writes no secret'))
      : runFingerprintKey(context, client.value, 'read');
  const computation = await computePlan({
    client: client.value,
    stack: context.stack,
    desired: context.desired,
    state,
    selected: selection.value.addresses,
    secrets: secrets.value,
    fingerprintKey: fingerprintKeyRead,
    mode,
    refreshOnly: context.options.refreshOnly === true,
    parallelism: context.parallelism,
    reads: ahead?.reads,
    warnings: selection.value.warnings,
    onProgress: context.options.onProgress,
  });
  if (!computation.ok) {
    await client.value.close();
    return computation;
  }
  // A protected object is never deleted nor replaced: the whole run stops here, before any write.
  // Other stacks on the service are read only when the plan removes something that could hold their objects.
  const removes = computation.value.plan.changes.some((change) => change.action === 'delete' || change.action === 'replace');
  const others = removes ? await otherStacksOnService(context, service) : { found: [], unchecked: [] };
  // What the stacks that could be read show is refused first; a stack that could not be read refuses a removal
  // all the same (fail closed: it may keep a protected object in what goes).
  const refused = protectionViolation(computation.value, mode, { desired: context.desired, state, others: others.found }) ??
    uncheckedStacksRefusal(computation.value, others.unchecked);
  if (refused) {
    await client.value.close();
    return fail(refused);
  }
  const counted = await withConsequences(computation.value, client.value, context.parallelism);
  const fingerprintKey = await fingerprintKeyRead;
  // The plan is a value: a note about it makes a new one.
  const notes = [slowHashingHint(fingerprintKey), service === undefined ? undefined : vanishedObjectsWarning(counted, service)].filter((note) => note !== undefined);
  const { plan } = counted;
  const noted = notes.length > 0 ? Object.freeze({ ...plan, warnings: Object.freeze([...plan.warnings, ...notes]) }) : plan;
  // What policy code says is scrubbed as server text is: it is not trusted with the run's secrets.
  const checked = await planWithPolicies(noted, mode === 'destroy' ? [] : context.desired.resources, context.options.policies, {
    scrub: (text) => client.value.scrubServerText(text),
    signal: context.options.signal,
  });
  if (!checked.ok) {
    await client.value.close();
    return checked;
  }
  return ok({ computation: { ...counted, plan: checked.value }, secrets: secrets.value, client: client.value, fingerprintKey, service });
}
