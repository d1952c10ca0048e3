/**
 * Change detection (`secretform stacks [--changed]`, `--changed` on plan and apply): which stacks of a synth output
 * have something new to plan from the code. A stack is changed when the digest of its desired state
 * (setup/desired-digest.ts) differs from the one its last complete apply recorded, when it has no state yet, when
 * its state records no digest that still holds, when its service address changed, or when a stack it depends on
 * is changed (its outputs may change what it gets). Reads the synth output and the state only (on PostgreSQL one
 * query for every stack, state/applied-records.ts), never the service: no client is created here.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readSynthesizedConnection, readSynthesizedSpecs, SpecFormatError } from '../../synthesized-spec';
import { utf8Text } from '../../utf8-text';
import { EngineError, fail, ok, type Result } from '../errors';
import { desiredDigest } from '../setup/desired-digest';
import { readRecordedDigest, type RecordedDigest } from '../setup/desired-digest-record';
import { DesiredStateError, listSynthesizedStacks } from '../setup/desired';
import { serviceIdentity } from '../setup/service-identity';
import { checkStackConnection } from '../setup/stack-connection';
import type { AppliedRecord } from '../state/backend';
import { readAppliedRecords } from '../state/applied-records';
import { resolveStateLocation, type StateLocation } from '../state/state-location';
import { orderStacks, readStackDependencies } from './stack-order';

/** Why a stack counts as changed. */
export type ChangeReason =
  /** Its desired state differs from what its last apply carried out. */
  | { kind: 'code_changed' }
  /** It was never applied (its state holds nothing). */
  | { kind: 'no_state' }
  /** Its state records no digest: written by a version of secretform before change detection. */
  | { kind: 'no_digest' }
  /** Its state was written after its last complete apply (destroy, a failed or targeted apply, import, a state command). */
  | { kind: 'state_changed'; appliedSerial: number; serial: number }
  /** Its runs now talk to another service than the one its state was applied to. */
  | { kind: 'service_changed'; recorded: string; current: string }
  /** A stack it depends on is changed. */
  | { kind: 'dependency_changed'; dependency: string };

/** One stack of the app as change detection sees it. */
export interface StackChange {
  stack: string;
  /** The address its runs talk to (its ServiceConnection's, else SERVICE_ADDR's): never a token. */
  service: string;
  /** The stacks it depends on (the synth output's manifest). */
  dependsOn: string[];
  changed: boolean;
  /** Why it is changed (absent when it is not). */
  reason?: ChangeReason;
}

export interface ChangeDetectionOptions {
  /** The synth output directory. */
  outdir: string;
  /** As `EngineOptions.statePath`: a file path (`{stack}` for one per stack) or a PostgreSQL URL. */
  statePath?: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

/**
 * Every stack of the synth output with whether it is changed and why, in dependency order (a stack after the
 * stacks it depends on; ties in the manifest's order). Fails before reading any state on a malformed output.
 */
export async function detectChangedStacks(options: ChangeDetectionOptions): Promise<Result<StackChange[]>> {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  let available: string[];
  try {
    available = listSynthesizedStacks(options.outdir);
  } catch (error) {
    return fail(new EngineError('desired_invalid', error instanceof DesiredStateError ? error.message : String(error)));
  }
  const dependencies = readStackDependencies(options.outdir, available);
  if (!dependencies.ok) return dependencies;
  const ordered = orderStacks(available, dependencies.value);
  if (!ordered.ok) return ordered;

  const current = new Map<string, { digest: string; address: string; service: string }>();
  for (const stack of ordered.value) {
    const read = currentDigest(options.outdir, stack, env, cwd);
    if (!read.ok) return read;
    current.set(stack, read.value);
  }
  const locations = new Map<string, StateLocation>();
  for (const stack of ordered.value) {
    const location = resolveStateLocation(options.statePath, env, cwd, stack);
    if (!location.ok) return location;
    locations.set(stack, location.value);
  }
  const records = await readAppliedRecords(ordered.value, (stack) => locations.get(stack)!);
  if (!records.ok) return records;

  const changes = new Map<string, StackChange>();
  for (const stack of ordered.value) {
    const dependsOn = [...(dependencies.value.get(stack) ?? [])];
    const { digest, address, service } = current.get(stack)!;
    const reason = ownChange(records.value.get(stack), digest, service)
      ?? dependsOn.filter((dependency) => changes.get(dependency)?.changed === true).map((dependency): ChangeReason => ({ kind: 'dependency_changed', dependency }))[0];
    changes.set(stack, { stack, service: address, dependsOn, changed: reason !== undefined, ...(reason === undefined ? {} : { reason }) });
  }
  return ok(ordered.value.map((stack) => changes.get(stack)!));
}

/** Why the stack itself is changed (not through a dependency), or undefined when its last apply is current. */
function ownChange(record: AppliedRecord | undefined, digest: string, service: string): ChangeReason | undefined {
  if (record === undefined || record.serial === 0) return { kind: 'no_state' };
  if (record.appliedDigest === undefined) return { kind: 'no_digest' };
  if (record.appliedDigest.serial !== record.serial) return { kind: 'state_changed', appliedSerial: record.appliedDigest.serial, serial: record.serial };
  if (record.service !== undefined && record.service !== service) return { kind: 'service_changed', recorded: record.service, current: service };
  return record.appliedDigest.digest === digest ? undefined : { kind: 'code_changed' };
}

/**
 * The digest of a stack's desired state as the synth output holds it now, and its service address: from the
 * digest record synth wrote next to the stack's file when that file is still the one it describes
 * (setup/desired-digest-record.ts), else from the file read in full. The specs are read as written (no check
 * against the resource model: that is plan's, and a stack whose specs a plan would refuse still differs from
 * what was applied); a spec that is not one is an error naming it.
 */
function currentDigest(outdir: string, stack: string, env: NodeJS.ProcessEnv, cwd: string): Result<{ digest: string; address: string; service: string }> {
  const recorded = readRecordedDigest(path.join(outdir, 'stacks', stack));
  const read = recorded === undefined ? digestOfFile(outdir, stack) : ok(recorded);
  if (!read.ok) return read;
  const { connection, digestFor } = read.value;
  // The address as the stack's runs resolve it (checked without the token; files unread are the plan's to report).
  const checked = checkStackConnection({ stack, connection, env, cwd }, false);
  const address = checked.ok ? checked.value.config.address : connection?.address ?? env.SERVICE_ADDR ?? '';
  const service = serviceIdentity(address);
  return ok({ digest: digestFor(service), address, service });
}

/** The stack's connection and digest read from its whole `cdk.tf.json` (no record, or not this file's). */
function digestOfFile(outdir: string, stack: string): Result<RecordedDigest> {
  const file = path.join(outdir, 'stacks', stack, 'cdk.tf.json');
  try {
    const config: unknown = JSON.parse(utf8Text(fs.readFileSync(file)));
    const connection = readSynthesizedConnection(config, file);
    const specs = readSynthesizedSpecs(config, file);
    return ok({ ...(connection ? { connection } : {}), digestFor: (service) => desiredDigest({ resources: specs, connection, service }) });
  } catch (error) {
    const why = error instanceof SpecFormatError ? error.message : `${file}: ${(error as Error).message}`;
    return fail(new EngineError('desired_invalid', `invalid desired state of stack ${stack}: ${why}`));
  }
}
