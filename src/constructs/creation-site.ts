/**
 * Where the user's code creates a secretform construct: the file, line and column SARIF results and the markdown
 * policy section point at, so code scanning annotates the line that declares the object.
 *
 * The constructor captures a short stack (a few microseconds; V8 formats it only when `.stack` is read) and synth
 * reads it once: the first frame in the user's code wins. Frames of secretform itself (its `src/` or `dist/`),
 * of any package under `node_modules` (cdktf, cdktn, constructs, tsx) and of node's internals are skipped.
 * Under tsx (`npx tsx main.ts`, `node --import tsx main.ts`) the frames are source-mapped, so the line and column
 * are those of the `.ts` file as written, at the `new` expression.
 *
 * The file is relative to the working directory of synth (the project directory), with `/` separators: no
 * absolute machine path is written. A file outside that directory, or a stack without a user frame, gives no
 * location; so does `new App({ stackTraces: false })`, which cdktf records as the context below.
 */
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { IConstruct } from 'constructs';
import type { SourceLocation } from '../synthesized-spec';

/** The context cdktf and cdktn set for `new App({ stackTraces: false })` (their annotations.js). */
export const DISABLE_STACK_TRACE_CONTEXT = '@cdktf/disable_stack_trace_in_metadata';

/**
 * Frames captured per construct (the base constructor's own frame is left out): the generated class and a few of
 * the user's own wrapping constructs fit; a deeper stack without a user frame gives no location. Formatting a
 * frame is the cost (under tsx each one is source-mapped): 12 frames took about 0.15-0.3 ms a construct on a busy
 * 2-core machine, 6 about half that.
 */
const CAPTURED_FRAMES = 6;

/** secretform's package directory: this file is `<package>/src/constructs/` (tsx, jest) or `<package>/dist/constructs/`. */
const PACKAGE_ROOT = path.resolve(__dirname, '..', '..');
const OWN_CODE = [path.join(PACKAGE_ROOT, 'src') + path.sep, path.join(PACKAGE_ROOT, 'dist') + path.sep];

/** A captured, not yet formatted stack: read once at synth. */
export interface CreationStack {
  readonly stack?: string;
}

/**
 * The stack of the construct being created, or undefined when the app turned stack traces off. `below` is the
 * constructor whose frame, and the frames above it, are left out (the base class).
 */
export function captureCreationStack(scope: IConstruct, below: Parameters<typeof Error.captureStackTrace>[1]): CreationStack | undefined {
  if (scope.node.tryGetContext(DISABLE_STACK_TRACE_CONTEXT) === true) return undefined;
  const holder: { stack?: string } = {};
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = CAPTURED_FRAMES;
  try {
    Error.captureStackTrace(holder, below);
  } finally {
    Error.stackTraceLimit = limit;
  }
  return holder;
}

/** The creation site of a captured stack, relative to `cwd`; undefined when none of its frames is the user's. */
export function creationSiteOf(stack: CreationStack | undefined, cwd: string): SourceLocation | undefined {
  if (stack?.stack === undefined) return undefined;
  return userFrameOf(stack.stack, cwd, OWN_CODE);
}

/**
 * The first frame of a formatted V8 stack (`    at fn (/abs/file.ts:8:13)`, `    at /abs/file.ts:8:13`,
 * `file:///abs/file.mjs:8:13`) that is the user's: an absolute file under `cwd`, not in `ownCode`, not under
 * `node_modules`, not node's own (`node:internal/...`). Exported for its unit test.
 */
export function userFrameOf(stack: string, cwd: string, ownCode: readonly string[]): SourceLocation | undefined {
  for (const line of stack.split('\n')) {
    const frame = FRAME.exec(line);
    if (frame === null) continue;
    const file = absoluteFile(frame[1]);
    if (file === undefined || !isUserFile(file, ownCode)) continue;
    const relative = path.relative(cwd, file);
    // Outside the project directory: no path to write that is not the machine's.
    if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) continue;
    return { file: relative.split(path.sep).join('/'), line: Number(frame[2]), column: Number(frame[3]) };
  }
  return undefined;
}

/** `at <function> (<file>:<line>:<column>)` or `at <file>:<line>:<column>`. */
const FRAME = /^\s*at (?:.*? \()?([^()]+?):(\d+):(\d+)\)?$/;

function absoluteFile(location: string): string | undefined {
  let file = location;
  if (file.startsWith('file://')) {
    try {
      file = fileURLToPath(file);
    } catch {
      return undefined;
    }
  }
  return path.isAbsolute(file) ? path.normalize(file) : undefined;
}

function isUserFile(file: string, ownCode: readonly string[]): boolean {
  if (file.startsWith('node:')) return false;
  if (file.split(/[\\/]/).includes('node_modules')) return false;
  return !ownCode.some((prefix) => file.startsWith(prefix));
}
