/**
 * The text report's own sentences (its legend, its notes' introductions), wrapped at the width of a terminal as
 * terraform wraps its own: a sentence longer than 80 columns is cut between words, so that it does not wrap
 * mid-word on an 80-column terminal or in a CI log viewer. Resource lines (addresses, values) are never wrapped:
 * they are copied and searched as they are.
 */

/** The width the text report's sentences fit in. */
export const PROSE_WIDTH = 80;

/** `text` as lines of at most `width` columns, cut at spaces; a word longer than the width stays whole. */
export function wrapProse(text: string, width = PROSE_WIDTH): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  lines.push(line);
  return lines;
}
