/**
 * A JSON text made and handed out a piece at a time: exactly `JSON.stringify(value, null, 2)`, where the long
 * lists of the value (`JsonList`: items and how each becomes JSON) are turned into JSON a few items at a time.
 *
 * Why: the JSON report of 10,000 objects is ~9 MB of text. Made in one go (the report's objects, then one
 * JSON.stringify, then the slices written), nothing reaches stdout until all of it is made, and then the process
 * waits while its reader takes the text 64 KB at a time. Made in pieces, each piece can be written while the next
 * is made, so the reader reads while the text is being made (cli/run/pieces-write.ts). The pieces' bytes are the
 * whole text's: each piece is JSON.stringify's own text of a few items, cut out of the same nesting as in the
 * whole (a unit test compares them with JSON.stringify over generated values).
 *
 * What the value may hold: JSON data (plain objects, arrays, strings, numbers, booleans, null; keys whose value
 * is undefined are left out, as JSON.stringify does) and `JsonList`s. Only the structure that holds a list is
 * walked here; everything else is written by JSON.stringify itself.
 */

/** A list of `items` that JSON shows as the array of `toJson(item)`, made when it is written. */
export class JsonList<T> {
  constructor(
    readonly items: readonly T[],
    readonly toJson: (item: T) => unknown,
  ) {}
}

/**
 * `value` with every `JsonList` made into its array: the object `JSON.stringify` would be given (the structure
 * around the lists is copied, what the lists make is not).
 */
export function materialized(value: unknown): unknown {
  if (value instanceof JsonList) return value.items.map((item) => value.toJson(item));
  if (!holdsList(value)) return value;
  if (Array.isArray(value)) return value.map(materialized);
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value as object)) copy[key] = materialized((value as Record<string, unknown>)[key]);
  return copy;
}

/** How many items of a list one piece holds (~900 bytes each in a plan's JSON: pieces of ~15 KB). */
export const ITEMS_PER_PIECE = 16;

/** The pieces of `JSON.stringify(materialized(value), null, 2)`, in order; joined, they are that text exactly. */
export function* jsonPieces(value: unknown, itemsPerPiece = ITEMS_PER_PIECE): Generator<string, void, undefined> {
  yield* piecesAt(value, 0, itemsPerPiece);
}

function* piecesAt(value: unknown, depth: number, itemsPerPiece: number): Generator<string, void, undefined> {
  if (value instanceof JsonList) {
    yield* listPieces(value, depth, itemsPerPiece);
    return;
  }
  if (!holdsList(value)) {
    yield itemText(value, depth);
    return;
  }
  // A structure with a list somewhere inside: written here, around what JSON.stringify writes of its parts.
  const inner = indent(depth + 1);
  if (Array.isArray(value)) {
    yield '[\n';
    for (let i = 0; i < value.length; i++) {
      yield `${i > 0 ? ',\n' : ''}${inner}`;
      yield* piecesAt(value[i], depth + 1, itemsPerPiece);
    }
    yield `\n${indent(depth)}]`;
    return;
  }
  const object = value as Record<string, unknown>;
  yield '{\n';
  let first = true;
  for (const key of Object.keys(object)) {
    const member = object[key];
    if (member instanceof JsonList || holdsList(member)) {
      yield `${first ? '' : ',\n'}${inner}${JSON.stringify(key)}: `;
      yield* piecesAt(member, depth + 1, itemsPerPiece);
      first = false;
      continue;
    }
    const text = memberText(key, member, depth);
    if (text === undefined) continue;
    yield `${first ? '' : ',\n'}${text}`;
    first = false;
  }
  // Not empty: a structure that holds a list has at least that member.
  yield `\n${indent(depth)}}`;
}

/** A list at `depth`: `[]`, or its items `itemsPerPiece` at a time, each group one piece. */
function* listPieces<T>(list: JsonList<T>, depth: number, itemsPerPiece: number): Generator<string, void, undefined> {
  const { items } = list;
  if (items.length === 0) {
    yield '[]';
    return;
  }
  yield '[\n';
  for (let start = 0; start < items.length; start += itemsPerPiece) {
    const group = items.slice(start, start + itemsPerPiece).map((item) => list.toJson(item));
    yield `${start > 0 ? ',\n' : ''}${itemsText(group, depth + 1)}`;
  }
  yield `\n${indent(depth)}]`;
}

/**
 * The lines of `items` as array items at `depth` (each line indented as there), joined by `,\n`: JSON.stringify's
 * own text of the items inside as many arrays as they are deep, without the arrays' brackets. Depth d's
 * brackets take d * (d + 1) characters on each side ("[\n", "  [\n", ...).
 */
function itemsText(items: unknown[], depth: number): string {
  let wrapped: unknown = items;
  for (let level = 1; level < depth; level++) wrapped = [wrapped];
  const text = JSON.stringify(wrapped, null, 2);
  const brackets = depth * (depth + 1);
  return text.slice(brackets, text.length - brackets);
}

/** One value as an array item at `depth` ("null" for what JSON leaves out of an object), its later lines indented. */
function itemText(value: unknown, depth: number): string {
  if (depth === 0) {
    const whole = JSON.stringify(value, null, 2) as string | undefined;
    if (whole === undefined) throw new TypeError('jsonPieces: the value has no JSON text');
    return whole;
  }
  const text = JSON.stringify([value], null, 2);
  // "[\n  " + the item (written at depth 1) + "\n]": its later lines moved from depth 1 to `depth`.
  return reindented(text.slice(4, -2), depth - 1);
}

/** `"key": value` as a member of an object at `depth`, indented; undefined when JSON leaves the member out. */
function memberText(key: string, value: unknown, depth: number): string | undefined {
  const text = JSON.stringify({ [key]: value }, null, 2);
  if (text === '{}') return undefined;
  // "{\n" + '  "key": value' + "\n}": the member's lines as in an object at depth 0, moved to `depth`.
  return indent(depth) + reindented(text.slice(2, -2), depth);
}

/** `text` with `indent(levels)` added after each newline. */
function reindented(text: string, levels: number): string {
  return levels === 0 ? text : text.replaceAll('\n', `\n${indent(levels)}`);
}

function indent(depth: number): string {
  return '  '.repeat(depth);
}

/** Whether `value` is a plain array or object with a `JsonList` somewhere inside (only those are walked). */
function holdsList(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (value instanceof JsonList) return true;
  if (Array.isArray(value)) return value.some(holdsList);
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return false;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
  return Object.values(value).some(holdsList);
}
