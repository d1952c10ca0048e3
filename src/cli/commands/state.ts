/**
 * `secretform state list | show ADDRESS | rm ADDRESS | mv FROM TO | history | restore SERIAL | pull | push FILE`: reads and
 * edits the state; never talks to the service. State holds no secret values (only keyed or salted fingerprints),
 * and `show` prints not even those. `pull` prints the state JSON to stdout; `push` writes a state file as the
 * stack's state (moving a stack between backends: `state pull > s.json` then `state push s.json --state URL`).
 */
import * as path from 'node:path';
import type { Command } from 'commander';
import { stateHistory, stateList, stateMv, statePull, statePush, stateRestore, stateRm, stateShow } from '../../engine';
import type { EngineOptions } from '../../engine/setup/engine-options';
import { ADDRESS_STACK, addLockTimeoutOption, addStateLocationOptions, ONLY_STACK } from '../run/engine-flags';
import { addEnvironmentHelp, STATE_VARIABLES } from '../run/environment-variables';
import { commandFailure, usageFailure, type CommandEnd } from '../run/command-failure';
import { processIo, writeWarning, type CliIo } from '../run/io';
import type { CommandOutcome } from '../run/command-outcome';
import { stateOptions, type StateFlags } from '../run/state-options';
import { countOf, type Noun } from '../../resources/nouns';

const RESOURCES: Noun = { one: 'resource', many: 'resources' };

export type { StateFlags } from '../run/state-options';


export function registerStateCommand(program: Command, outcome: CommandOutcome): void {
  const state = addEnvironmentHelp(program.command('state').description('list, show, edit, move or restore the state of a stack'), STATE_VARIABLES);
  addStateLocationOptions(state.command('list').description('list the addresses in state, one per line'), ONLY_STACK).action(async (flags: StateFlags) => {
    outcome.end = await runStateList(flags, processIo());
  });
  addStateLocationOptions(state.command('show').description("show a resource's recorded attributes as JSON").argument('<address>', 'resource address'), ADDRESS_STACK)
    .action(async (address: string, flags: StateFlags) => {
      outcome.end = await runStateShow(address, flags, processIo());
    });
  addLockTimeoutOption(addStateLocationOptions(
    state.command('rm').description('forget a resource (the object on the service is left alone)').argument('<address>', 'resource address'),
    ADDRESS_STACK,
  )).action(async (address: string, flags: StateFlags) => {
    outcome.end = await runStateRm(address, flags, processIo());
  });
  addLockTimeoutOption(addStateLocationOptions(
    state
      .command('mv')
      .description('rename a resource in state, e.g. after its construct id changed (the object on the service is left alone)')
      .argument('<from>', 'address in state')
      .argument('<to>', 'new address (not in state yet)'),
    ADDRESS_STACK,
  )).action(async (from: string, to: string, flags: StateFlags) => {
    outcome.end = await runStateMv(from, to, flags, processIo());
  });
  addStateLocationOptions(state.command('history').description('list the kept versions of the state (serial, time, command)'), ONLY_STACK).action(async (flags: StateFlags) => {
    outcome.end = await runStateHistory(flags, processIo());
  });
  addLockTimeoutOption(addStateLocationOptions(
    state.command('restore').description('make a kept version (see `state history`) the current state again').argument('<serial>', 'serial of the version'),
    ONLY_STACK,
  )).action(async (serial: string, flags: StateFlags) => {
    outcome.end = await runStateRestore(serial, flags, processIo());
  });
  addStateLocationOptions(state.command('pull').description('print the state as JSON on stdout (it holds no secret values)'), ONLY_STACK).action(async (flags: StateFlags) => {
    outcome.end = await runStatePull(flags, processIo());
  });
  addLockTimeoutOption(addStateLocationOptions(
    state.command('push').description('write a state file (e.g. from `state pull`) as the stack\'s state').argument('<file>', 'state JSON file'),
    ONLY_STACK,
  ))
    .option('--force', 'replace a state of another lineage, or a newer one')
    .action(async (file: string, flags: StateFlags) => {
      outcome.end = await runStatePush(file, flags, processIo());
    });
  // Every state command finds the state the same way, so each reads the same variables.
  for (const subcommand of state.commands) addEnvironmentHelp(subcommand, STATE_VARIABLES);
}

/** What a state command is called in messages, and the address whose stack it works on (show, rm, mv). */
interface StateCommand {
  command: string;
  address?: string;
}

async function withOptions(flags: StateFlags, io: CliIo, { command, address }: StateCommand, run: (options: EngineOptions) => Promise<CommandEnd>): Promise<CommandEnd> {
  let options: EngineOptions;
  try {
    options = stateOptions(flags, io, command, address);
  } catch (error) {
    return commandFailure(error);
  }
  return run(options);
}

export function runStateList(flags: StateFlags, io: CliIo): Promise<CommandEnd> {
  return withOptions(flags, io, { command: 'state list' }, async (options) => {
    const listed = await stateList(options);
    if (!listed.ok) return commandFailure(listed.error);
    for (const entry of listed.value) io.stdout.write(`${entry.address}\n`);
    return 0;
  });
}

export function runStateShow(address: string, flags: StateFlags, io: CliIo): Promise<CommandEnd> {
  return withOptions(flags, io, { command: 'state show', address }, async (options) => {
    const shown = await stateShow(options, address);
    if (!shown.ok) return commandFailure(shown.error);
    const entry = shown.value;
    const view = {
      address,
      type: entry.type,
      id: entry.id,
      attributes: entry.attributes,
      // Which secrets secretform wrote; their fingerprints stay in the state.
      secret_fields: Object.keys(entry.secrets).sort(),
      dependencies: entry.dependencies,
      ...(entry.digest !== undefined ? { digest: entry.digest } : {}),
      applied_at: entry.applied_at,
    };
    io.stdout.write(`${JSON.stringify(view, null, 2)}\n`);
    return 0;
  });
}

export function runStateRm(address: string, flags: StateFlags, io: CliIo): Promise<CommandEnd> {
  return withOptions(flags, io, { command: 'state rm', address }, async (options) => {
    const removed = await stateRm(options, address);
    if (!removed.ok) return commandFailure(removed.error);
    io.stdout.write(`Removed ${address} from state. The object on the service is untouched; secretform no longer manages it.\n`);
    return 0;
  });
}

export function runStateHistory(flags: StateFlags, io: CliIo): Promise<CommandEnd> {
  return withOptions(flags, io, { command: 'state history' }, async (options) => {
    const history = await stateHistory(options);
    if (!history.ok) return commandFailure(history.error);
    if (history.value.length === 0) {
      io.stdout.write('No versions kept yet: a version is recorded when a command changes the state.\n');
      return 0;
    }
    io.stdout.write('SERIAL  TIME                      RESOURCES  COMMAND\n');
    for (const version of history.value) {
      io.stdout.write(`${String(version.serial).padEnd(7)} ${version.created_at.padEnd(25)} ${String(version.resources).padEnd(10)} ${version.command}\n`);
    }
    io.stdout.write('\nRestore one with `secretform state restore SERIAL`.\n');
    return 0;
  });
}

export function runStateRestore(serialText: string, flags: StateFlags, io: CliIo): Promise<CommandEnd> {
  return withOptions(flags, io, { command: 'state restore' }, async (options) => {
    if (!/^\d+$/.test(serialText.trim())) return usageFailure(`SERIAL must be a version's serial number (see \`secretform state history\`), got "${serialText}"`);
    const serial = Number(serialText.trim());
    const restored = await stateRestore(options, serial);
    if (!restored.ok) return commandFailure(restored.error);
    io.stdout.write(
      `Restored version ${serial} (${countOf(Object.keys(restored.value.resources).length, RESOURCES)}) as serial ${restored.value.serial}. ` +
        'Nothing on the service changed; run `secretform plan` to compare.\n',
    );
    return 0;
  });
}

export function runStatePull(flags: StateFlags, io: CliIo): Promise<CommandEnd> {
  return withOptions(flags, io, { command: 'state pull' }, async (options) => {
    const state = await statePull(options);
    if (!state.ok) return commandFailure(state.error);
    io.stdout.write(`${JSON.stringify(state.value, null, 2)}\n`);
    return 0;
  });
}

export function runStatePush(file: string, flags: StateFlags, io: CliIo): Promise<CommandEnd> {
  return withOptions(flags, io, { command: 'state push' }, async (options) => {
    const pushed = await statePush(options, path.resolve(io.cwd, file), flags.force === true);
    if (!pushed.ok) return commandFailure(pushed.error);
    io.stdout.write(`Pushed ${file} (${countOf(Object.keys(pushed.value.resources).length, RESOURCES)}, lineage ${pushed.value.lineage}) as serial ${pushed.value.serial}.\n`);
    return 0;
  });
}

export function runStateMv(from: string, to: string, flags: StateFlags, io: CliIo): Promise<CommandEnd> {
  // FROM names the stack: TO must then be an address of that stack too (the engine checks it).
  return withOptions(flags, io, { command: 'state mv', address: from }, async (options) => {
    const moved = await stateMv(options, from, to);
    if (!moved.ok) return commandFailure(moved.error);
    for (const warning of moved.value.warnings) writeWarning(io, warning);
    const dependents = moved.value.dependents.length > 0 ? ` Dependencies updated in: ${moved.value.dependents.join(', ')}.` : '';
    io.stdout.write(`Moved ${from} to ${to} in state. The object on the service is untouched.${dependents}\n`);
    return 0;
  });
}
