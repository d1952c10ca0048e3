/**
 * A stack's ServiceConnection as its synth output holds it, read without reading the stack's resources: what the
 * CLI checks for every stack of a run before the first request anywhere (a connection whose token variable is
 * unset fails the whole run before it starts). Loading and checking each stack's whole desired state for that
 * took most of a fleet plan's start-up (8 stacks x 250: 0.9 s of a 7.9 s profile, every stack before any
 * request); each stack's run now loads its own when it starts, while the stacks before it are already reading.
 *
 * cdktf writes a stack's `"//"` object (where the connection is) as the file's first member: its text is cut
 * out by scanning the bytes (JSON's structure is ASCII, and no byte of a multi-byte UTF-8 character is a quote or
 * a backslash) and only it is parsed. Any other layout is parsed whole. The run itself takes the connection from
 * its full load and checks it again before its first request, so this early check never decides what is used.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readSynthesizedConnection, type SynthesizedConnection } from '../../synthesized-spec';

/** The connection of `stack` in the synth output `outdir` (undefined: none); throws naming the file when unreadable. */
export function readConnectionOfOutput(outdir: string, stack: string): SynthesizedConnection | undefined {
  const file = path.join(outdir, 'stacks', stack, 'cdk.tf.json');
  const bytes = fs.readFileSync(file);
  const comment = firstMemberValue(bytes, '//');
  let config: unknown;
  try {
    config = (comment !== undefined && parsedOrUndefined(comment)) || JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw new Error(`${file}: ${(error as Error).message}`, { cause: error });
  }
  return readSynthesizedConnection(config, file);
}

/** `{"//": value}`, or undefined when the text cut out is not JSON after all (the whole text then says why). */
function parsedOrUndefined(comment: string): { '//': unknown } | undefined {
  try {
    return { '//': JSON.parse(comment) as unknown };
  } catch {
    return undefined;
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The JSON text of the value of the object's first member when that member is `name`, else undefined (the
 * caller then parses the whole text, which also reports a malformed one).
 */
export function firstMemberValue(bytes: Buffer, name: string): string | undefined {
  let at = skipSpace(bytes, 0);
  if (bytes[at] !== 0x7b /* { */) return undefined;
  at = skipSpace(bytes, at + 1);
  const key = JSON.stringify(name);
  if (bytes.toString('utf8', at, at + Buffer.byteLength(key)) !== key) return undefined;
  at = skipSpace(bytes, at + Buffer.byteLength(key));
  if (bytes[at] !== 0x3a /* : */) return undefined;
  const start = skipSpace(bytes, at + 1);
  const end = valueEnd(bytes, start);
  if (end === undefined) return undefined;
  // What follows must be the next member or the object's end, as in any well-formed text.
  const after = bytes[skipSpace(bytes, end)];
  return after === 0x2c /* , */ || after === 0x7d /* } */ ? bytes.toString('utf8', start, end) : undefined;
}

/** Where the JSON value starting at `start` ends (an object, array or string; anything else: undefined). */
function valueEnd(bytes: Buffer, start: number): number | undefined {
  const open = bytes[start];
  if (open === QUOTE) return stringEnd(bytes, start);
  if (open !== 0x7b && open !== 0x5b) return undefined;
  let depth = 0;
  for (let at = start; at < bytes.length; at++) {
    const byte = bytes[at];
    if (byte === QUOTE) {
      const end = stringEnd(bytes, at);
      if (end === undefined) return undefined;
      at = end - 1;
    } else if (byte === 0x7b || byte === 0x5b) depth++;
    else if (byte === 0x7d || byte === 0x5d) {
      depth--;
      if (depth === 0) return at + 1;
    }
  }
  return undefined;
}

/** Just past the closing quote of the string starting at `start`. */
function stringEnd(bytes: Buffer, start: number): number | undefined {
  for (let at = start + 1; at < bytes.length; at++) {
    const byte = bytes[at];
    if (byte === BACKSLASH) at++;
    else if (byte === QUOTE) return at + 1;
  }
  return undefined;
}

function skipSpace(bytes: Buffer, from: number): number {
  let at = from;
  while (bytes[at] === 0x20 || bytes[at] === 0x0a || bytes[at] === 0x0d || bytes[at] === 0x09) at++;
  return at;
}
