/**
 * The options of the state commands and force-unlock: flags to the engine options of one stack's state.
 */
import * as path from 'node:path';
import { stateStackNameProblem } from '../../engine';
import type { EngineOptions } from '../../engine/setup/engine-options';
import { configuredOutputDir, nonEmptyFlag, parseLockTimeout, parseStackFlag, stateFlagValue } from './engine-flags';
import type { CliIo } from './io';
import { oneStackOf } from './stack-choice';
import { UsageError } from './usage-error';

export interface StateFlags {
  /** One name from commander (a second `--stack` is refused there); a program may pass a list, refused here. */
  stack?: string | string[];
  output?: string;
  state?: string;
  lockTimeout?: string;
  force?: boolean;
}

/**
 * The state commands never synthesize: they read the existing output only to find the stack's name. They work
 * on one stack, as import, action and exec do (`oneStackOf`): the one `--stack`, by name, else the stack ADDRESS
 * (of show, rm, mv) starts with, else the only stack of the output. Refusals throw a UsageError.
 */
export function stateOptions(flags: StateFlags, io: CliIo, command: string, address?: string): EngineOptions {
  const given = parseStackFlag(flags.stack);
  const stack = oneStackOf(given, command, address);
  const output = nonEmptyFlag('--output', flags.output) ?? configuredOutputDir(io.cwd);
  const outdir = path.resolve(io.cwd, output);
  const problem = given.stack === undefined ? undefined : stateStackNameProblem(outdir, given.stack, command);
  if (problem !== undefined) throw new UsageError(problem.message);
  return {
    stack,
    desired: { kind: 'synth-output', outdir },
    statePath: stateFlagValue(nonEmptyFlag('--state', flags.state), io.cwd),
    lockTimeoutMs: parseLockTimeout(flags.lockTimeout),
    env: io.env,
    cwd: io.cwd,
  };
}
