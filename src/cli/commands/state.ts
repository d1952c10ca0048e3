/**
 * `secretform state list | show ADDRESS | rm ADDRESS | mv FROM TO`: reads and edits the state file; never talks to the
 * service. State holds no secret values (only keyed fingerprints), and `show` prints not even those.
 */
import type { Command } from 'commander';
import { stateList, stateMv, stateRm, stateShow } from '../../engine';
import type { EngineOptions } from '../../engine/engine-options';
import { addStateLocationOptions, configuredOutputDir, nonEmptyFlag } from '../engine-flags';
import { failWith, processIo, writeWarning, type CliIo } from '../io';
import type { CommandOutcome } from '../main';
import * as path from 'node:path';

export interface StateFlags {
  stack?: string;
  output?: string;
  state?: string;
}

export function registerStateCommand(program: Command, outcome: CommandOutcome): void {
  const state = program.command('state').description('list, show or forget the resources recorded in state');
  addStateLocationOptions(state.command('list').description('list the addresses in state, one per line')).action(async (flags: StateFlags) => {
    outcome.exitCode = await runStateList(flags, processIo());
  });
  addStateLocationOptions(state.command('show').description("show a resource's recorded attributes as JSON").argument('<address>', 'resource address'))
    .action(async (address: string, flags: StateFlags) => {
      outcome.exitCode = await runStateShow(address, flags, processIo());
    });
  addStateLocationOptions(
    state.command('rm').description('forget a resource (the object on the service is left alone)').argument('<address>', 'resource address'),
  ).action(async (address: string, flags: StateFlags) => {
    outcome.exitCode = await runStateRm(address, flags, processIo());
  });
  addStateLocationOptions(
    state
      .command('mv')
      .description('rename a resource in state, e.g. after its construct id changed (the object on the service is left alone)')
      .argument('<from>', 'address in state')
      .argument('<to>', 'new address (not in state yet)'),
  ).action(async (from: string, to: string, flags: StateFlags) => {
    outcome.exitCode = await runStateMv(from, to, flags, processIo());
  });
}

/** The state commands never synthesize: they read the existing output only to find the stack's name. */
function stateOptions(flags: StateFlags, io: CliIo): EngineOptions {
  const stack = nonEmptyFlag('--stack', flags.stack);
  const output = nonEmptyFlag('--output', flags.output) ?? configuredOutputDir(io.cwd);
  const statePath = nonEmptyFlag('--state', flags.state);
  return {
    stack,
    desired: { kind: 'synth-output', outdir: path.resolve(io.cwd, output) },
    statePath: statePath === undefined ? undefined : path.resolve(io.cwd, statePath),
    env: io.env,
    cwd: io.cwd,
  };
}

export async function runStateList(flags: StateFlags, io: CliIo): Promise<number> {
  let options: EngineOptions;
  try {
    options = stateOptions(flags, io);
  } catch (error) {
    return failWith(io, error);
  }
  const listed = await stateList(options);
  if (!listed.ok) return failWith(io, listed.error);
  for (const entry of listed.value) io.stdout.write(`${entry.address}\n`);
  return 0;
}

export async function runStateShow(address: string, flags: StateFlags, io: CliIo): Promise<number> {
  let options: EngineOptions;
  try {
    options = stateOptions(flags, io);
  } catch (error) {
    return failWith(io, error);
  }
  const shown = await stateShow(options, address);
  if (!shown.ok) return failWith(io, shown.error);
  const entry = shown.value;
  const view = {
    address,
    type: entry.type,
    id: entry.id,
    attributes: entry.attributes,
    // Which secrets secretform wrote; their fingerprints stay in the file.
    secret_fields: Object.keys(entry.secrets).sort(),
    dependencies: entry.dependencies,
    ...(entry.digest !== undefined ? { digest: entry.digest } : {}),
    applied_at: entry.applied_at,
  };
  io.stdout.write(`${JSON.stringify(view, null, 2)}\n`);
  return 0;
}

export async function runStateRm(address: string, flags: StateFlags, io: CliIo): Promise<number> {
  let options: EngineOptions;
  try {
    options = stateOptions(flags, io);
  } catch (error) {
    return failWith(io, error);
  }
  const removed = await stateRm(options, address);
  if (!removed.ok) return failWith(io, removed.error);
  io.stdout.write(`Removed ${address} from state. The object on the service is untouched; secretform no longer manages it.\n`);
  return 0;
}

export async function runStateMv(from: string, to: string, flags: StateFlags, io: CliIo): Promise<number> {
  let options: EngineOptions;
  try {
    options = stateOptions(flags, io);
  } catch (error) {
    return failWith(io, error);
  }
  const moved = await stateMv(options, from, to);
  if (!moved.ok) return failWith(io, moved.error);
  for (const warning of moved.value.warnings) writeWarning(io, warning);
  const dependents = moved.value.dependents.length > 0 ? ` Dependencies updated in: ${moved.value.dependents.join(', ')}.` : '';
  io.stdout.write(`Moved ${from} to ${to} in state. The object on the service is untouched.${dependents}\n`);
  return 0;
}
