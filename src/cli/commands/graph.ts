/**
 * `secretform graph [--format dot|mermaid] [--stack PATTERN]... [--output DIR] [--no-synth] [--app CMD] [--synth-env NAME]...`:
 * prints the dependency graph of the stacks (default: every stack) from the synthesized desired state (no service, no state needed).
 */
import type { Command } from 'commander';
import { selectSynthesizedStacks } from '../../engine';
import { loadDesired } from '../../engine/setup/desired';
import { GRAPH_FORMATS, renderGraph, type GraphFormat } from '../../report/graph';
import { addStackOptions, addSynthOptions, EVERY_STACK, parseEngineFlags, prepareSynthOutput, type StackFlags } from '../run/engine-flags';
import { commandFailure, type CommandEnd } from '../run/command-failure';
import { processIo, type CliIo } from '../run/io';
import type { CommandOutcome } from '../run/command-outcome';
import { UsageError } from '../run/usage-error';
import { addEnvironmentHelp, SYNTH_VARIABLES } from '../run/environment-variables';

export interface GraphFlags extends StackFlags {
  format: string;
}

export function registerGraphCommand(program: Command, outcome: CommandOutcome): void {
  addEnvironmentHelp(addSynthOptions(addStackOptions(
    program
      .command('graph')
      .description("print the stacks' dependency graph (an edge goes from an object to the one that needs it)")
      .option('--format <format>', 'dot (Graphviz) or mermaid', 'dot'),
    EVERY_STACK,
  )), SYNTH_VARIABLES)
    .action(async (flags: GraphFlags) => {
      outcome.end = await runGraph(flags, processIo());
    });
}

export async function runGraph(flags: GraphFlags, io: CliIo): Promise<CommandEnd> {
  try {
    if (!GRAPH_FORMATS.includes(flags.format as GraphFormat)) {
      throw new UsageError(`--format must be one of ${GRAPH_FORMATS.join(', ')}; got "${flags.format}"`);
    }
    const settings = parseEngineFlags(flags);
    const outdir = await prepareSynthOutput(settings, io);
    const selected = selectSynthesizedStacks(outdir, settings.stacks, 'read', 'graph');
    if (!selected.ok) return commandFailure(selected.error);
    // Addresses start with their stack's name, so the stacks' graphs join into one without a clash.
    const resources = selected.value.flatMap((stack) => loadDesired(outdir, stack).resources);
    const title = selected.value.length === 1 ? selected.value[0] : 'secretform';
    io.stdout.write(renderGraph(resources, flags.format as GraphFormat, title));
    return 0;
  } catch (error) {
    return commandFailure(error);
  }
}
