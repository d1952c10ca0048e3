/**
 * `drift ack`, `drift unack` and `drift history`: they work on the stacks' drift histories alone (kept with the
 * state), with no request to the service and no synth: an address names its stack (`STACK/NAME`).
 */
import { acknowledgeDrift, readDriftHistory, unacknowledgeDrift } from '../../engine/drift/acknowledge';
import { actorOf } from '../../engine/drift/actor';
import type { DriftHistory, Episode } from '../../engine/drift/history';
import { selectSynthesizedStacks, stackOfAddress } from '../../engine';
import { resolveStateLocation } from '../../engine/state/state-location';
import type { StateLocation } from '../../engine/state/state-location';
import { configuredOutputDir, nonEmptyFlag, parseStackFlag, stateFlagValue } from './engine-flags';
import { parseDuration, parseUntil } from './drift-times';
import { commandFailure, CommandFailure, usageFailure, type CommandEnd } from './command-failure';
import type { CliIo } from './io';
import { UsageError } from './usage-error';
import { countOf } from '../../resources/nouns';
import * as path from 'node:path';

export interface AckFlags {
  reason: string;
  until?: string;
  state?: string;
  stack?: string | string[];
}

export async function runDriftAck(addresses: string[], flags: AckFlags, io: CliIo): Promise<CommandEnd> {
  const now = new Date();
  let reason: string;
  let until: string | undefined;
  try {
    reason = nonEmptyFlag('--reason', flags.reason)!;
    until = flags.until === undefined ? undefined : parseUntil(flags.until, now);
  } catch (error) {
    return commandFailure(error);
  }
  const byStack = addressesByStack(addresses, flags, io);
  if (byStack instanceof CommandFailure) return byStack;
  const by = actorOf(io.env);
  for (const [stack, { location, addresses: ofStack }] of byStack) {
    const made = await acknowledgeDrift({ stack, stateLocation: location, addresses: ofStack, by, reason, until, now });
    if (!made.ok) return commandFailure(made.error);
    for (const address of ofStack) io.stdout.write(`Acknowledged the drift of ${address} (by ${by}${until ? `, until ${until}` : ', until it changes'}): ${reason}\n`);
  }
  return 0;
}

export async function runDriftUnack(addresses: string[], flags: Omit<AckFlags, 'reason' | 'until'>, io: CliIo): Promise<CommandEnd> {
  const byStack = addressesByStack(addresses, flags, io);
  if (byStack instanceof CommandFailure) return byStack;
  for (const [stack, { location, addresses: ofStack }] of byStack) {
    const removed = await unacknowledgeDrift({ stack, stateLocation: location, addresses: ofStack });
    if (!removed.ok) return commandFailure(removed.error);
    for (const address of removed.value) io.stdout.write(`Removed the acknowledgement of ${address}: its drift alerts again\n`);
  }
  return 0;
}

export interface HistoryFlags {
  stack?: string | string[];
  output?: string;
  state?: string;
  since?: string;
  format: string;
}

export async function runDriftHistory(address: string | undefined, flags: HistoryFlags, io: CliIo): Promise<CommandEnd> {
  let state: string | undefined;
  let output: string | undefined;
  let given: string[] = [];
  let sinceMs: number | undefined;
  try {
    if (flags.format !== 'text' && flags.format !== 'json') throw new UsageError(`--format must be text or json, got "${flags.format}"`);
    sinceMs = flags.since === undefined ? undefined : parseDuration('--since', flags.since);
    // An address names its stack: then --output and --stack are not read.
    if (address === undefined) {
      output = nonEmptyFlag('--output', flags.output);
      given = parseStackFlag(flags.stack).stacks;
    }
    state = nonEmptyFlag('--state', flags.state);
  } catch (error) {
    return commandFailure(error);
  }
  const stacks = historyStacks(address, given, output, io);
  if (stacks instanceof CommandFailure) return stacks;
  const after = sinceMs === undefined ? undefined : new Date(Date.now() - sinceMs).toISOString();
  const listed: Array<{ stack: string; history: DriftHistory; episodes: Episode[] }> = [];
  for (const stack of stacks) {
    const location = stateLocationOf(stack, state, io);
    if (location instanceof CommandFailure) return location;
    const read = await readDriftHistory(location, stack);
    if (!read.ok) return commandFailure(read.error);
    const episodes = read.value.history.episodes
      .filter((episode) => (address === undefined || episode.address === address) && (after === undefined || episode.last_seen >= after))
      .sort((a, b) => (a.first_seen < b.first_seen ? -1 : a.first_seen > b.first_seen ? 1 : a.address < b.address ? -1 : 1));
    listed.push({ stack, history: read.value.history, episodes });
  }
  io.stdout.write(flags.format === 'json' ? historyJson(listed) : historyText(listed));
  return 0;
}

function historyJson(listed: Array<{ stack: string; history: DriftHistory; episodes: Episode[] }>): string {
  const stacks = listed.map(({ stack, history, episodes }) => ({
    stack,
    checks: history.checks.length,
    last_check: history.checks.at(-1)?.at ?? null,
    episodes: episodes.map((episode) => ({
      address: episode.address,
      type: episode.type,
      kind: episode.kind,
      fields: Object.keys(episode.fields).sort(),
      first_seen: episode.first_seen,
      last_seen: episode.last_seen,
      resolved_at: episode.resolved_at ?? null,
      checks: episode.checks,
      acknowledgement: episode.resolved_at === undefined ? acknowledgementOf(history, episode.address) : null,
    })),
  }));
  return `${JSON.stringify({ format_version: '1.0', stacks }, null, 2)}\n`;
}

function historyText(listed: Array<{ stack: string; history: DriftHistory; episodes: Episode[] }>): string {
  const lines: string[] = [];
  for (const { stack, history, episodes } of listed) {
    lines.push(`== stack ${stack}: ${countOf(history.checks.length, { one: 'recorded check', many: 'recorded checks' })}${history.checks.length > 0 ? `, the last at ${history.checks.at(-1)!.at}` : ''}`);
    if (episodes.length === 0) lines.push('  No drift episode.');
    for (const episode of episodes) {
      const end = episode.resolved_at === undefined ? `still drifted (last seen ${episode.last_seen})` : `resolved at ${episode.resolved_at}`;
      const fields = Object.keys(episode.fields);
      lines.push(`  ${episode.address} (${episode.type}) ${episode.kind}${fields.length > 0 ? `: ${fields.join(', ')}` : ''}; first seen ${episode.first_seen}, ${end}; ${episode.checks} checks`);
      const ack = episode.resolved_at === undefined ? acknowledgementOf(history, episode.address) : null;
      if (ack) lines.push(`      acknowledged by ${ack.by} at ${ack.at}${ack.until ? ` until ${ack.until}` : ''}: ${ack.reason}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

function acknowledgementOf(history: DriftHistory, address: string) {
  const ack = history.acknowledgements[address];
  return ack === undefined ? null : { by: ack.by, at: ack.at, reason: ack.reason, until: ack.until ?? null };
}

/**
 * The addresses by their stack (`STACK/NAME`), with the stack's state location (from --state); the stacks
 * --stack gives, if any, must be theirs. What `drift ack` and `drift unack` read of --stack and --state.
 */
function addressesByStack(addresses: readonly string[], flags: Pick<AckFlags, 'stack' | 'state'>, io: CliIo): Map<string, { location: StateLocation; addresses: string[] }> | CommandFailure {
  let given: string[];
  let state: string | undefined;
  try {
    given = parseStackFlag(flags.stack).stacks;
    state = nonEmptyFlag('--state', flags.state);
  } catch (error) {
    return commandFailure(error);
  }
  const byStack = new Map<string, { location: StateLocation; addresses: string[] }>();
  for (const address of addresses) {
    const stack = stackOfAddress(address);
    if (stack === undefined) return usageFailure(`${address} is not an address: an address is STACK/NAME, as \`secretform drift\` lists it`);
    if (given.length > 0 && !given.includes(stack)) return usageFailure(`${address} is in stack ${stack}, not in --stack ${given.join(', ')}: drop --stack (the address names its stack)`);
    let entry = byStack.get(stack);
    if (!entry) {
      const location = stateLocationOf(stack, state, io);
      if (location instanceof CommandFailure) return location;
      byStack.set(stack, (entry = { location, addresses: [] }));
    }
    entry.addresses.push(address);
  }
  return byStack;
}

/** Where the stack's state (and so its drift history) is: `state` is the --state given, checked not empty. */
function stateLocationOf(stack: string, state: string | undefined, io: CliIo): StateLocation | CommandFailure {
  const location = resolveStateLocation(stateFlagValue(state, io.cwd), io.env, io.cwd, stack);
  return location.ok ? location.value : commandFailure(location.error);
}

/**
 * The stacks `drift history` lists: the address's, else those --stack selects (`given`; default all) in the synth
 * output (`output`: the --output given).
 */
function historyStacks(address: string | undefined, given: readonly string[], output: string | undefined, io: CliIo): string[] | CommandFailure {
  if (address !== undefined) {
    const stack = stackOfAddress(address);
    if (stack === undefined) return usageFailure(`${address} is not an address: an address is STACK/NAME`);
    return [stack];
  }
  const outdir = path.resolve(io.cwd, output ?? configuredOutputDir(io.cwd));
  const selected = selectSynthesizedStacks(outdir, given, 'read', 'drift history');
  return selected.ok ? selected.value : commandFailure(selected.error);
}
