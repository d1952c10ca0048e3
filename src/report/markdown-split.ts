/**
 * Splitting a long pull-request comment into parts. GitHub rejects a comment over 65,536 characters, so a
 * large plan is posted as several: each part repeats the status line, cuts fall between sections, and a
 * section too long for one part is cut between its lines, closing and reopening its code fence (the
 * section's tail and head) around the cut.
 */

/** A block of the comment: `head`, then `lines` (where it may be cut), then `tail`, one per line. */
export interface MarkdownSection {
  /** Opening text, e.g. a `<details><summary>` line and an opening code fence. */
  head: string;
  lines: string[];
  /** Closing text, e.g. the closing fence and `</details>`. */
  tail: string;
  /** The head of every piece after the first when the section is cut (defaults to `head`). */
  continuedHead?: string;
  /** A heading that must not end a part on its own: it goes with the section after it. */
  keepWithNext?: boolean;
}

export const SECTION_SEPARATOR = '\n\n';

/** Room kept for `(part i of n)` before the number of parts is known. */
const PART_MARKER_RESERVE = '(part 999999 of 999999)'.length + SECTION_SEPARATOR.length;

/** Less room than this for sections in a part cannot hold a resource's summary line and one attribute. */
const MIN_SECTION_ROOM = 400;

/** A line too long for a part is wrapped across lines of at least this much. */
const MIN_LINE_ROOM = 40;

export function renderSection(section: MarkdownSection): string {
  return joinSectionText(section.head, section.lines, section.tail);
}

/**
 * The comment as one string when it fits in `maxLength`, else as parts of at most `maxLength` characters,
 * each starting with `(part i of n)` and then `header`.
 */
export function splitComment(header: string, sections: MarkdownSection[], maxLength: number): string[] {
  const whole = [header, ...sections.map(renderSection)].join(SECTION_SEPARATOR);
  if (whole.length <= maxLength) return [whole];

  const room = maxLength - PART_MARKER_RESERVE - header.length - SECTION_SEPARATOR.length;
  if (room < MIN_SECTION_ROOM) {
    throw new Error(
      `renderMarkdown: maxLength ${maxLength} is too small to split the comment; each part repeats a ${header.length}-character status line and needs at least ${MIN_SECTION_ROOM} more characters. Use a larger maxLength.`,
    );
  }

  const bodies = packPieces(gluePieces(sections.flatMap((section) => cutSection(section, room)), room), room);
  return bodies.map((body, index) =>
    [`(part ${index + 1} of ${bodies.length})`, header, body].join(SECTION_SEPARATOR),
  );
}

interface Piece {
  text: string;
  keepWithNext: boolean;
}

/** The section whole when it fits in `room`, else cut between lines into pieces that each fit. */
function cutSection(section: MarkdownSection, room: number): Piece[] {
  const keepWithNext = section.keepWithNext === true;
  const whole = renderSection(section);
  if (whole.length <= room) return [{ text: whole, keepWithNext }];

  const continuedHead = section.continuedHead ?? section.head;
  const longestFrame = Math.max(frameLength(section.head, section.tail), frameLength(continuedHead, section.tail));
  if (longestFrame + MIN_LINE_ROOM > room) {
    throw new Error(
      `renderMarkdown: a section's opening and closing text (${longestFrame} characters) leaves no room for its lines in a part of ${room} characters. Use a larger maxLength.`,
    );
  }

  const pieces: Piece[] = [];
  let head = section.head;
  let lines: string[] = [];
  let length = frameLength(head, section.tail);
  const flush = () => {
    pieces.push({ text: joinSectionText(head, lines, section.tail), keepWithNext: false });
    head = continuedHead;
    lines = [];
    length = frameLength(head, section.tail);
  };

  // A line longer than a part can hold is wrapped, never cut: every character of every value is shown.
  const maxLine = room - Math.max(frameLength(section.head, section.tail), frameLength(continuedHead, section.tail)) - 1;
  for (const line of section.lines.flatMap((text) => wrapLine(text, maxLine))) {
    if (lines.length > 0 && length + 1 + line.length > room) flush();
    lines.push(line);
    length += 1 + line.length;
  }
  if (lines.length > 0) flush();
  if (keepWithNext) pieces[pieces.length - 1].keepWithNext = true;
  return pieces;
}

/** Joins each keep-with-next piece (a heading) to the piece after it, when both fit in one part. */
function gluePieces(pieces: Piece[], room: number): Piece[] {
  const glued: Piece[] = [];
  for (const piece of pieces) {
    const previous = glued[glued.length - 1];
    const combined = previous ? previous.text + SECTION_SEPARATOR + piece.text : '';
    if (previous?.keepWithNext && combined.length <= room) {
      glued[glued.length - 1] = { text: combined, keepWithNext: piece.keepWithNext };
    } else {
      glued.push({ ...piece });
    }
  }
  return glued;
}

/** Fills parts in order, starting a new part when the next piece would not fit. */
function packPieces(pieces: Piece[], room: number): string[] {
  const bodies: string[] = [];
  let current = '';
  for (const piece of pieces) {
    if (current === '') {
      current = piece.text;
    } else if (current.length + SECTION_SEPARATOR.length + piece.text.length <= room) {
      current += SECTION_SEPARATOR + piece.text;
    } else {
      bodies.push(current);
      current = piece.text;
    }
  }
  if (current !== '') bodies.push(current);
  return bodies;
}

function joinSectionText(head: string, lines: readonly string[], tail: string): string {
  return [head, ...lines, tail].filter((part) => part !== '').join('\n');
}

function frameLength(head: string, tail: string): number {
  return joinSectionText(head, [], tail).length;
}

/** `text` in pieces of at most `width` characters, never splitting a surrogate pair. */
function wrapLine(text: string, width: number): string[] {
  if (text.length <= width) return [text];
  const pieces: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + width);
    const code = text.charCodeAt(end - 1);
    if (end < text.length && code >= 0xd800 && code <= 0xdbff) end -= 1;
    pieces.push(text.slice(start, end));
    start = end;
  }
  return pieces;
}
