import * as path from 'node:path';
import { DesiredStateError, listSynthesizedStacks } from './desired';
import type { EngineOptions } from './engine-options';
import { EngineError, fail, ok, type Result } from '../errors';

/**
 * The stack a command works on: the one given, else the loaded desired state's, else the only stack of the
 * synth output (`<outdir>/manifest.json`).
 */
export function resolveStack(options: Pick<EngineOptions, 'stack' | 'desired'>): Result<string> {
  if (options.stack !== undefined && options.stack !== '') return ok(options.stack);
  const { desired } = options;
  if (desired.kind === 'loaded') return ok(desired.desired.stack);
  if (desired.kind === 'specs') return ok(desired.stack);
  try {
    const stacks = listSynthesizedStacks(desired.outdir);
    if (stacks.length === 1) return ok(stacks[0]);
    return fail(
      new EngineError(
        'desired_invalid',
        `${desired.outdir} holds ${stacks.length} stacks (${stacks.join(', ') || 'none'}); choose one with --stack`,
      ),
    );
  } catch (error) {
    const message = error instanceof DesiredStateError ? error.message : String(error);
    return fail(new EngineError('desired_invalid', message));
  }
}

/** Where a stack's state lives unless `--state` says otherwise. */
export function defaultStatePath(cwd: string, stack: string): string {
  return path.join(cwd, '.secretform', `${stack}.state.json`);
}

/**
 * The stack an address belongs to: its first path segment (an address is a construct path, `<stack>/...`).
 * Undefined for an address without one.
 */
export function stackOfAddress(address: string): string | undefined {
  const slash = address.indexOf('/');
  return slash > 0 ? address.slice(0, slash) : undefined;
}

/**
 * The stack of a command on one address (an operation, `state show | rm | mv`): the one given, else the address's
 * first segment (with several stacks, none need be given), unless the desired state is already one stack's. A
 * stack given that does not hold the address is refused before anything is read: its connection, state and lock
 * are another stack's, and the address would only turn out "not in the state of" it, without a word about which
 * stack was meant. (The CLI refuses the same earlier, as a usage error: oneStackOf.)
 */
export function addressStack(options: Pick<EngineOptions, 'stack' | 'desired'>, address: string): Result<string | undefined> {
  const own = stackOfAddress(address);
  const given = options.stack === '' ? undefined : options.stack;
  if (given !== undefined && own !== undefined && given !== own) {
    return fail(new EngineError(
      'address_unknown',
      `stack ${given} does not hold ${address}: an address starts with its stack's name, so it is in stack ${own}. ` +
        `Leave the stack out (the address names its stack), or give stack ${own}; nothing was read or sent`,
    ));
  }
  return ok(given ?? (options.desired.kind === 'synth-output' ? own : undefined));
}
