/**
 * The one place every write of the CLI to stdout and stderr goes through: commander's usage errors, the commands'
 * reports, progress and errors, and any direct `process.stdout.write`. Text written there shows its control
 * characters as escapes (src/visible-controls.ts), so that no name, value or server answer can drive the terminal.
 *
 * The only control sequences that get through are the CLI's own: on stdout with colour on (report/color.ts), the
 * few colour codes the text report uses (its renderer makes the names it embeds visible first, so none of those
 * comes from input); on stderr, the live progress line's "erase line", written through `writeTerminalControl`.
 * The CLI writes text only (synth passes the app's output on decoded): a Buffer, which could end inside a
 * character, is passed as is.
 */
import { shouldUseColor } from '../../report/color';
import { visibleControls } from '../../visible-controls';
import type { OutputStream } from './io';

/** Control sequences the CLI itself writes. */
export type TerminalControl = '\r\x1b[2K';

// The colour codes of the text report (picocolors' bold, dim, red, green, yellow and their resets).
// eslint-disable-next-line no-control-regex
const COLOURED = /\x1b\[(?:1|2|22|31|32|33|39)m|[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

type Write = (chunk: string) => boolean;
const rawWrites = new WeakMap<object, Write>();

/** Text as the terminal gets it: control characters visible, the CLI's colour codes kept when `colours` is set. */
export function terminalText(text: string, colours: boolean): string {
  if (!colours) return visibleControls(text);
  return text.replace(COLOURED, (match) => (match.length > 1 ? match : visibleControls(match)));
}

/** Makes every later string write of this process to stdout and stderr go through `terminalText` (once). */
export function guardTerminalOutput(env: NodeJS.ProcessEnv): void {
  for (const stream of [process.stdout, process.stderr]) {
    if (rawWrites.has(stream)) continue;
    const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
    const colours = stream === process.stdout && shouldUseColor(stream, env);
    rawWrites.set(stream, (chunk) => write(chunk));
    stream.write = ((chunk: unknown, ...rest: unknown[]) => write(typeof chunk === 'string' ? terminalText(chunk, colours) : chunk, ...rest));
  }
}

/** Writes one of the CLI's own control sequences to `stream` as it is (a stream the guard does not know: as given). */
export function writeTerminalControl(stream: OutputStream, control: TerminalControl): void {
  const raw = rawWrites.get(stream);
  if (raw) raw(control);
  else stream.write(control);
}
