/**
 * `secretform drift`: a read-only drift check of the selected stacks (default every stack), recorded in each
 * stack's drift history, with each drifted object's status against that history:
 *
 *   secretform drift [--stack PATTERN]... [--format text|markdown|json|html] [--out-file PATH]
 *     [--detailed-exitcode] [--fail-on new|any] [--no-record] (and plan's synth, state and connection flags)
 *   secretform drift ack ADDRESS... --reason TEXT [--until DATE|DURATION] [--state PATH|URL]
 *   secretform drift unack ADDRESS... [--state PATH|URL]
 *   secretform drift history [ADDRESS] [--stack PATTERN]... [--since DURATION] [--format text|json]
 *
 * Exit codes: 0, 1 on error, and with --detailed-exitcode 2 when there is drift to alert on (--fail-on).
 */
import type { Command } from 'commander';
import { addStateLocationOptions, addSynthOptions, collectNames, DEFAULT_PARALLELISM } from '../run/engine-flags';
import { processIo } from '../run/io';
import type { CommandOutcome } from '../run/command-outcome';
import { runDriftAck, runDriftHistory, runDriftUnack, type AckFlags, type HistoryFlags } from '../run/drift-history-run';
import { runDrift, type DriftFlags } from '../run/drift-run';

export function registerDriftCommand(program: Command, outcome: CommandOutcome): void {
  // `drift --format` and `drift history --format` (also --stack, --state) are different options: commander gives
  // an option after a subcommand to that subcommand only when every command above it has positional options.
  program.enablePositionalOptions();
  const drift = addSynthOptions(
    addStateLocationOptions(program.command('drift').description('check the stacks for drift, read-only, and record it in their drift history'), true)
      .option('--parallelism <n>', 'concurrent requests to the service', String(DEFAULT_PARALLELISM))
      .option('--format <format>', 'report format: text, markdown (an issue body per stack), json, or html (a self-contained dashboard)', 'text')
      .option('--out-file <path>', 'write the report to this file instead of stdout')
      .option('--detailed-exitcode', 'exit 2 when there is drift to alert on (see --fail-on), 0 when there is none, 1 on error')
      .option('--fail-on <what>', 'with --detailed-exitcode, what alerts: new (new or changed drift, the default) or any (any drift not acknowledged)')
      .option('--no-record', 'do not record this check in the drift history (statuses are still shown)'),
  )
    // The subcommands' own --stack and --state are theirs: this command's options count only before a subcommand.
    .enablePositionalOptions()
    .action(async (flags: DriftFlags) => {
      outcome.end = await runDrift(flags, processIo());
    });
  addStateLocationOptions(drift.command('ack').description('acknowledge the current drift of these objects: it stops alerting until it changes or --until').argument('<address...>', 'addresses of drifted objects (STACK/NAME)'))
    .requiredOption('--reason <text>', 'why the drift is accepted for now (recorded with who and when)')
    .option('--until <date|duration>', 'when the acknowledgement lapses: a date (2026-12-31) or a duration from now (30d, 12h, 2w)')
    .action(async (addresses: string[], flags: AckFlags) => {
      outcome.end = await runDriftAck(addresses, flags, processIo());
    });
  addStateLocationOptions(drift.command('unack').description('remove the acknowledgements of these objects').argument('<address...>', 'acknowledged addresses (STACK/NAME)'))
    .action(async (addresses: string[], flags: Omit<AckFlags, 'reason' | 'until'>) => {
      outcome.end = await runDriftUnack(addresses, flags, processIo());
    });
  drift.command('history').description('list the drift episodes of the stacks, or of one object')
    .argument('[address]', 'only this object (STACK/NAME)')
    .option('--stack <pattern>', "stacks to list (repeatable; glob patterns; default: every stack of the synth output)", collectNames)
    .option('--output <dir>', 'synth output directory, to find the stacks (default: "output" of cdktf.json, else cdktf.out)')
    .option('--state <path|url>', 'state file ({stack} is the stack\'s name) or postgres:// URL: the history lives with it')
    .option('--since <duration>', 'only episodes seen in this time (e.g. 7d, 12h)')
    .option('--format <format>', 'text or json', 'text')
    .action(async (address: string | undefined, flags: HistoryFlags) => {
      outcome.end = await runDriftHistory(address, flags, processIo());
    });
}
