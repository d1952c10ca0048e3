/**
 * The digest record: `secretform-digest.json`, written by synth next to each stack's `cdk.tf.json`, so that change
 * detection (`secretform stacks`, `--changed`) gets the stack's desired-state digest without reading, parsing and
 * hashing the whole synth output again (seconds of CPU at 100 stacks of 1,000 objects).
 *
 * It holds the SHA-256 state after the part of the digest's canonical text that synth knows (everything before
 * the service address: desired-digest.ts), the stack's connection (names and paths, never a token), and the
 * size and SHA-256 of the `cdk.tf.json` bytes it was computed from. It is used only when those bytes are still
 * the same: any other file (edited by hand, written by another synth, or by a version of secretform that writes
 * no record) is read in full as before, so a record never makes a changed stack look unchanged. The digest it
 * gives is the one apply records for the same file (a unit test checks it over the examples and the bench apps).
 *
 * Reading and hashing the bytes again was most of what was left at 100 stacks of 1,000 objects (150 MB: about a
 * second of CPU on a loaded machine). So the record also keeps the file's identity and times as synth left them
 * (device, inode, modification and status-change times in nanoseconds): when they are all the same, nothing has
 * written to the file since (every write sets both times; the status-change time cannot be set back by a user),
 * and the bytes are not read. When any differs (a copy, a restored cache, `touch`, an edit), the bytes are hashed
 * and compared. A file system whose times have whole seconds only could hide a second write within the same
 * second: there the bytes are always hashed.
 *
 * It also lists the variables the stack's secrets and token are read from, for the next synth to withhold from the
 * app (synth-environment.ts) without parsing the file.
 *
 * No secret value is in it: the canonical text holds secrets as references only, and the record holds a hash
 * state of that text and at most its last 63 bytes, and variable names.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  parseSynthesizedConnection, readSynthesizedConnection, readSynthesizedSpecs, writeSynthesizedConnection, type SynthesizedConnection, type SynthesizedSpec,
} from '../../synthesized-spec';
import { forEachUtf8Slice } from '../../utf8-slices';
import { digestTextFromService, writeDigestTextBeforeService } from './desired-digest';
import { ResumableSha256, type Sha256State } from './desired-digest-sha256';
import { removeSpecsRecord, writeSpecsRecord } from './desired-specs-record';
import { fileIdentity, hasSubsecondTimes, parseIdentity, sameIdentity, type FileIdentity } from './stack-file-identity';

export type { FileIdentity } from './stack-file-identity';

/** The record's file name, in the stack's directory of the synth output (terraform reads `*.tf.json` only). */
export const DIGEST_RECORD_FILE = 'secretform-digest.json';

/** The file the record describes, in the same directory. */
const STACK_FILE = 'cdk.tf.json';

const RECORD_VERSION = 1;

/** A stack's record, as written. */
export interface DigestRecord {
  /** Size and SHA-256 of the `cdk.tf.json` bytes the record was computed from, and the file's identity then. */
  readonly file: { readonly bytes: number; readonly sha256: string; readonly written?: FileIdentity };
  /** The stack's ServiceConnection as synthesized, when it has one. */
  readonly connection?: SynthesizedConnection;
  /** The SHA-256 state after the canonical text up to the service's value. */
  readonly before: Sha256State;
  /**
   * The variables the stack's secrets and connection token are read from (secret-variables.ts), sorted; absent in
   * a record of a version before them (then synth parses the file to learn them).
   */
  readonly secretVariables?: readonly string[];
  /**
   * The number of secretform objects in the stack: what a run over several stacks admits it to its server by
   * before loading it (server-shares.ts); absent in a record of a version before it (then the run loads the stack).
   */
  readonly objects?: number;
}

/** What change detection takes from a record whose file is unchanged. */
export interface RecordedDigest {
  readonly connection?: SynthesizedConnection;
  /** The stack's desired-state digest when its runs talk to `service` (as `desiredDigest` gives it). */
  readonly digestFor: (service: string | undefined) => string;
  /** The record's `secretVariables`, when it has them. */
  readonly secretVariables?: readonly string[];
  /** The record's `objects`, when it has them. */
  readonly objects?: number;
}

/**
 * The record of a stack's configuration (the object the framework wrote) and `file`, the `cdk.tf.json` it was
 * written to, whose bytes and identity the record keeps.
 * Throws a SpecFormatError when the configuration holds a malformed spec or an invalid-construct marker (synth
 * without validation): such a stack gets no record, and change detection reports the problem from the file.
 */
export function digestRecordOf(configuration: unknown, file: string): DigestRecord {
  const connection = readSynthesizedConnection(configuration, file);
  const specs = readSynthesizedSpecs(configuration, file);
  const before = hashedBeforeService(specs, connection).state();
  // The identity before and after reading: when they differ, something wrote meanwhile and none is kept (the
  // bytes are then hashed at every check).
  const identity = fileIdentity(file);
  const written = fingerprintOfFile(file);
  const still = identity !== undefined && sameIdentity(identity, fileIdentity(file)) ? identity : undefined;
  const secretVariables = [...secretVariablesOfSpecs(specs, connection)].sort();
  return { file: { ...written, ...(still ? { written: still } : {}) }, ...(connection ? { connection } : {}), before, secretVariables, objects: specs.length };
}

/**
 * The variables `secretVariablesOfConfiguration` finds in the configuration these were read from, taken from
 * what the record has already read instead of a second walk of every spec: once `readSynthesizedSpecs` and
 * `readSynthesizedConnection` have accepted the configuration (else there is no record), every spec object's
 * secrets are references it parsed and the connection is the one it names (a unit test compares the two over
 * the examples and the bench apps).
 */
function secretVariablesOfSpecs(specs: readonly SynthesizedSpec[], connection: SynthesizedConnection | undefined): Set<string> {
  const names = new Set<string>();
  if (connection?.tokenEnv !== undefined) names.add(connection.tokenEnv);
  for (const spec of specs) {
    for (const field in spec.secrets) {
      const reference = spec.secrets[field];
      if ('env' in reference) names.add(reference.env);
    }
  }
  return names;
}

/**
 * Writes the record into the stack's directory of the synth output. `configuration`: the object the stack file
 * was written from, when secretform's own writer wrote it (keys sorted at every level, as the specs record's
 * reader needs): the stack's specs record is written beside it (desired-specs-record.ts), else removed.
 */
export function writeDigestRecord(stackDir: string, record: DigestRecord, configuration?: unknown): void {
  if (configuration !== undefined && record.file.written !== undefined) writeSpecsRecord(stackDir, configuration, record.file.written);
  else removeSpecsRecord(stackDir);
  const json = {
    version: RECORD_VERSION,
    file: record.file,
    ...(record.connection ? { connection: writeSynthesizedConnection(record.connection) } : {}),
    before: { chain: record.before.chain, hashedBytes: record.before.hashedBytes, pending: Buffer.from(record.before.pending).toString('base64') },
    ...(record.secretVariables ? { secretVariables: record.secretVariables } : {}),
    ...(record.objects !== undefined ? { objects: record.objects } : {}),
  };
  fs.writeFileSync(path.join(stackDir, DIGEST_RECORD_FILE), `${JSON.stringify(json, null, 2)}\n`);
}

/** Removes a record that no longer describes the stack's file (it would be ignored, but need not linger). */
export function removeDigestRecord(stackDir: string): void {
  fs.rmSync(path.join(stackDir, DIGEST_RECORD_FILE), { force: true });
  removeSpecsRecord(stackDir);
}

/**
 * The stack's recorded digest, when its directory holds a well-formed record whose size and SHA-256 match the
 * `cdk.tf.json` there now; undefined otherwise (no record, another file, a record this version cannot read), and
 * the caller computes the digest from the file.
 */
export function readRecordedDigest(stackDir: string): RecordedDigest | undefined {
  let record: DigestRecord | undefined;
  try {
    record = parseDigestRecord(JSON.parse(fs.readFileSync(path.join(stackDir, DIGEST_RECORD_FILE), 'utf8')));
    if (record === undefined || !describesFile(record.file, path.join(stackDir, STACK_FILE))) return undefined;
  } catch {
    return undefined;
  }
  const { before, connection, secretVariables, objects } = record;
  return {
    ...(connection ? { connection } : {}),
    ...(secretVariables ? { secretVariables } : {}),
    ...(objects !== undefined ? { objects } : {}),
    digestFor: (service) => `sha256:${new ResumableSha256(before).update(Buffer.from(digestTextFromService(service), 'utf8')).hexDigest()}`,
  };
}

/** Whether `file` holds the bytes the record was made from: not written since synth, else the same size and SHA-256. */
function describesFile(recorded: DigestRecord['file'], file: string): boolean {
  const now = fileIdentity(file);
  if (now === undefined) return false;
  if (recorded.written !== undefined && sameIdentity(recorded.written, now) && hasSubsecondTimes(now)) return true;
  const fingerprinted = fingerprintOfFile(file);
  return fingerprinted.bytes === recorded.bytes && fingerprinted.sha256 === recorded.sha256;
}

/**
 * The SHA-256 state after the digest's canonical text up to the service, hashed a resource at a time as the text
 * is written: parts are gathered into a short string and hashed when it reaches `BATCH_UNITS`, so the whole
 * text (tens of megabytes per 10,000 objects) never exists as one string.
 */
function hashedBeforeService(resources: readonly SynthesizedSpec[], connection: SynthesizedConnection | undefined): ResumableSha256 {
  const hash = new ResumableSha256();
  let batch = '';
  writeDigestTextBeforeService({ resources, connection }, (part) => {
    batch += part;
    if (batch.length >= BATCH_UNITS) {
      updateWithText(hash, batch);
      batch = '';
    }
  });
  return updateWithText(hash, batch);
}

/** UTF-16 units of text gathered before they are hashed: a fraction of one encoding slice of `updateWithText`. */
const BATCH_UNITS = 1 << 16;

/** Size of a read, in bytes: the buffer is reused for the whole file (and the next). */
const CHUNK_BYTES = 1 << 20;
let chunk: Buffer | undefined;

/** `hash` updated with the UTF-8 bytes of `text`, a reused slice at a time (utf8-slices.ts). */
export function updateWithText(hash: ResumableSha256, text: string): ResumableSha256 {
  forEachUtf8Slice([text], (bytes) => hash.update(bytes));
  return hash;
}

/**
 * The file's size and SHA-256, read a chunk at a time into one reused buffer. Reading the whole file into fresh
 * memory cost more than hashing it: at 100 stacks of 1,000 objects synth read 157 MB back, and every page of
 * fresh memory is a page fault (about 14 us each on a small VM).
 */
function fingerprintOfFile(file: string): { bytes: number; sha256: string } {
  chunk ??= Buffer.allocUnsafe(CHUNK_BYTES);
  const hash = createHash('sha256');
  const fd = fs.openSync(file, 'r');
  let bytes = 0;
  try {
    for (;;) {
      const read = fs.readSync(fd, chunk, 0, CHUNK_BYTES, null);
      if (read === 0) break;
      hash.update(chunk.subarray(0, read));
      bytes += read;
    }
  } finally {
    fs.closeSync(fd);
  }
  return { bytes, sha256: hash.digest('hex') };
}

/** A record read back, or undefined when it is not one this version writes. */
function parseDigestRecord(value: unknown): DigestRecord | undefined {
  if (!isObject(value) || value.version !== RECORD_VERSION || !isObject(value.file) || !isObject(value.before)) return undefined;
  const { file, before } = value;
  if (!Number.isSafeInteger(file.bytes) || typeof file.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(file.sha256)) return undefined;
  const written = file.written === undefined ? undefined : parseIdentity(file.written);
  if (file.written !== undefined && written === undefined) return undefined;
  if (typeof before.chain !== 'string' || !/^[0-9a-f]{64}$/.test(before.chain) || !Number.isSafeInteger(before.hashedBytes) || (before.hashedBytes as number) % 64 !== 0 || (before.hashedBytes as number) < 0) return undefined;
  if (typeof before.pending !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(before.pending)) return undefined;
  const pending = Buffer.from(before.pending, 'base64');
  if (pending.length >= 64) return undefined;
  let connection: SynthesizedConnection | undefined;
  if (value.connection !== undefined) {
    try {
      connection = parseSynthesizedConnection(value.connection, DIGEST_RECORD_FILE);
    } catch {
      return undefined;
    }
  }
  const { secretVariables } = value;
  if (secretVariables !== undefined && !(Array.isArray(secretVariables) && secretVariables.every((name) => typeof name === 'string' && name !== ''))) return undefined;
  const { objects } = value;
  if (objects !== undefined && !(Number.isSafeInteger(objects) && (objects as number) >= 0)) return undefined;
  return {
    file: { bytes: file.bytes as number, sha256: file.sha256, ...(written ? { written } : {}) },
    ...(connection ? { connection } : {}),
    before: { chain: before.chain, hashedBytes: before.hashedBytes as number, pending },
    ...(secretVariables ? { secretVariables: secretVariables as string[] } : {}),
    ...(objects !== undefined ? { objects: objects as number } : {}),
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
