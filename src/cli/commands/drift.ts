/**
 * `secretform drift`: a read-only drift check of the selected stacks (default every stack), recorded in each
 * stack's drift history, with each drifted object's status against that history:
 *
 *   secretform drift [--stack PATTERN]... [--format text|markdown|json|html] [--out-file PATH] [--json-out PATH]
 *     [--detailed-exitcode] [--fail-on new|any] [--no-record] (and plan's synth, state and connection flags)
 *   secretform drift ack ADDRESS... --reason TEXT [--until DATE|DURATION] [--state PATH|URL]
 *   secretform drift unack ADDRESS... [--state PATH|URL]
 *   secretform drift history [ADDRESS] [--stack PATTERN]... [--since DURATION] [--format text|json]
 *
 * Exit codes: 0, 1 on error, and with --detailed-exitcode 2 when there is drift to alert on (--fail-on).
 */
import type { Command } from 'commander';
import { addStateLocationOptions, addSynthOptions, collectNames, DEFAULT_PARALLELISM, EVERY_STACK, PARALLELISM_HELP, TIMEOUT_HELP, type StackChoiceHelp } from '../run/engine-flags';
import { addEnvironmentHelp, FINGERPRINT_VARIABLES, SERVICE_VARIABLES, STATE_VARIABLES, SYNTH_VARIABLES, type VariableName } from '../run/environment-variables';
import { processIo } from '../run/io';
import type { CommandOutcome } from '../run/command-outcome';
import { runDriftAck, runDriftHistory, runDriftUnack, type AckFlags, type HistoryFlags } from '../run/drift-history-run';
import { runDrift, type DriftFlags } from '../run/drift-run';

/** ack and unack work on the stacks their addresses start with. */
const ADDRESSES_STACKS: StackChoiceHelp = { several: false, default: 'the stack the addresses start with; another one is refused' };

/** Who acknowledges, and where the history is kept. */
const ACK_VARIABLES: readonly VariableName[] = [...STATE_VARIABLES, 'SECRETFORM_ACTOR'];

export function registerDriftCommand(program: Command, outcome: CommandOutcome): void {
  // `drift --format` and `drift history --format` (also --stack, --state) are different options: commander gives
  // an option after a subcommand to that subcommand only when every command above it has positional options.
  program.enablePositionalOptions();
  const drift = addSynthOptions(
    addStateLocationOptions(program.command('drift').description('check the stacks for drift, read-only, and record it in their drift history'), EVERY_STACK)
      .option('--parallelism <n>', PARALLELISM_HELP, String(DEFAULT_PARALLELISM))
      .option('--timeout <duration>', TIMEOUT_HELP)
      .option('--format <format>', 'report format: text, markdown (an issue body per stack), json, or html (a self-contained dashboard)', 'text')
      .option('--out-file <path>', 'write the report to this file instead of stdout')
      .option('--json-out <path>', 'also write the JSON report of the same check to this file (e.g. --format markdown for the issue bodies, this to decide what to do with them)')
      .option('--detailed-exitcode', 'exit 2 when there is drift to alert on (see --fail-on), 0 when there is none, 1 on error')
      .option('--fail-on <what>', 'with --detailed-exitcode, what alerts: new (new or changed drift, the default) or any (any drift not acknowledged)')
      .option('--no-record', 'do not record this check in the drift history (statuses are still shown)'),
  )
    // The subcommands' own --stack and --state are theirs: this command's options count only before a subcommand.
    .enablePositionalOptions()
    .action(async (flags: DriftFlags) => {
      outcome.end = await runDrift(flags, processIo());
    });
  addEnvironmentHelp(drift, [...SERVICE_VARIABLES, ...STATE_VARIABLES, ...FINGERPRINT_VARIABLES, ...SYNTH_VARIABLES]);
  addStateLocationOptions(addEnvironmentHelp(drift.command('ack').description('acknowledge the current drift of these objects: it stops alerting until it changes or --until').argument('<address...>', 'addresses of drifted objects (STACK/NAME)'), ACK_VARIABLES), ADDRESSES_STACKS)
    .requiredOption('--reason <text>', 'why the drift is accepted for now (recorded with who and when)')
    .option('--until <date|duration>', 'when the acknowledgement lapses: a date (2026-12-31) or a duration from now (30d, 12h, 2w)')
    .action(async (addresses: string[], flags: AckFlags) => {
      outcome.end = await runDriftAck(addresses, flags, processIo());
    });
  addStateLocationOptions(addEnvironmentHelp(drift.command('unack').description('remove the acknowledgements of these objects').argument('<address...>', 'acknowledged addresses (STACK/NAME)'), STATE_VARIABLES), ADDRESSES_STACKS)
    .action(async (addresses: string[], flags: Omit<AckFlags, 'reason' | 'until'>) => {
      outcome.end = await runDriftUnack(addresses, flags, processIo());
    });
  addEnvironmentHelp(drift.command('history'), STATE_VARIABLES).description('list the drift episodes of the stacks, or of one object')
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
