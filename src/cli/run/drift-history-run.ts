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
import { commandFailure, type CommandEnd } from './command-failure';
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
  let byStack;
  let reason: string;
  let until: string | undefined;
  try {
    reason = nonEmptyFlag('--reason', flags.reason)!;
    until = flags.until === undefined ? undefined : parseUntil(flags.until, now);
    byStack = addressesByStack(addresses, flags, io);
  } catch (error) {
    return commandFailure(error);
  }
  const by = actorOf(io.env);
  for (const [stack, { location, addresses: ofStack }] of byStack) {
    const made = await acknowledgeDrift({ stack, stateLocation: location, addresses: ofStack, by, reason, until, now });
    if (!made.ok) return commandFailure(made.error);
    for (const address of ofStack) io.stdout.write(`Acknowledged the drift of ${address} (by ${by}${until ? `, until ${until}` : ', until it changes'}): ${reason}\n`);
  }
  return 0;
}

export async function runDriftUnack(addresses: string[], flags: Omit<AckFlags, 'reason' | 'until'>, io: CliIo): Promise<CommandEnd> {
  let byStack;
  try {
    byStack = addressesByStack(addresses, flags, io);
  } catch (error) {
    return commandFailure(error);
  }
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
  let stacks: string[];
  let sinceMs: number | undefined;
  try {
    if (flags.format !== 'text' && flags.format !== 'json') throw new UsageError(`--format must be text or json, got "${flags.format}"`);
    sinceMs = flags.since === undefined ? undefined : parseDuration('--since', flags.since);
    stacks = historyStacks(address, flags, io);
  } catch (error) {
    return commandFailure(error);
  }
  const after = sinceMs === undefined ? undefined : new Date(Date.now() - sinceMs).toISOString();
  const listed: Array<{ stack: string; history: DriftHistory; episodes: Episode[] }> = [];
  for (const stack of stacks) {
    const location = stateLocationOf(stack, flags.state, io);
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

/** The addresses by their stack (`STACK/NAME`), with the stack's state location; `--stack`, if given, must be theirs. */
function addressesByStack(addresses: readonly string[], flags: { stack?: string | string[]; state?: string }, io: CliIo): Map<string, { location: StateLocation; addresses: string[] }> {
  const given = parseStackFlag(flags.stack);
  const byStack = new Map<string, { location: StateLocation; addresses: string[] }>();
  for (const address of addresses) {
    const stack = stackOfAddress(address);
    if (stack === undefined) throw new UsageError(`${address} is not an address: an address is STACK/NAME, as \`secretform drift\` lists it`);
    if (given.stacks.length > 0 && !given.stacks.includes(stack)) throw new UsageError(`${address} is in stack ${stack}, not in --stack ${given.stacks.join(', ')}: drop --stack (the address names its stack)`);
    let entry = byStack.get(stack);
    if (!entry) byStack.set(stack, (entry = { location: stateLocationOf(stack, flags.state, io), addresses: [] }));
    entry.addresses.push(address);
  }
  return byStack;
}

function stateLocationOf(stack: string, state: string | undefined, io: CliIo): StateLocation {
  const location = resolveStateLocation(stateFlagValue(nonEmptyFlag('--state', state), io.cwd), io.env, io.cwd, stack);
  if (!location.ok) throw new UsageError(location.error.message);
  return location.value;
}

/** The stacks `drift history` lists: the address's, else those --stack selects in the synth output (default all). */
function historyStacks(address: string | undefined, flags: HistoryFlags, io: CliIo): string[] {
  if (address !== undefined) {
    const stack = stackOfAddress(address);
    if (stack === undefined) throw new UsageError(`${address} is not an address: an address is STACK/NAME`);
    return [stack];
  }
  const outdir = path.resolve(io.cwd, nonEmptyFlag('--output', flags.output) ?? configuredOutputDir(io.cwd));
  const selected = selectSynthesizedStacks(outdir, parseStackFlag(flags.stack).stacks, 'read', 'drift history');
  if (!selected.ok) throw new UsageError(selected.error.message);
  return selected.value;
}
