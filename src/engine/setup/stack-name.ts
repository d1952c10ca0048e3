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
