/**
 * One line redrawn in place at the bottom of a terminal (`\r` and "erase line"), for progress between results.
 * Lines that must stay (results) are written through `print`, which erases the live line first and redraws it
 * after, so the screen never shows a half-overwritten line. Used only on a terminal: in a CI log or a pipe every
 * redraw would be a line of noise.
 */
import type { OutputStream } from './io';
import { writeTerminalControl, type TerminalControl } from './terminal-output';

export const ERASE_LINE: TerminalControl = '\r\x1b[2K';

export interface LiveLine {
  /** Shows `text` in place of the current live line. */
  draw(text: string): void;
  /** Erases the live line, if shown. */
  clear(): void;
  /** Writes a lasting line to `target`, keeping the live line below it (as `redraw`, when given: it is fresher). */
  print(target: OutputStream, line: string, redraw?: string): void;
}

export function createLiveLine(terminal: OutputStream): LiveLine {
  let shown: string | undefined;
  const clear = () => {
    if (shown === undefined) return;
    writeTerminalControl(terminal, ERASE_LINE);
    shown = undefined;
  };
  return {
    draw(text) {
      // The erase is the CLI's own control sequence; the text, names included, is shown as text.
      writeTerminalControl(terminal, ERASE_LINE);
      terminal.write(text);
      shown = text;
    },
    clear,
    print(target, line, redraw) {
      const again = shown === undefined ? undefined : (redraw ?? shown);
      clear();
      target.write(`${line}\n`);
      if (again !== undefined) this.draw(again);
    },
  };
}
