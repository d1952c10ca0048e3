/**
 * `secretform graph [--format dot|mermaid] [--stack NAME] [--output DIR] [--no-synth] [--app CMD] [--synth-env NAME]...`:
 * prints the stack's dependency graph from the synthesized desired state (no service, no state needed).
 */
import type { Command } from 'commander';
import { loadDesired } from '../../engine/setup/desired';
import { GRAPH_FORMATS, renderGraph, type GraphFormat } from '../../report/graph';
import { addStackOptions, addSynthOptions, parseEngineFlags, prepareSynthOutput, type StackFlags } from '../engine-flags';
import { failWith, processIo, type CliIo } from '../io';
import type { CommandOutcome } from '../main';
import { UsageError } from '../usage-error';

export interface GraphFlags extends StackFlags {
  format: string;
}

export function registerGraphCommand(program: Command, outcome: CommandOutcome): void {
  addSynthOptions(addStackOptions(
    program
      .command('graph')
      .description("print the stack's dependency graph (an edge goes from an object to the one that needs it)")
      .option('--format <format>', 'dot (Graphviz) or mermaid', 'dot'),
  ))
    .action(async (flags: GraphFlags) => {
      outcome.exitCode = await runGraph(flags, processIo());
    });
}

export async function runGraph(flags: GraphFlags, io: CliIo): Promise<number> {
  try {
    if (!GRAPH_FORMATS.includes(flags.format as GraphFormat)) {
      throw new UsageError(`--format must be one of ${GRAPH_FORMATS.join(', ')}; got "${flags.format}"`);
    }
    const settings = parseEngineFlags(flags);
    const outdir = await prepareSynthOutput(settings, io);
    const desired = loadDesired(outdir, settings.stack);
    io.stdout.write(renderGraph(desired.resources, flags.format as GraphFormat, desired.stack));
    return 0;
  } catch (error) {
    return failWith(io, error);
  }
}
