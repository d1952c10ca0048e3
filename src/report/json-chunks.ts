/**
 * `JSON.stringify(value, null, 2)` handed out in pieces of about `CHUNK_CHARS` characters, for a report too large
 * to hold as one text: the JSON plan of 10,000 objects is 9 MB, which as one string is built, flattened by the
 * first pass over it and encoded into a 9 MB buffer, each in fresh memory (about 0.1 s of CPU on the bench
 * machine, after the last answer). In pieces, every piece is small and its memory is reused.
 *
 * The text is the same, byte for byte: the first levels of objects and arrays are written here, each value below
 * them by `JSON.stringify` itself, wrapped in as many arrays as it is deep so that its lines come indented as they
 * would inside the whole (`[[value]]` puts the value's own lines at four spaces), and those wrappers cut off again.
 */

/** How large a piece grows before it is handed out (under V8's 128 KB limit of an object in its regular heap). */
const CHUNK_CHARS = 60_000;

/** Objects and arrays at depth 0 and 1 are opened here; deeper values are stringified whole. */
const OPENED_DEPTH = 2;

const INDENT = '  ';

/** Calls `write` with consecutive pieces whose concatenation is `JSON.stringify(value, null, 2)` (a JSON value). */
export function writeJsonInChunks(value: unknown, write: (chunk: string) => void): void {
  let pending: string[] = [];
  let size = 0;
  const add = (text: string): void => {
    pending.push(text);
    size += text.length;
    if (size >= CHUNK_CHARS) {
      write(pending.join(''));
      pending = [];
      size = 0;
    }
  };
  addValue(value, 0, add);
  if (pending.length > 0) write(pending.join(''));
}

function addValue(value: unknown, depth: number, add: (text: string) => void): void {
  if (depth >= OPENED_DEPTH || !isOpenable(value)) {
    add(stringifiedAt(value, depth));
    return;
  }
  const inner = INDENT.repeat(depth + 1);
  const close = `\n${INDENT.repeat(depth)}`;
  if (Array.isArray(value)) {
    if (value.length === 0) {
      add('[]');
      return;
    }
    add('[');
    // Every index, as JSON.stringify writes them (a hole too); what has no JSON form is null inside an array.
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      add(`${index === 0 ? '' : ','}\n${inner}`);
      addValue(hasJsonForm(item) ? item : null, depth + 1, add);
    }
    add(`${close}]`);
    return;
  }
  const keys = Object.keys(value).filter((key) => hasJsonForm(value[key]));
  if (keys.length === 0) {
    add('{}');
    return;
  }
  add('{');
  keys.forEach((key, index) => {
    add(`${index === 0 ? '' : ','}\n${inner}${JSON.stringify(key)}: `);
    addValue(value[key], depth + 1, add);
  });
  add(`${close}}`);
}

/**
 * A plain array or object whose JSON text this module writes itself: one with a `toJSON` (a Date) is left to
 * JSON.stringify, as are boxed primitives and anything else it treats in its own way.
 */
function isOpenable(value: unknown): value is Record<string, unknown> | unknown[] {
  if (typeof value !== 'object' || value === null || typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
  if (Array.isArray(value)) return true;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

/** Whether JSON.stringify writes the value of an object's key (it leaves out undefined, functions and symbols). */
function hasJsonForm(value: unknown): boolean {
  return value !== undefined && typeof value !== 'function' && typeof value !== 'symbol';
}

/** `JSON.stringify(value, null, 2)` as it reads at `depth` inside the whole: its later lines indented to that depth. */
function stringifiedAt(value: unknown, depth: number): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  let wrapped: unknown = value;
  for (let level = 0; level < depth; level++) wrapped = [wrapped];
  const text = JSON.stringify(wrapped, null, 2);
  // Each wrapper adds `[\n` and its indent before the value, `\n` and its indent and `]` after it.
  let prefix = 0;
  let suffix = 0;
  for (let level = 0; level < depth; level++) {
    prefix += 2 + INDENT.length * (level + 1);
    suffix += 2 + INDENT.length * level;
  }
  return text.slice(prefix, text.length - suffix);
}
