/**
 * `secretform graph [--format dot|mermaid] [--stack NAME] [--output DIR] [--no-synth] [--app CMD]`: prints the
 * stack's dependency graph from the synthesized desired state (no service, no state needed).
 */
import type { Command } from 'commander';
import { loadDesired } from '../../engine/setup/desired';
import { GRAPH_FORMATS, renderGraph, type GraphFormat } from '../../report/graph';
import { nonEmptyFlag, prepareSynthOutput } from '../engine-flags';
import { failWith, processIo, type CliIo } from '../io';
import type { CommandOutcome } from '../main';
import { UsageError } from '../usage-error';

export interface GraphFlags {
  format: string;
  stack?: string;
  output?: string;
  synth: boolean;
  app?: string;
}

export function registerGraphCommand(program: Command, outcome: CommandOutcome): void {
  program
    .command('graph')
    .description("print the stack's dependency graph (an edge goes from an object to the one that needs it)")
    .option('--format <format>', 'dot (Graphviz) or mermaid', 'dot')
    .option('--stack <name>', 'stack to draw (default: the only stack of the synth output)')
    .option('--output <dir>', 'synth output directory (default: "output" of cdktf.json, else cdktf.out)')
    .option('--no-synth', 'use the existing synth output (--output) instead of running the app first')
    .option('--app <command>', 'command that runs the app (default: "app" of cdktf.json)')
    .action(async (flags: GraphFlags) => {
      outcome.exitCode = await runGraph(flags, processIo());
    });
}

export async function runGraph(flags: GraphFlags, io: CliIo): Promise<number> {
  try {
    if (!GRAPH_FORMATS.includes(flags.format as GraphFormat)) {
      throw new UsageError(`--format must be one of ${GRAPH_FORMATS.join(', ')}; got "${flags.format}"`);
    }
    const app = nonEmptyFlag('--app', flags.app);
    if (app !== undefined && !flags.synth) throw new UsageError('--app runs the app first, so it cannot be combined with --no-synth; drop one of them');
    const settings = { stack: nonEmptyFlag('--stack', flags.stack), output: nonEmptyFlag('--output', flags.output), synth: flags.synth, app, targets: [], parallelism: 1, passEnv: [], lockTimeoutMs: 0 };
    const outdir = await prepareSynthOutput(settings, io);
    const desired = loadDesired(outdir, settings.stack);
    io.stdout.write(renderGraph(desired.resources, flags.format as GraphFormat, desired.stack));
    return 0;
  } catch (error) {
    return failWith(io, error);
  }
}
