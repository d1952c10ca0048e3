/**
 * Control characters made visible. A name, a value or a server's answer printed raw can drive the terminal that
 * shows it: ESC and CSI sequences move the cursor, erase lines and recolour text (a report whose last line reads
 * "No changes."), OSC sequences set the title, the clipboard or a hyperlink. Every C0 character but newline and
 * tab, DEL and every C1 character is shown as a JavaScript escape instead (`\u001b`): the text stays readable
 * and says what it held, and nothing in it acts on the terminal.
 */

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
// eslint-disable-next-line no-control-regex
const ANY_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/** `text` with every control character but newline and tab written as its `\uXXXX` escape. */
export function visibleControls(text: string): string {
  return ANY_CONTROL.test(text) ? text.replace(CONTROL, escapeOf) : text;
}

/** Whether `text` holds a control character other than newline and tab. */
export function hasControls(text: string): boolean {
  return ANY_CONTROL.test(text);
}

/**
 * A copy of `value` (plain objects and arrays, keys included) with every string made visible, for a renderer that
 * adds control sequences of its own (colours) to what it embeds; other values are kept as they are.
 */
export function withVisibleControls<T>(value: T): T {
  if (typeof value === 'string') return visibleControls(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => withVisibleControls(item)) as T;
  if (typeof value !== 'object' || value === null) return value;
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    Object.defineProperty(copy, visibleControls(key), { value: withVisibleControls(item), enumerable: true, writable: true, configurable: true });
  }
  return copy as T;
}

function escapeOf(character: string): string {
  return `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
}
