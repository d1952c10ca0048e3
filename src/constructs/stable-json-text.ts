/**
 * The text cdktf's synthesizer writes to `cdk.tf.json`: `json-stable-stringify` (1.x) of the stack's
 * configuration with `{ space: 2 }` (keys sorted, two spaces per level, an empty object or array opened and
 * closed on two lines), made here by node's native `JSON.stringify` instead of that library's JavaScript.
 *
 * Why: at 10,000 objects the configuration's text is ~15 MB, and the library builds it from a string per value,
 * joined again at every level: ~0.4 s of the synth's main thread and much of its garbage. The native writer
 * makes the same text in about half the time (the write phase at 1 x 10,000: ~0.7 s -> ~0.3 s of the
 * main thread). The library's rules, and how each is kept:
 * - keys in `Array.prototype.sort` order: an object whose own keys are already in that order is written as it
 *   is; another is written from a copy with its keys inserted in that order. A copy enumerates integer-like keys
 *   ("0", "17") first in numeric order whatever the insertion order, so a copy whose order differs from the
 *   sorted one is not written natively (below);
 * - an empty object or array: the native writer gives `{}`; the library `{`, a new line, the indentation of the
 *   line it is on, `}`. Each empty one is replaced by a marker string while writing and the marker by the
 *   library's form after (`splicedEmpties`);
 * - `toJSON`: the library calls it without the key, the native writer with it; a configuration holding one
 *   (whose result might depend on the key) is not written natively, nor is any while a primitive's prototype
 *   has one (the library calls it on strings and numbers too, the native writer does not).
 * Anything not written natively (those cases, a value equal to a marker, a cycle, any error) is written by
 * `libraryText`, a line-by-line port of the library (its exact text, and its error for a cycle).
 * A unit test compares both with the library itself over generated values.
 *
 * The first levels of a configuration (the configuration, `resource`, each resource type) are written member by
 * member here, and each value below them (a resource's entry, ~1.5 KB) by its own `JSON.stringify` call: the
 * pieces can be written to the file as they are made (`consumeStableJson`). One call for the whole configuration
 * made a 15 MB text whose parts outlived several collections of the young generation (promoted: copied twice),
 * then copied again into a fresh 15 MB string when first read (~60 ms of page faults here); the stack file's
 * writing took ~110 ms less of the main thread without them at 1 x 10,000.
 */

/** What replaces an empty object or array while the native writer runs: strings the writer escapes as below. */
const EMPTY_OBJECT = '\u0000{}';
const EMPTY_ARRAY = '\u0000[]';
/** A marker as the native writer writes it, from the backslash (which is rare in a configuration: found fast). */
const MARKER_TAIL = '\\u0000';
/** Units of a written marker: `"\u0000{}"`. */
const MARKER_UNITS = 10;

/** Thrown inside the native writer when the value needs the library's port. */
class NeedsPort extends Error {}

/**
 * The text `json-stable-stringify` 1.x gives for `value` with `{ space: 2 }` as one string (undefined when it gives
 * none), made by `consumeStableJson`, the stack file's writer, so that what is checked here is what is written.
 */
export function stableJsonText(value: unknown): string | undefined {
  let text = '';
  consumeStableJson(value, (pieces) => {
    // From the start: a second call (the port's text) replaces what the first gave.
    text = '';
    for (const piece of pieces) text += piece;
  });
  // A JSON text is never empty: none at all is a value the library gives no text for (undefined, a function).
  return text === '' ? undefined : text;
}

/**
 * `consume` gets the pieces of the text `json-stable-stringify` 1.x gives for `value` with `{ space: 2 }` as they
 * are made, so that none outlives its writing (none at all when the library gives no text).
 * Should the native writer meet, part way, a value only the port writes exactly, `consume` is called again with
 * the port's text, and must then start over (what it took of the first pieces is not part of the text). An
 * error of `consume` itself ends the writing; a value the library cannot write throws the library's error.
 */
export function consumeStableJson(value: unknown, consume: (pieces: Iterable<string>) => void): void {
  if (nativeWritable(value)) {
    try {
      consume(nativePieces(value));
      return;
    } catch (error) {
      if (!(error instanceof NeedsPort)) throw error;
    }
  }
  const text = libraryText(value);
  consume(text === undefined ? [] : [text]);
}

/** Whether the native writer may try `value`: no `toJSON` the library would call differently (see above). */
function nativeWritable(value: unknown): boolean {
  return !primitivesHaveToJson() && !hasToJson(value);
}

/**
 * The levels of a configuration written member by member: the configuration, `resource` and each resource type.
 * The values below (resources, data sources, outputs, ...) are written each by one `JSON.stringify` call.
 */
const LEVELS_BY_MEMBER = 3;

/**
 * The native writer's text of `value`, piece by piece; any failure (a case for the port, a cycle, an error of
 * the value's own) throws `NeedsPort`. Plain objects of the first levels are written member by member, sorted,
 * as the library writes them; any other value is written by `valuePieces`.
 */
function* nativePieces(value: unknown): Generator<string, void, undefined> {
  warmUpReplacer();
  try {
    if (isPlainObject(value)) yield* objectPieces(value, 0);
    else yield* valuePieces(value, 0);
  } catch {
    // A getter's or a proxy's own error too: the port meets it as the library would. (An error of the pieces'
    // consumer is not thrown in here.)
    throw new NeedsPort();
  }
}

/**
 * A plain object at `level`, member by member. A cycle through it is met by the `JSON.stringify` of a value
 * below (the levels written here are few), which throws.
 */
function* objectPieces(object: Record<string, unknown>, level: number): Generator<string, void, undefined> {
  const keys = Object.keys(object).sort();
  const indent = indentOf(level);
  let written = 0;
  yield '{';
  for (const name of keys) {
    // A key starting with U+0000 could be taken for a marker in the text (as in the replacer).
    if (name.charCodeAt(0) === 0) throw new NeedsPort();
    const member = object[name];
    if (hasToJson(member)) throw new NeedsPort();
    if (!writes(member)) continue;
    yield `${written++ === 0 ? '' : ','}\n${indent}  ${JSON.stringify(name)}: `;
    if (level + 1 < LEVELS_BY_MEMBER && isPlainObject(member)) yield* objectPieces(member, level + 1);
    else yield* valuePieces(member, level + 1);
  }
  // No member written: the library's empty object, on two lines.
  yield `\n${indent}}`;
}

/**
 * The text of `value` at `level` (its lines indented for it, its first line where its member's key left off):
 * the native writer's text of `value` inside `level` arrays of one element, without their lines.
 */
function* valuePieces(value: unknown, level: number): Generator<string, void, undefined> {
  let wrapped = value;
  for (let i = 0; i < level; i++) wrapped = [wrapped];
  const text = JSON.stringify(wrapped, sortedReplacer, 2);
  if (text === undefined) return;
  yield* splicedEmpties(text, wrapperOpening(level), text.length - wrapperClosing(level));
}

/** The units of the lines of `level` arrays of one element before their element: `[`, a new line, its indentation each. */
function wrapperOpening(level: number): number {
  return 2 * level + level * (level + 1);
}

/** The units after the element: a new line, the indentation and `]` each. */
function wrapperClosing(level: number): number {
  return 2 * level + level * (level - 1);
}

const INDENTS = Array.from({ length: LEVELS_BY_MEMBER }, (_, level) => '  '.repeat(level));

function indentOf(level: number): string {
  return INDENTS[level];
}

/** An object the library and the native writer both write as its own enumerable members (no class of its own). */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

/**
 * The native writer's replacer: an empty object or array becomes a marker, an object whose keys are out of order
 * a sorted copy; a value the library would write otherwise throws `NeedsPort`. It runs for each of the ~350,000
 * values of a 10,000-object configuration, so it reads each object's members once, in one loop.
 */
function sortedReplacer(this: unknown, _key: string, value: unknown): unknown {
  if (typeof value !== 'object' || value === null) {
    if (value === EMPTY_OBJECT || value === EMPTY_ARRAY) throw new NeedsPort();
    return value;
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return EMPTY_ARRAY;
    for (let i = 0; i < value.length; i++) if (hasToJson(value[i])) throw new NeedsPort();
    return value;
  }
  const members = value as Record<string, unknown>;
  const keys = Object.keys(members);
  let sorted = true;
  let written = false;
  for (let i = 0; i < keys.length; i++) {
    const name = keys[i];
    // A key starting with U+0000 could be taken for a marker in the text.
    if (name.charCodeAt(0) === 0) throw new NeedsPort();
    if (i > 0 && !(keys[i - 1] < name)) sorted = false;
    const member = members[name];
    if (hasToJson(member)) throw new NeedsPort();
    if (!written && writes(member)) written = true;
  }
  // No member is written: the library writes it as an empty object.
  if (!written) return EMPTY_OBJECT;
  // Already in order: the writer enumerates the object's own keys in this same order.
  if (sorted) return value;
  const order = sortedOrder(keys);
  const copy: Record<string, unknown> = {};
  for (const name of order) copy[name] = members[name];
  if (startsWithDigit(order) && !sameOrder(Object.keys(copy), order)) throw new NeedsPort();
  return copy;
}

/**
 * The sorted order of key lists recently met out of order, by the order they were met in. A configuration's
 * objects come in a few shapes (each construct type's spec, the synthesized spec and its source, a resource's
 * entry): sorting the keys of each of the ~40,000 copies at 10,000 objects again was a quarter of the
 * replacer's time (157 -> 117 ms in a warm micro-benchmark of the bench app's configuration).
 */
const recentOrders: { readonly met: readonly string[]; readonly sorted: readonly string[] }[] = [];
const RECENT_ORDERS = 16;

function sortedOrder(keys: readonly string[]): readonly string[] {
  for (const known of recentOrders) if (sameOrder(known.met, keys)) return known.sorted;
  const sorted = [...keys].sort();
  if (recentOrders.length === RECENT_ORDERS) recentOrders.shift();
  recentOrders.push({ met: keys, sorted });
  return sorted;
}

/**
 * A value that takes the replacer through each of its branches but the port's: an object out of order with an
 * integer-like key, empty and non-empty arrays and objects, strings and other primitives.
 */
const WARM_UP: unknown = { b: { a: {}, '1': [0, 'x', null, true], c: [] }, a: { u: undefined, f: () => 1, d: '\u0000' }, '0': 1 };
let warmedUp = false;

/**
 * Runs the replacer once over `WARM_UP`, before its first real use. V8 optimizes the replacer after a few hundred
 * calls; a call site its optimized code has never seen run (the copy's, when the configuration's first objects
 * are in order) then deoptimizes it, and for a function called from `JSON.stringify` V8 kept the same optimized
 * code and deoptimized again at every such object: ~4,300 deoptimizations at 10,000 objects, and as many
 * recompilations on V8's worker threads. Run once beforehand, every site has its type feedback.
 */
function warmUpReplacer(): void {
  if (warmedUp) return;
  warmedUp = true;
  // V8 records type feedback only once a function has run a few times (`--invocation-count-for-feedback-allocation`,
  // 8 in node 20): the first rounds do not count.
  for (let round = 0; round < WARM_UP_ROUNDS; round++) JSON.stringify(WARM_UP, sortedReplacer);
}

const WARM_UP_ROUNDS = 4;

/**
 * Whether the writers would call a `toJSON` of `value`: the library calls it without the key, the native writer
 * with it, so the result could differ. Checked by the value's parent (the replacer gets what `toJSON` returned).
 */
function hasToJson(value: unknown): boolean {
  return ((typeof value === 'object' && value !== null) || typeof value === 'function') && typeof (value as { toJSON?: unknown }).toJSON === 'function';
}

/** Whether a member with this value is written (the library and the writer leave out the others). */
function writes(value: unknown): boolean {
  return value !== undefined && typeof value !== 'function' && typeof value !== 'symbol';
}

function startsWithDigit(keys: readonly string[]): boolean {
  return keys.some((name) => {
    const unit = name.charCodeAt(0);
    return unit >= 48 && unit <= 57;
  });
}

/** Whether two key lists are the same keys in the same order. */
function sameOrder(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * `text` from `start` to `end` with each marker the writer left (`"\u0000{}"` or `"\u0000[]"`) replaced by the
 * library's empty object or array (the bracket, a new line, the indentation of the marker's line, the closing bracket), in pieces. A
 * marker's text can occur inside a string too (a value holding U+0000 and brackets): there its opening quote is
 * an escaped one (preceded by a backslash) or no quote at all, while a marker written as a value follows `: `
 * or an indentation (a space) or is the whole text.
 */
function splicedEmpties(text: string, start = 0, end = text.length): string[] {
  const pieces: string[] = [];
  let from = start;
  for (let at = text.indexOf(MARKER_TAIL, start); at !== -1 && at < end; at = text.indexOf(MARKER_TAIL, at + 1)) {
    const quote = at - 1;
    if (quote < 0 || text.charCodeAt(quote) !== 0x22 || (quote > 0 && text.charCodeAt(quote - 1) !== 0x20)) continue;
    const open = text[at + 6];
    const close = text[at + 7];
    if (text[quote + MARKER_UNITS - 1] !== '"' || !((open === '{' && close === '}') || (open === '[' && close === ']'))) continue;
    const lineStart = text.lastIndexOf('\n', quote) + 1;
    let indentEnd = lineStart;
    while (text.charCodeAt(indentEnd) === 0x20) indentEnd++;
    pieces.push(text.slice(from, quote), `${open}\n${text.slice(lineStart, indentEnd)}${close}`);
    from = quote + MARKER_UNITS;
  }
  pieces.push(from === 0 && end === text.length ? text : text.slice(from, end));
  return pieces;
}

/** Whether a primitive's prototype has a `toJSON` (the library would call it; the native writer would not). */
function primitivesHaveToJson(): boolean {
  return [String, Number, Boolean, BigInt, Symbol].some((type) => typeof (type.prototype as { toJSON?: unknown }).toJSON === 'function');
}

// ---------------------------------------------------------------------------------------------------------------
// The library's own algorithm (json-stable-stringify 1.3.0, index.js, with `{ space: 2 }`): for what the native
// writer does not write exactly.

const SPACE = '  ';

/** `json-stable-stringify(value, { space: 2 })`, step by step as the library does it. */
export function libraryText(value: unknown): string | undefined {
  const seen: object[] = [];
  const write = (node: unknown, level: number): string | undefined => {
    const indent = `\n${SPACE.repeat(level)}`;
    const withJson = node as { toJSON?: unknown } | null | undefined;
    if (withJson && typeof withJson.toJSON === 'function') node = (withJson as { toJSON: () => unknown }).toJSON();
    if (node === undefined) return undefined;
    if (typeof node !== 'object' || node === null) return JSON.stringify(node);
    if (Array.isArray(node)) {
      const out: string[] = [];
      for (let i = 0; i < node.length; i++) out.push(indent + SPACE + (write(node[i], level + 1) || 'null'));
      return `[${out.join(',')}${indent}]`;
    }
    if (seen.includes(node)) throw new TypeError('Converting circular structure to JSON');
    seen.push(node);
    const out: string[] = [];
    for (const key of Object.keys(node).sort()) {
      const text = write((node as Record<string, unknown>)[key], level + 1);
      if (!text) continue;
      out.push(`${indent}${SPACE}${JSON.stringify(key)}: ${text}`);
    }
    seen.splice(seen.indexOf(node), 1);
    return `{${out.join(',')}${indent}}`;
  };
  return write(value, 0);
}
