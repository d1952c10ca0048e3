/**
 * The specs record: `secretform-specs.json`, written at synth beside a stack's `cdk.tf.json` (with the digest
 * record, desired-digest-record.ts), holding the stack's secretform objects alone (each resource's
 * `"//".secretform`, and the connection's) with the identity of the file they were written to. A plan loads the
 * desired state from it when the file has not been written since (stack-file-identity.ts), instead of reading,
 * decoding and parsing the whole file: at 10,000 objects `cdk.tf.json` is 15.6 MB, of which cdktf's own parts
 * (metadata, `input`, `depends_on`, overrides) are most, and its parse tree and fresh memory were the largest part
 * of a plan's start after node's own (docs/performance.md, "Session 17").
 *
 * The objects are the file's, in the file's order and with its keys' order: the record is written only when
 * secretform's own writer wrote the file (stack-file.ts: keys sorted at every level, as json-stable-stringify
 * sorts them), and its text sorts keys the same way, so JSON.parse of either gives equal values (a unit test
 * compares the desired state loaded both ways). Anything else (no record, another version's, a file written or
 * touched since, a value that is not plain JSON, a record that does not load) and the file is read in full, as
 * before: a record never changes what a plan sees. No secret value is in it: specs hold secret references only.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { utf8Text } from '../../utf8-text';
import { parseIdentity, unwrittenSince, type FileIdentity } from './stack-file-identity';

/** The record's file name, in the stack's directory of the synth output (terraform reads `*.tf.json` only). */
export const SPECS_RECORD_FILE = 'secretform-specs.json';

const RECORD_VERSION = 1;

/** What a plan takes from a record whose file is unchanged: the objects as the file holds them, not yet checked. */
export interface RecordedSpecs {
  /** Each resource's `"//".secretform` object, in the file's order. */
  readonly specs: readonly unknown[];
  /** The configuration's `"//".secretform.connection`, when it has one. */
  readonly connection?: unknown;
}

/** A value that is not plain JSON data: no record is written for such a configuration. */
class NotPlainJson extends Error {}

/**
 * Writes the record of `configuration` (the object secretform's writer wrote to the stack file, whose identity
 * was then `written`); removes any earlier one when the configuration holds a value that is not plain JSON.
 */
export function writeSpecsRecord(stackDir: string, configuration: unknown, written: FileIdentity): void {
  let text: string;
  try {
    const comment = isObject(configuration) ? configuration['//'] : undefined;
    const connection = isObject(comment) && isObject(comment.secretform) ? comment.secretform.connection : undefined;
    text = sortedJson({ ...(connection !== undefined ? { connection } : {}), specs: specObjectsInFileOrder(configuration) });
  } catch (error) {
    if (!(error instanceof NotPlainJson)) throw error;
    removeSpecsRecord(stackDir);
    return;
  }
  // The version and the file's identity on a line of their own, first: a reader of a record whose file was
  // written since (or copied: a synth output restored from a CI cache) stops after reading that line.
  fs.writeFileSync(path.join(stackDir, SPECS_RECORD_FILE), `${JSON.stringify({ version: RECORD_VERSION, file: written })}\n${text}\n`);
}

export function removeSpecsRecord(stackDir: string): void {
  fs.rmSync(path.join(stackDir, SPECS_RECORD_FILE), { force: true });
}

/** Bytes read first: the record's first line (its version and the file's identity) is well within them. */
const HEADER_BYTES = 512;

/** The record beside `stackFile` when it is one this version writes and the file has not been written since it. */
export function readRecordedSpecs(stackFile: string): RecordedSpecs | undefined {
  const recordFile = path.join(path.dirname(stackFile), SPECS_RECORD_FILE);
  try {
    if (!describesFile(firstLine(recordFile), stackFile)) return undefined;
    const text = utf8Text(fs.readFileSync(recordFile));
    const value = JSON.parse(text.slice(text.indexOf('\n') + 1)) as unknown;
    if (!isObject(value) || !Array.isArray(value.specs)) return undefined;
    return { specs: value.specs, ...(value.connection !== undefined ? { connection: value.connection } : {}) };
  } catch {
    return undefined;
  }
}

/** The record's first line, read alone (undefined when it is not within HEADER_BYTES). */
function firstLine(recordFile: string): string | undefined {
  const header = Buffer.alloc(HEADER_BYTES);
  const fd = fs.openSync(recordFile, 'r');
  try {
    const read = fs.readSync(fd, header, 0, HEADER_BYTES, 0);
    const end = header.subarray(0, read).indexOf(10);
    return end === -1 ? undefined : header.toString('utf8', 0, end);
  } finally {
    fs.closeSync(fd);
  }
}

/** Whether a record's first line is this version's and names the identity `stackFile` still has. */
function describesFile(line: string | undefined, stackFile: string): boolean {
  if (line === undefined) return false;
  const header = JSON.parse(line) as unknown;
  if (!isObject(header) || header.version !== RECORD_VERSION) return false;
  const written = parseIdentity(header.file);
  return written !== undefined && unwrittenSince(written, stackFile);
}

/**
 * Every `"//".secretform` object of the configuration, in the order a parse of the file written from it lists them
 * (synthesized-spec.ts's `forEachSpecObject` over the file): resource types, then their resources, each by key in
 * sorted order, as the file's writer sorts them.
 */
function specObjectsInFileOrder(configuration: unknown): unknown[] {
  const found: unknown[] = [];
  const blocks = isObject(configuration) ? configuration.resource : undefined;
  if (typeof blocks !== 'object' || blocks === null) return found;
  for (const resourceType of Object.keys(blocks).sort()) {
    const resources = (blocks as Record<string, unknown>)[resourceType];
    if (typeof resources !== 'object' || resources === null) continue;
    for (const logicalId of Object.keys(resources).sort()) {
      const block = (resources as Record<string, unknown>)[logicalId];
      const object = (block as { '//'?: { secretform?: unknown } } | null)?.['//']?.secretform;
      if (object !== undefined) found.push(object);
    }
  }
  return found;
}

/**
 * JSON text of plain JSON data whose objects list their keys in sorted order, as json-stable-stringify and
 * secretform's stack file writer do (JSON.parse then gives objects whose keys are in the same order as a parse of
 * the file); members whose value is undefined left out, as JSON.stringify does. Throws NotPlainJson for anything
 * else (a class instance, a function, a number JSON cannot write). The text is JSON.stringify's, of copies made
 * only of the objects whose keys are not in order: a string built here piece by piece cost 150-450 ms of synth at
 * 10,000 objects.
 */
function sortedJson(value: unknown): string {
  return JSON.stringify(sortedValue(value));
}

function sortedValue(value: unknown): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new NotPlainJson();
    return value;
  }
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let index = 0; index < value.length; index++) {
      const item = value[index] as unknown;
      if (item === undefined) throw new NotPlainJson();
      const sorted = sortedValue(item);
      if (sorted !== item) (copy ??= value.slice())[index] = sorted;
    }
    return copy ?? value;
  }
  if (!isObject(value)) throw new NotPlainJson();
  const prototype = Object.getPrototypeOf(value) as unknown;
  if ((prototype !== Object.prototype && prototype !== null) || typeof value.toJSON === 'function') throw new NotPlainJson();
  const keys = Object.keys(value);
  let inOrder = true;
  let changed = false;
  const values: unknown[] = [];
  for (let index = 0; index < keys.length; index++) {
    if (index > 0 && keys[index - 1] > keys[index]) inOrder = false;
    const member = value[keys[index]];
    const sorted = member === undefined ? undefined : sortedValue(member);
    if (sorted !== member) changed = true;
    values.push(sorted);
  }
  if (inOrder && !changed) return value;
  const order = keys.map((_key, index) => index);
  if (!inOrder) order.sort((a, b) => (keys[a] < keys[b] ? -1 : keys[a] > keys[b] ? 1 : 0));
  const copy: Record<string, unknown> = {};
  for (const index of order) {
    // defineProperty: a "__proto__" key is the member it is in JSON, not the copy's prototype.
    if (values[index] !== undefined) Object.defineProperty(copy, keys[index], { value: values[index], enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
