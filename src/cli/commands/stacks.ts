/**
 * `secretform stacks [--changed] [--format text|json|github-matrix] [--stack PATTERN]... [--state PATH|URL]
 * [--output DIR] [--no-synth] [--app CMD] [--synth-env NAME]...`: lists the app's stacks (synthesized first, as
 * plan does) with their service address, the stacks each depends on, and whether each is changed since its last
 * apply and why. `--changed` lists only the changed ones: with `--format github-matrix`, the matrix of a CI job
 * per changed stack. Reads the synth output and the state only (PostgreSQL: one query for every stack); sends
 * nothing to any service, so it needs no token.
 */
import type { Command } from 'commander';
// The modules themselves, not the engine's index: that loads the client (undici) and every stage, and `stacks`
// sends no request (docs/performance.md, "Module loading").
import { detectChangedStacks } from '../../engine/stacks/changed-stacks';
import { selectSynthesizedStacks } from '../../engine/stacks/stack-selection';
import { stackWaves } from '../../engine/stacks/stack-waves';
import { addStateLocationOptions, addSynthOptions, EVERY_STACK, parseEngineFlags, prepareSynthOutput, stateFlagValue, type StateFlags } from '../run/engine-flags';
import { addEnvironmentHelp, STATE_VARIABLES, SYNTH_VARIABLES } from '../run/environment-variables';
import { commandFailure, type CommandEnd } from '../run/command-failure';
import { processIo, type CliIo } from '../run/io';
import type { CommandOutcome } from '../run/command-outcome';
import { UsageError } from '../run/usage-error';
import { renderStacksListing, STACKS_FORMATS, type StacksFormat } from '../views/stacks-listing';

export interface StacksFlags extends StateFlags {
  format: string;
  changed?: boolean;
}

export function registerStacksCommand(program: Command, outcome: CommandOutcome): void {
  const stacks = addSynthOptions(addStateLocationOptions(
    program
      .command('stacks')
      .description("list the app's stacks: service address, dependencies, and whether each changed since its last apply (reads state only, never the service)")
      .option('--changed', 'list only the stacks changed since their last apply (code, state, service, or a stack they depend on)')
      .option('--format <format>', `${STACKS_FORMATS.join(', ')} (github-matrix: {"include":[{"stack":NAME,"wave":N}]} for a CI matrix)`, 'text'),
    EVERY_STACK,
  ))
    .action(async (flags: StacksFlags) => {
      outcome.end = await runStacks(flags, processIo());
    });
  // SERVICE_ADDR only as the address of a stack with no connection of its own: no token, no request.
  addEnvironmentHelp(stacks, ['SERVICE_ADDR', ...STATE_VARIABLES, ...SYNTH_VARIABLES]);
}

export async function runStacks(flags: StacksFlags, io: CliIo): Promise<CommandEnd> {
  try {
    if (!STACKS_FORMATS.includes(flags.format as StacksFormat)) {
      throw new UsageError(`--format must be one of ${STACKS_FORMATS.join(', ')}; got "${flags.format}"`);
    }
    const settings = parseEngineFlags(flags);
    const outdir = await prepareSynthOutput(settings, io);
    const selected = selectSynthesizedStacks(outdir, settings.stacks, 'read', 'stacks');
    if (!selected.ok) return commandFailure(selected.error);
    // Every stack of the app is looked at, selected or not: a change in a stack that is not listed still changes
    // the stacks that depend on it.
    const detected = await detectChangedStacks({ outdir, statePath: stateFlagValue(settings.statePath, io.cwd), env: io.env, cwd: io.cwd });
    if (!detected.ok) return commandFailure(detected.error);
    const chosen = new Set(selected.value);
    const listed = detected.value.filter((stack) => chosen.has(stack.stack) && (flags.changed !== true || stack.changed));
    const dependencies = new Map(detected.value.map((stack) => [stack.stack, stack.dependsOn]));
    io.stdout.write(renderStacksListing(listed, stackWaves(listed.map((stack) => stack.stack), dependencies), flags.format as StacksFormat));
    return 0;
  } catch (error) {
    return commandFailure(error);
  }
}
