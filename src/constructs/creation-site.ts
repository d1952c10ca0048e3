/**
 * Where the user's code creates a secretform construct: the file, line and column SARIF results and the markdown
 * policy section point at, so code scanning annotates the line that declares the object.
 *
 * The constructor captures a short stack and synth reads it once: the first frame in the user's code wins. Frames
 * of secretform itself (its `src/` or `dist/`), of any package under `node_modules` (cdktf, cdktn, constructs,
 * tsx) and of node's internals are skipped. Under tsx (`npx tsx main.ts`, `node --import tsx main.ts`) the frames
 * are source-mapped, so the line and column are those of the `.ts` file as written, at the `new` expression.
 *
 * The stack is read as V8's structured call sites (file, line and column of each frame), not as formatted text:
 * formatting every frame of every construct (and source-mapping each one under tsx) was most of what the
 * creation site cost at synth. Source maps are applied as node applies them when it formats a stack
 * (`findSourceMap`, `findEntry`). An app that formats stacks itself (its own `Error.prepareStackTrace`
 * set, e.g. by source-map-support under ts-node) keeps that: its formatted stack is read instead.
 *
 * The file is relative to the working directory of synth (the project directory), with `/` separators: no
 * absolute machine path is written. A file outside that directory, or a stack without a user frame, gives no
 * location; so does `new App({ stackTraces: false })`, which cdktf records as the context below.
 */
import { findSourceMap, type SourceMap } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { IConstruct } from 'constructs';
import type { SourceLocation } from '../synthesized-spec';

/** The context cdktf and cdktn set for `new App({ stackTraces: false })` (their annotations.js). */
export const DISABLE_STACK_TRACE_CONTEXT = '@cdktf/disable_stack_trace_in_metadata';

/**
 * Frames captured per construct (the base constructor's own frame is left out): the generated class and a few of
 * the user's own wrapping constructs fit; a deeper stack without a user frame gives no location.
 */
const CAPTURED_FRAMES = 6;

/** secretform's package directory: this file is `<package>/src/constructs/` (tsx, jest) or `<package>/dist/constructs/`. */
const PACKAGE_ROOT = path.resolve(__dirname, '..', '..');
const OWN_CODE = [path.join(PACKAGE_ROOT, 'src') + path.sep, path.join(PACKAGE_ROOT, 'dist') + path.sep];

/** A frame in the user's code: its absolute file (source-mapped), line and column. */
interface UserFrame {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

/**
 * A captured stack, read once at synth: the user's frames, in stack order, or (when the app formats stacks
 * itself) the stack as it formats it.
 */
export type CreationStack = { readonly frames: readonly UserFrame[] } | { readonly stack?: string };

/**
 * The stack of the construct being created, or undefined when the app turned stack traces off. `below` is the
 * constructor whose frame, and the frames above it, are left out (the base class).
 */
export function captureCreationStack(scope: IConstruct, below: Parameters<typeof Error.captureStackTrace>[1]): CreationStack | undefined {
  if (scope.node.tryGetContext(DISABLE_STACK_TRACE_CONTEXT) === true) return undefined;
  const errorClass = Error as { prepareStackTrace?: unknown };
  const prepare = errorClass.prepareStackTrace;
  const formatsItself = prepare !== undefined && (prepare as { name?: unknown }).name !== NODE_PREPARE_STACK_TRACE;
  // V8 formats it only when `.stack` is read (at synth), with the app's own `Error.prepareStackTrace`.
  if (formatsItself) return captured(below, CAPTURED_FRAMES, false) as { stack?: string };
  // Most constructs are made right in the user's code (the generated class's frame, then the user's): the first
  // frames usually hold the project frame that ends the search, and V8's cost follows the frames it collects.
  // Else all of them, from the same point of the same stack: the same frames as capturing them all at once.
  const first = userFrames(callSitesIn(captured(below, FIRST_FRAMES, true)));
  return { frames: first.complete ? first.frames : userFrames(callSitesIn(captured(below, CAPTURED_FRAMES, true))).frames };
}

/** Frames captured first: the generated class's and the user's, when the user's code makes the construct itself. */
const FIRST_FRAMES = 3;

/**
 * A holder of the stack below `below`, at most `frames` deep; with `structured`, its `stack` is V8's call sites
 * (read while `callSitesOf` is in place: V8 prepares the stack on the first read).
 */
function captured(below: Parameters<typeof Error.captureStackTrace>[1], frames: number, structured: boolean): { stack?: unknown } {
  const errorClass = Error as { prepareStackTrace?: unknown; stackTraceLimit: number };
  const prepare = errorClass.prepareStackTrace;
  const holder: { stack?: unknown } = {};
  const limit = errorClass.stackTraceLimit;
  errorClass.stackTraceLimit = frames;
  if (structured) errorClass.prepareStackTrace = callSitesOf;
  try {
    Error.captureStackTrace(holder, below);
    if (structured) return { stack: holder.stack };
  } finally {
    errorClass.stackTraceLimit = limit;
    if (structured) errorClass.prepareStackTrace = prepare;
  }
  return holder;
}

function callSitesIn(holder: { stack?: unknown }): CallSite[] {
  return Array.isArray(holder.stack) ? (holder.stack as CallSite[]) : [];
}

/**
 * The name of node's own `Error.prepareStackTrace` (its default formatting, source maps included when enabled),
 * which the structured reading reproduces; any other function is the app's own.
 */
const NODE_PREPARE_STACK_TRACE = 'ErrorPrepareStackTrace';

/** What secretform reads of V8's call sites (https://v8.dev/docs/stack-trace-api). */
interface CallSite {
  getFileName(): string | null | undefined;
  getLineNumber(): number | null;
  getColumnNumber(): number | null;
}

function callSitesOf(_error: Error, callSites: CallSite[]): CallSite[] {
  return callSites;
}

/** The creation site of a captured stack, relative to `cwd`; undefined when none of its frames is the user's. */
export function creationSiteOf(stack: CreationStack | undefined, cwd: string): SourceLocation | undefined {
  if (stack === undefined) return undefined;
  if ('frames' in stack) {
    for (const frame of stack.frames) {
      const relative = projectFile(frame.file, cwd);
      if (relative !== undefined) return { file: relative, line: frame.line, column: frame.column };
    }
    return undefined;
  }
  if (typeof stack.stack !== 'string') return undefined;
  return userFrameOf(stack.stack, cwd, OWN_CODE);
}

/**
 * The frames of `callSites` in the user's code, with the file, line and column node would show for them when
 * formatting the stack (source-mapped when source maps are enabled, as tsx enables them). It stops at the first
 * one under the working directory, which synth takes unless the app changes directory in between (`complete`:
 * the list would be the same from a deeper stack).
 */
function userFrames(callSites: readonly CallSite[]): { frames: UserFrame[]; complete: boolean } {
  const frames: UserFrame[] = [];
  const mapsEnabled = process.sourceMapsEnabled;
  const project = process.cwd() + path.sep;
  for (const site of callSites) {
    const fileName = site.getFileName();
    if (typeof fileName !== 'string') continue;
    const map = mapsEnabled ? sourceMapOf(fileName) : undefined;
    // Without a source map the file is known before the position is read: most frames are not the user's.
    if (map === undefined && userFileOf(fileName) === undefined) continue;
    const line = site.getLineNumber();
    const column = site.getColumnNumber();
    if (line === null || column === null) continue;
    const mapped = map === undefined ? { file: fileName, line, column } : sourceMapped(map, fileName, line, column);
    const file = userFileOf(mapped.file);
    if (file === undefined) continue;
    frames.push({ file, line: mapped.line, column: mapped.column });
    // No frame after this one is ever read: more frames would give the same list.
    if (file.startsWith(project)) return { frames, complete: true };
  }
  return { frames, complete: false };
}

/** A position of generated code as node shows it through the file's source map. */
function sourceMapped(map: SourceMap, file: string, line: number, column: number): { file: string; line: number; column: number } {
  // Source map lines and columns count from 0, stack frames' from 1 (node's prepareStackTraceWithSourceMaps).
  const entry = map.findEntry(line - 1, column - 1) as Partial<{ originalSource: string; originalLine: number; originalColumn: number }>;
  if (!entry.originalSource || entry.originalLine === undefined || entry.originalColumn === undefined) return { file, line, column };
  return { file: entry.originalSource, line: entry.originalLine + 1, column: entry.originalColumn + 1 };
}

/** Source maps by file name; a file's map is registered when the file is loaded, before any frame of it runs. */
const sourceMaps = new Map<string, SourceMap | undefined>();

function sourceMapOf(file: string): SourceMap | undefined {
  if (!sourceMaps.has(file)) sourceMaps.set(file, findSourceMap(file));
  return sourceMaps.get(file);
}

/** The absolute path of a frame's file when it is the user's (not secretform's, a package's or node's), by file. */
const userFiles = new Map<string, string | null>();

function userFileOf(location: string): string | undefined {
  let file = userFiles.get(location);
  if (file === undefined) {
    const absolute = absoluteFile(location);
    file = absolute !== undefined && isUserFile(absolute, OWN_CODE) ? absolute : null;
    userFiles.set(location, file);
  }
  return file ?? undefined;
}

/** `file` relative to `cwd` with `/` separators; undefined outside it (no path to write that is not the machine's). */
function projectFile(file: string, cwd: string): string | undefined {
  // Most constructs of an app are made in a few files: `path.relative` once per file and directory.
  const key = `${cwd}\u0000${file}`;
  if (projectFiles.has(key)) return projectFiles.get(key);
  const relative = projectFileUncached(file, cwd);
  projectFiles.set(key, relative);
  return relative;
}

const projectFiles = new Map<string, string | undefined>();

function projectFileUncached(file: string, cwd: string): string | undefined {
  const relative = path.relative(cwd, file);
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) return undefined;
  return relative.split(path.sep).join('/');
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
    const relative = projectFile(file, cwd);
    if (relative !== undefined) return { file: relative, line: Number(frame[2]), column: Number(frame[3]) };
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
