/**
 * The options plan, apply, destroy and import share (`[--stack NAME] [--output DIR] [--state PATH]
 * [--lock-timeout D] [--target ADDRESS]... [--parallelism N] [--no-synth] [--app CMD] [--synth-env NAME]...`), and
 * the subsets action, exec and graph take: their registration, their validation (one parser for all), and the
 * engine options they become once the app has been synthesized.
 */
import * as path from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import type { EngineError } from '../../engine/errors';
import type { EngineOptions } from '../../engine/setup/engine-options';
import { DEFAULT_PARALLELISM } from '../../engine/setup/default-parallelism';
import { isStateUrl, STATE_ENV } from '../../engine/state/state-location';
import { configuredOutputDir, DEFAULT_OUTPUT_DIR } from '../../engine/setup/synth-output-dir';
import { synthesize } from '../../synthesize';
import { resolveStack } from '../../engine/setup/stack-name';
import { attempt, commandFailure, CommandFailure } from './command-failure';
import { writeWarning, type CliIo } from './io';
import { UsageError } from './usage-error';

export { DEFAULT_PARALLELISM };
// The synth output's default place is the engine's too (a saved plan's connections are checked against it).
export { configuredOutputDir, DEFAULT_OUTPUT_DIR };

/** A repeatable option's values, in the order given (commander's argument parser for `--stack`, `--target`, ...). */
export const collectNames = (value: string, previous: string[] = []): string[] => [...previous, value];

/** `--synth-env`, which `synth` and every command that synthesizes take. */
export const SYNTH_ENV_OPTION = '--synth-env <name>';
export const SYNTH_ENV_HELP = 'pass this environment variable (or every one starting with PREFIX, as PREFIX*) to the app (repeatable; see docs/cli.md)';

/** `--stack`, `--output` and how the synth output is made: what every command that reads the stack's code takes. */
export interface StackFlags {
  /** One name for the commands of one stack; the names and patterns given for plan, apply, destroy and graph. */
  stack?: string | string[];
  output?: string;
  /** False with `--no-synth`. */
  synth: boolean;
  app?: string;
  /** `--synth-env NAME`, repeatable. */
  synthEnv?: string[];
}

/** StackFlags and `--state`: what the commands that read the stack's state take (action, exec). */
export interface StateFlags extends StackFlags {
  state?: string;
}

/**
 * What commander hands the action for the shared options. A command that does not register one of the last three
 * leaves it undefined, which parses as its default.
 */
export interface EngineFlags extends StateFlags {
  /** `--lock-timeout` as given (default 0s). */
  lockTimeout?: string;
  /** Undefined when no --target was given. */
  target?: string[];
  /** Undefined means DEFAULT_PARALLELISM. */
  parallelism?: string;
  /** `--timeout` as given; undefined means the engine's default (30m). */
  timeout?: string;
  /** `--migrate-state`. */
  migrateState?: boolean;
}

/** The shared options once validated. */
export interface EngineSettings {
  /** The one `--stack` given, if exactly one was. */
  stack?: string;
  /** Every `--stack` given (names or glob patterns), in order; empty when none was. */
  stacks: string[];
  /** `--output` as given; undefined means "output" of cdktf.json, else cdktf.out. */
  output?: string;
  statePath?: string;
  lockTimeoutMs: number;
  targets: string[];
  parallelism: number;
  /** The run's deadline (`--timeout`); undefined: the engine's default. */
  timeoutMs?: number;
  synth: boolean;
  app?: string;
  /** Variables passed on to the app beyond the process basics. */
  passEnv: string[];
  /** `--migrate-state`: run against the connection's service although the state records another. */
  migrateState: boolean;
}

/**
 * How a command takes `--stack`: several names and patterns, or one name; and what it works on without one,
 * which differs by command (every stack for plan, the only one for apply, ADDRESS's for action), so each says its own.
 */
export interface StackChoiceHelp {
  several: boolean;
  /** The end of the option's help: "default: <this>". */
  default: string;
}

/** plan, graph, drift: every stack unless named. */
export const EVERY_STACK: StackChoiceHelp = { several: true, default: 'every stack of the synth output' };
/** apply and destroy: several when named, the only one otherwise. */
export const ONLY_STACK_OR_NAMED: StackChoiceHelp = { several: true, default: 'the only stack of the synth output; with several stacks, name the ones to change' };
/** Commands of one stack that take no address (state list, force-unlock, ...). */
export const ONLY_STACK: StackChoiceHelp = { several: false, default: 'the only stack of the synth output' };
/** Commands of one stack that take an ADDRESS (action, exec, import, state show | rm | mv): ADDRESS names it. */
export const ADDRESS_STACK: StackChoiceHelp = { several: false, default: 'the stack ADDRESS starts with; another one is refused' };

/**
 * `--stack` and `--output`: which stacks of which synth output. A command over several stacks takes `--stack`
 * repeatedly and as glob patterns; a command of one stack refuses a second `--stack` rather than silently
 * taking the last.
 */
export function addStackOptions(command: Command, choice: StackChoiceHelp): Command {
  const stackOption = choice.several
    ? command.option('--stack <pattern>', `stack to work on (repeatable; glob patterns such as 'prod-*', '*' for all; default: ${choice.default})`, collectNames)
    : command.option('--stack <name>', `stack to work on, by name (default: ${choice.default})`, onlyOneStack);
  return stackOption.option('--output <dir>', `synth output directory (default: "output" of cdktf.json, else ${DEFAULT_OUTPUT_DIR})`);
}

/** A second `--stack` for a command of one stack is an error, never "the last one wins". */
function onlyOneStack(value: string, previous: string | undefined): string {
  if (previous !== undefined) {
    throw new InvalidArgumentError(`--stack was given twice ("${previous}" and "${value}"); this command works on one stack: give --stack once`);
  }
  return value;
}

/** `--stack`, `--output` and `--state`: all the state commands need. */
export function addStateLocationOptions(command: Command, choice: StackChoiceHelp): Command {
  return addStackOptions(command, choice).option(
    '--state <path|url>',
    `state file ({stack} is the stack's name), or postgres://USER[:PASSWORD]@HOST[:PORT]/DB[?schema=NAME] (default: $${STATE_ENV}, else .secretform/<stack>.state.json)`,
  );
}

/** `--lock-timeout`: for every command that takes the state lock. */
export function addLockTimeoutOption(command: Command): Command {
  return command.option('--lock-timeout <duration>', 'how long to wait for another command holding the state lock (e.g. 30s, 5m)', '0s');
}

/** `--no-synth`, `--app` and `--synth-env`: how the synth output a command reads is made (registered last). */
export function addSynthOptions(command: Command): Command {
  return command
    .option('--no-synth', 'use the existing synth output (--output) instead of running the app first')
    .option('--app <command>', 'command that runs the app (default: "app" of cdktf.json)')
    .option(SYNTH_ENV_OPTION, SYNTH_ENV_HELP, collectNames);
}

export const PARALLELISM_HELP = 'requests in flight at once to each service address, shared by every stack of the run on it';
export const TIMEOUT_HELP = "the run's deadline: no request is sent or retried after it; a 429 or 503 with Retry-After is retried as asked until then (e.g. 10m, 1h; default 30m)";

export function addEngineOptions(command: Command, choice: StackChoiceHelp): Command {
  return addSynthOptions(
    addLockTimeoutOption(addStateLocationOptions(command, choice))
      .option('--target <address>', 'limit the run to this resource address (repeatable)', collectNames)
      .option('--parallelism <n>', PARALLELISM_HELP, String(DEFAULT_PARALLELISM))
      .option('--timeout <duration>', TIMEOUT_HELP)
      .option('--migrate-state', "the stack's objects moved to the service its connection names: run against it although the state records another service, and (apply) record it in the state (docs/state.md)"),
  );
}

/** Checks every flag value; throws a UsageError naming the flag, the value and what is allowed. */
export function parseEngineFlags(flags: EngineFlags): EngineSettings {
  return {
    ...parseStackFlag(flags.stack),
    output: nonEmptyFlag('--output', flags.output),
    statePath: nonEmptyFlag('--state', flags.state),
    lockTimeoutMs: parseLockTimeout(flags.lockTimeout),
    targets: (flags.target ?? []).map((target) => nonEmptyFlag('--target', target)!),
    parallelism: flags.parallelism === undefined ? DEFAULT_PARALLELISM : parseParallelism(flags.parallelism),
    timeoutMs: parseRunTimeout(flags.timeout),
    synth: flags.synth,
    app: appFlag(flags),
    passEnv: (flags.synthEnv ?? []).map((name) => nonEmptyFlag('--synth-env', name)!),
    migrateState: flags.migrateState === true,
  };
}

/** `--stack` as given (one value from commander, or a list): every value, and the one value when there is one. */
export function parseStackFlag(flag: string | readonly string[] | undefined): Pick<EngineSettings, 'stack' | 'stacks'> {
  const stacks = (flag === undefined ? [] : [flag].flat()).map((stack) => nonEmptyFlag('--stack', stack)!);
  return { stack: stacks.length === 1 ? stacks[0] : undefined, stacks };
}

export function parseParallelism(value: string): number {
  const trimmed = value.trim();
  const parsed = Number(trimmed);
  if (!/^\d+$/.test(trimmed) || !Number.isSafeInteger(parsed) || parsed < 1) {
    throw new UsageError(`--parallelism must be a positive integer (1, 2, ...), got "${value}"`);
  }
  return parsed;
}

const DURATION_UNITS_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `--lock-timeout`: a duration such as 0s, 500ms, 30s, 5m, 1h30m (a bare number is seconds). */
export function parseLockTimeout(value: string | undefined): number {
  if (value === undefined) return 0;
  return parseDurationFlag('--lock-timeout', value, '0s, 30s, 5m or 1h30m');
}

/** `--timeout`: a duration above zero, as --lock-timeout takes them; undefined when not given. */
export function parseRunTimeout(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = parseDurationFlag('--timeout', value, '90s, 10m or 1h');
  if (ms === 0) throw new UsageError(`--timeout must be longer than 0 (the run could send no request), got "${value}"`);
  return ms;
}

function parseDurationFlag(flag: string, value: string, examples: string): number {
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const parts = [...text.matchAll(/(\d+)(ms|s|m|h)/g)];
  if (text === '' || parts.map((part) => part[0]).join('') !== text) {
    throw new UsageError(`${flag} must be a duration such as ${examples}, got "${value}"`);
  }
  return parts.reduce((total, part) => total + Number(part[1]) * DURATION_UNITS_MS[part[2]], 0);
}

/** A --state value as the engine takes it: a path resolved against the project directory, a URL unchanged. */
export function stateFlagValue(value: string | undefined, cwd: string): string | undefined {
  if (value === undefined) return undefined;
  return isStateUrl(value) ? value : path.resolve(cwd, value);
}

export function nonEmptyFlag(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value.trim() === '') throw new UsageError(`${name} must not be empty`);
  return value;
}

function appFlag(flags: EngineFlags): string | undefined {
  const app = nonEmptyFlag('--app', flags.app);
  if (app !== undefined && !flags.synth) {
    throw new UsageError('--app runs the app before the command, so it cannot be combined with --no-synth; drop one of them');
  }
  return app;
}

/**
 * The synth output directory the command works from: synthesized now (the app's own output goes to stderr, so
 * stdout carries only the command's report), or, with `--no-synth`, the existing one.
 */
export async function prepareSynthOutput(settings: EngineSettings, io: CliIo): Promise<string> {
  if (!settings.synth) return path.resolve(io.cwd, settings.output ?? configuredOutputDir(io.cwd));
  const result = await synthesize({ app: settings.app, output: settings.output, cwd: io.cwd, env: io.env, passEnv: settings.passEnv, stdout: asWritable(io.stderr), stderr: asWritable(io.stderr) });
  return result.outdir;
}

/**
 * What every command that talks to the service does first: synthesize or find the existing output, then check
 * the stack's service connection (its ServiceConnection, else the SERVICE_* environment: address, token
 * variable set, PEM files) before any request. The engine options of the run, or why it cannot start.
 */
export async function prepareServiceRun(settings: EngineSettings, io: CliIo): Promise<EngineOptions | CommandFailure> {
  const options = await attempt(async () => engineOptions(settings, await prepareSynthOutput(settings, io), io));
  if (options instanceof CommandFailure) return options;
  const connectionProblem = checkConnectionOf(options, io);
  return connectionProblem === undefined ? options : commandFailure(connectionProblem);
}

/**
 * The problem with the connection of the stack the options name (warnings are printed), or undefined. When the
 * stack itself cannot be chosen (several stacks, none named), the command reports that: the engine still checks
 * each stack's connection before its first request.
 */
function checkConnectionOf(options: EngineOptions, io: CliIo): EngineError | undefined {
  if (!resolveStack(options).ok) return undefined;
  return connectionProblem(options, io);
}

/** The problem with the connection of the stack `options` names (warnings are printed), or undefined. */
export function connectionProblem(options: EngineOptions, io: CliIo): EngineError | undefined {
  // Loaded when a command checks a connection: run-context.ts brings the client (undici), which `secretform
  // stacks` (no request) never needs.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { checkServiceConnection } = require('../../engine/setup/run-context') as typeof import('../../engine/setup/run-context');
  const checked = checkServiceConnection(options);
  if (!checked.ok) return checked.error.code === 'service_config' ? checked.error : undefined;
  for (const warning of checked.value.config.warnings) writeWarning(io, warning);
  return undefined;
}

/** The engine options for a run over a synth output directory. */
export function engineOptions(settings: EngineSettings, outdir: string, io: CliIo): EngineOptions {
  return {
    stack: settings.stack,
    desired: { kind: 'synth-output', outdir },
    ...runSettings(settings, io),
    targets: settings.targets.length > 0 ? settings.targets : undefined,
    ...(settings.migrateState ? { migrateState: true } : {}),
  };
}

/**
 * What every run takes from the flags and the process, whatever it runs from (a synth output, a saved plan): the
 * state location, the lock wait, the environment, the parallelism and the deadline.
 */
export function runSettings(settings: EngineSettings, io: CliIo): Pick<EngineOptions, 'statePath' | 'lockTimeoutMs' | 'env' | 'cwd' | 'parallelism' | 'timeoutMs'> {
  return {
    statePath: stateFlagValue(settings.statePath, io.cwd),
    lockTimeoutMs: settings.lockTimeoutMs,
    env: io.env,
    cwd: io.cwd,
    parallelism: settings.parallelism,
    ...(settings.timeoutMs === undefined ? {} : { timeoutMs: settings.timeoutMs }),
  };
}

/** synthesize() writes the app's output through `write` only. */
function asWritable(stream: CliIo['stderr']): NodeJS.WritableStream {
  return stream as unknown as NodeJS.WritableStream;
}
