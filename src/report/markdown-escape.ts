/**
 * Escaping for GitHub-flavoured markdown. Addresses, types, values, waiver reasons, policy messages and server
 * errors come from user code, pull requests and the service, and a comment shows them to reviewers: each is
 * rendered inert. It stays on one line, so that it cannot leave its element (a blank line ends a `<summary>`
 * block, and what follows is markdown: a heading, an image); a `|` does not break a table row, a `<` opens no
 * HTML tag, a `[` no link or image, a backtick does not close a code span or fence early; and what GitHub turns
 * into links in text, mentions (`@user`), references (`#123`) and bare URLs (`https://...`, `www.`), is broken by
 * a word joiner (U+2060, invisible) so that it reads the same and links nowhere. Control characters are shown as
 * escapes (`\u001b`), as on a terminal.
 */
import { visibleControls } from '../visible-controls';

/** Text inside HTML (the `<summary>` of a `<details>` block, which markdown does not process), on one line. */
export function escapeHtml(text: string): string {
  return unlinked(oneLine(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;'));
}

/**
 * Plain text in a paragraph, list item or table cell, on one line: a `#` or a list marker that starts it (a
 * warning, a server's message) opens no heading or list either.
 */
export function escapeInline(text: string): string {
  return escapeHtml(text).replace(/[\\`*_[\]|~#]/g, '\\$&').replace(/^(\s*)([-+]|\d+[.)])(?=\s|$)/, (_all, space: string, marker: string) => `${space}${marker.replace(/[-+.)]/, '\\$&')}`);
}

/**
 * A code span that shows `text` literally: delimited by one more backtick than the longest run inside, padded
 * with a space when the text starts or ends with a backtick or a space (CommonMark strips one on each side).
 * GitHub links nothing inside code.
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

/**
 * What GitHub would link in text, broken by a word joiner: `@` before a name (a mention, an e-mail address), `#`
 * before a number (an issue), the `//` of a URL scheme and the `.` after `www` (bare URLs).
 */
function unlinked(text: string): string {
  return text
    .replace(/@(?=[\p{L}\p{N}_-])/gu, '@\u2060')
    .replace(/#(?=\p{N})/gu, '#\u2060')
    .replace(/:(?=\/\/)/g, ':\u2060')
    .replace(/\b(www)\./gi, '$1\u2060.');
}

/** `text` on one line (each line break a space: CR, LF, CRLF, U+2028, U+2029), its control characters visible. */
function oneLine(text: string): string {
  return visibleControls(text.replace(/\r\n|[\r\n\u2028\u2029]/g, ' '));
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
