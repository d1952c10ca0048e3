/**
 * npm packages that only some runs need, loaded on first use rather than with every command: a plan that writes
 * no file (write-file-atomic), deletes nothing (p-limit bounds the reads of what a deletion takes with it) and
 * names no stack pattern (picomatch) loads none of them: ~7 ms less before its first request on Node 20.
 * test/e2e/cli-startup.test.ts fails if such a plan loads one again. The only place that requires them, so every
 * command (generate too) gets them the same way; prettier too, which only generate needs. (zod has its own:
 * lazy-zod.ts.)
 */
/* eslint-disable @typescript-eslint/no-require-imports -- a top-level import would load them with every command */
import type PLimit from 'p-limit';
import type * as Prettier from 'prettier';
import type Picomatch from 'picomatch';
import type WriteFileAtomic from 'write-file-atomic';

/** Writes `data` to a file beside `file` and renames it into place (write-file-atomic). */
export function writeFileAtomically(file: string, data: string, options?: WriteFileAtomic.Options): Promise<void> {
  return (require('write-file-atomic') as typeof WriteFileAtomic)(file, data, options ?? {});
}

/** A function that runs at most `concurrency` of the tasks given to it at once (p-limit). */
export function concurrencyLimit(concurrency: number): ReturnType<typeof PLimit> {
  return (require('p-limit') as typeof PLimit)(concurrency);
}

/** picomatch, for the glob patterns of `--stack`. */
export function globs(): typeof Picomatch {
  return require('picomatch') as typeof Picomatch;
}

/** prettier's `format`: only `secretform generate` formats code, and every command's help registers generate. */
export function formatWithPrettier(source: string, options: Prettier.Options): Promise<string> {
  return (require('prettier') as typeof Prettier).format(source, options);
}
