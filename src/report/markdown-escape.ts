/**
 * Escaping for GitHub-flavoured markdown. Addresses, types and values come from user code and the service, so
 * a `|` must not break a table row, a `<` must not open an HTML tag, and a backtick must not close a code span
 * or fence early.
 */

/** Text inside HTML (the `<summary>` of a `<details>` block, which markdown does not process). */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Plain text in a paragraph, list item or table cell, on one line. */
export function escapeInline(text: string): string {
  return escapeHtml(oneLine(text)).replace(/[\\`*_[\]|~]/g, '\\$&');
}

/**
 * A code span that shows `text` literally: delimited by one more backtick than the longest run inside, padded
 * with a space when the text starts or ends with a backtick or a space (CommonMark strips one on each side).
 */
export function inlineCode(text: string): string {
  const content = oneLine(text);
  const delimiter = '`'.repeat(longestRun(content, '`') + 1);
  const padding = /^[` ]|[` ]$/.test(content) ? ' ' : '';
  return `${delimiter}${padding}${content}${padding}${delimiter}`;
}

/** A code span inside a table cell, where GFM splits cells at every unescaped `|`, code spans included. */
export function tableCode(text: string): string {
  return inlineCode(text).replace(/\|/g, '\\|');
}

/** A fence longer than any backtick run in the block, so that no content line can close it. */
export function codeFence(lines: readonly string[]): string {
  const longest = lines.reduce((max, line) => Math.max(max, longestRun(line, '`')), 0);
  return '`'.repeat(Math.max(3, longest + 1));
}

function oneLine(text: string): string {
  return text.replace(/\r?\n|\r/g, ' ');
}

function longestRun(text: string, char: string): number {
  let longest = 0;
  let current = 0;
  for (const c of text) {
    current = c === char ? current + 1 : 0;
    longest = Math.max(longest, current);
  }
  return longest;
}
