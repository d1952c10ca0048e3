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
import { forEachUtf8Slice } from '../utf8-slices';
import { consumeStableJson } from './stable-json-text';

type ToTerraform = (this: unknown) => Record<string, unknown>;

/**
 * Runs `synthesize` (the framework's synthesis of `stack`) with the stack's `toTerraform()` returning an empty
 * configuration to it, after building the real one (what the stack's hooks receive).
 */
export function synthesizeWithEmptyConfiguration(stack: IConstruct, synthesize: () => void): void {
  writingOwnFile.add(stack);
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
    writingOwnFile.delete(stack);
    if (own) Object.defineProperty(stack, 'toTerraform', own);
    else delete (stack as unknown as { toTerraform?: ToTerraform }).toTerraform;
  }
}

/** The stacks whose synthesis is running inside `synthesizeWithEmptyConfiguration`. */
const writingOwnFile = new WeakSet<IConstruct>();

/**
 * Whether the synthesis of `stack` now running writes its file with `writeStackFile` (cdktf's own synthesizer):
 * then the configuration its `toTerraform()` builds is read by secretform only (the file's writer sorts every
 * object's keys, and the digest record), never by the framework's writer or the app.
 */
export function writesOwnFile(stack: IConstruct): boolean {
  return writingOwnFile.has(stack);
}

/**
 * Writes `configuration` to `file` as the framework's synthesizer would have, a piece at a time as the text is
 * made (no text of the whole file is kept). A configuration it could not have written either (a cycle) throws
 * its error, and the empty file the synthesizer wrote is removed, as if the framework had failed before writing.
 */
export function writeStackFile(file: string, configuration: Record<string, unknown>): void {
  const fd = fs.openSync(file, 'w');
  try {
    consumeStableJson(configuration, (pieces) => {
      // From the start: a second call (the port's text) replaces what the first wrote.
      fs.ftruncateSync(fd, 0);
      writeUtf8(fd, pieces);
    });
  } catch (error) {
    fs.closeSync(fd);
    fs.rmSync(file, { force: true });
    throw error;
  }
  fs.closeSync(fd);
}

/** Writes the UTF-8 bytes of `pieces` to `fd` from its start, a reused slice at a time (utf8-slices.ts). */
function writeUtf8(fd: number, pieces: Iterable<string>): void {
  let position = 0;
  forEachUtf8Slice(pieces, (bytes) => {
    for (let at = 0; at < bytes.length;) {
      const written = fs.writeSync(fd, bytes, at, bytes.length - at, position);
      at += written;
      position += written;
    }
  });
}
