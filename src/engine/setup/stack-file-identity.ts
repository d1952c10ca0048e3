/**
 * Where a stack's `cdk.tf.json` is and when it was last written: what the records synth writes beside it (the
 * digest record, the specs record) keep, so that a reader can tell the file has not been written since, without
 * reading it. Every write sets the modification and status-change times, and the status-change time cannot be set
 * back by a user; a file system whose times have whole seconds only could hide a second write within the same
 * second, so there the identity alone never vouches for the bytes.
 */
import * as fs from 'node:fs';

/** From `fs.statSync(file, { bigint: true })`, as decimal text. */
export interface FileIdentity {
  readonly dev: string;
  readonly ino: string;
  readonly mtimeNs: string;
  readonly ctimeNs: string;
}

/** The file's identity now, or undefined when there is no such file. */
export function fileIdentity(file: string): FileIdentity | undefined {
  const stat = fs.statSync(file, { bigint: true, throwIfNoEntry: false });
  if (stat === undefined) return undefined;
  return { dev: String(stat.dev), ino: String(stat.ino), mtimeNs: String(stat.mtimeNs), ctimeNs: String(stat.ctimeNs) };
}

export function sameIdentity(a: FileIdentity, b: FileIdentity | undefined): boolean {
  return b !== undefined && a.dev === b.dev && a.ino === b.ino && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs;
}

/** Times finer than whole seconds: a file system whose clock could not hide a second write of the same second. */
export function hasSubsecondTimes(identity: FileIdentity): boolean {
  return BigInt(identity.ctimeNs) % 1_000_000_000n !== 0n && BigInt(identity.mtimeNs) % 1_000_000_000n !== 0n;
}

/** Whether `file` has not been written since it had the identity `recorded` (see above). */
export function unwrittenSince(recorded: FileIdentity, file: string): boolean {
  const now = fileIdentity(file);
  return now !== undefined && sameIdentity(recorded, now) && hasSubsecondTimes(now);
}

/** An identity as a record holds it, read back; undefined when it is not one. */
export function parseIdentity(value: unknown): FileIdentity | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { dev, ino, mtimeNs, ctimeNs } = value as Record<string, unknown>;
  const parts = [dev, ino, mtimeNs, ctimeNs];
  if (!parts.every((part) => typeof part === 'string' && /^[0-9]{1,30}$/.test(part))) return undefined;
  return { dev: dev as string, ino: ino as string, mtimeNs: mtimeNs as string, ctimeNs: ctimeNs as string };
}
