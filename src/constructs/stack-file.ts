/**
 * Each stack's `cdk.tf.json`, written by secretform in place of cdktf's synthesizer, with the same bytes.
 *
 * cdktf's synthesizer writes the configuration its stack's `toTerraform()` built with `json-stable-stringify`,
 * a JavaScript writer that at 10,000 objects (a 15 MB file) takes ~0.4 s of the synth and makes much of its
 * garbage; stable-json-text.ts makes the same bytes with node's native writer in about half the time (issue 35).
 * The synthesizer is left to do everything else it does (aspects, validation, annotations, the manifest): during
 * its call the stack's `toTerraform()` still builds the configuration (secretform's hooks see it, as before) but
 * hands the synthesizer an empty one, which it writes as `{\n}`; the real file is written right after.
 * Only for cdktf's own synthesizer writing JSON with `json-stable-stringify` 1.x (cdktf-adapter.ts); any other
 * writes its file itself as before.
 */
import * as fs from 'node:fs';
import type { IConstruct } from 'constructs';
import { stableJsonPieces } from './stable-json-text';

type ToTerraform = (this: unknown) => Record<string, unknown>;

/**
 * Runs `synthesize` (the framework's synthesis of `stack`) with the stack's `toTerraform()` returning an empty
 * configuration to it, after building the real one (what the stack's hooks receive).
 */
export function synthesizeWithEmptyConfiguration(stack: IConstruct, synthesize: () => void): void {
  const own = Object.getOwnPropertyDescriptor(stack, 'toTerraform');
  const build = (stack as unknown as { toTerraform: ToTerraform }).toTerraform;
  Object.defineProperty(stack, 'toTerraform', {
    configurable: true,
    writable: true,
    value: function toTerraform(this: unknown): Record<string, unknown> {
      build.call(this);
      return {};
    },
  });
  try {
    synthesize();
  } finally {
    if (own) Object.defineProperty(stack, 'toTerraform', own);
    else delete (stack as unknown as { toTerraform?: ToTerraform }).toTerraform;
  }
}

/**
 * Writes `configuration` to `file` as the framework's synthesizer would have. A configuration it could not have
 * written either (a cycle) throws its error, and the empty file the synthesizer wrote is removed, as if the
 * framework had failed before writing.
 */
export function writeStackFile(file: string, configuration: Record<string, unknown>): void {
  let pieces: readonly string[] | undefined;
  try {
    pieces = stableJsonPieces(configuration);
  } catch (error) {
    fs.rmSync(file, { force: true });
    throw error;
  }
  // An object always has a text; `undefined` is only for values a configuration never is.
  if (pieces === undefined) return;
  const fd = fs.openSync(file, 'w');
  try {
    writeUtf8(fd, pieces);
  } finally {
    fs.closeSync(fd);
  }
}

/** Size of the buffer the text is encoded into, a part at a time: reused for every stack. */
const CHUNK_BYTES = 1 << 20;
let chunk: Buffer | undefined;

/**
 * Writes the UTF-8 bytes of `pieces` to `fd` through one reused buffer: not one fresh buffer as large as the
 * text (15 MB at 10,000 objects), whose every page is faulted in on its first write (~70 ms here).
 */
function writeUtf8(fd: number, pieces: readonly string[]): void {
  chunk ??= Buffer.allocUnsafe(CHUNK_BYTES);
  let used = 0;
  const flush = () => {
    for (let at = 0; at < used;) at += fs.writeSync(fd, chunk!, at, used - at);
    used = 0;
  };
  for (const piece of pieces) {
    for (let at = 0; at < piece.length;) {
      // A UTF-16 unit takes at most 3 bytes in UTF-8; a slice never ends between the two of a surrogate pair
      // (each half alone would be encoded as U+FFFD).
      let end = Math.min(piece.length, at + Math.floor((CHUNK_BYTES - used) / 3));
      const last = piece.charCodeAt(end - 1);
      if (end < piece.length && last >= 0xd800 && last <= 0xdbff) end--;
      if (end - at < 2 && end < piece.length) {
        flush();
        continue;
      }
      used += chunk.write(at === 0 && end === piece.length ? piece : piece.slice(at, end), used, 'utf8');
      at = end;
    }
  }
  flush();
}
