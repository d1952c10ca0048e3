/**
 * The journal of a local state file (`<state>.journal`): one JSON line per write, appended and fsynced before the
 * operation counts as done, so keeping state costs the size of what changed, not the size of the state. The
 * state file itself is rewritten once, when the command ends (or when the next command starts, after a crash).
 *
 * Line 1 names the state the journal continues (lineage, serial, stack); every further line is one write:
 * `{"serial": N, "set": {address: entry}, "del": [address]}`, with `"service"` when the write records the
 * service the stack is applied to, and `"digest"` when it ends an apply that carried out the whole desired
 * state. A last line without its newline is a write that
 * was cut short by a crash: it never counted as done, so it is ignored.
 */
import type { z as Zod } from 'zod';
import { lazy, type Infer } from '../../lazy-zod';
import { EngineError, fail, ok, type Result } from '../errors';
import type { StateChange } from './backend';
import { resourceStateSchema, type ResourceState, type StateFile } from './state-file';
import { setOwn } from '../../own-keys';

const headerSchema = lazy((z) => z.object({ journal: z.literal(1), stack: z.string(), lineage: z.string().min(1), base_serial: z.number().int().nonnegative() }));
// `service`: the write also recorded the service the stack is applied to; `digest`: it ended an apply that carried
// out the whole desired state, whose digest it records (an older version ignores both).
const recordSchema = lazy((z) => z.object({
  serial: z.number().int().positive(), set: z.record(z.string(), resourceStateSchema()), del: z.array(z.string()), service: z.string().min(1).optional(),
  digest: z.string().min(1).optional(),
}));

export type JournalHeader = Infer<typeof headerSchema>;

export function journalPathOf(statePath: string): string {
  return `${statePath}.journal`;
}

export function headerLine(header: Omit<JournalHeader, 'journal'>): string {
  return `${JSON.stringify({ journal: 1, ...header })}\n`;
}

export function recordLine(serial: number, changes: StateChange[], service?: string, appliedDigest?: string): string {
  const set: Record<string, ResourceState> = {};
  const del: string[] = [];
  for (const change of changes) {
    if (change.entry) setOwn(set, change.address, change.entry);
    else {
      delete set[change.address];
      del.push(change.address);
    }
  }
  return `${JSON.stringify({ serial, set, del, ...(service === undefined ? {} : { service }), ...(appliedDigest === undefined ? {} : { digest: appliedDigest }) })}\n`;
}

export type JournalReplay =
  /** Nothing to apply: no journal, an empty one (its writer died before the first write), or one already folded. */
  | { kind: 'none' }
  | { kind: 'applied'; state: StateFile; records: number };

/**
 * Applies the journal's complete records to `state` (a copy is returned; `state` is untouched). `stateExists`
 * false means the state file was never written: the journal's lineage is then the state's.
 */
export function replayJournal(text: string, state: StateFile, stateExists: boolean, where: string): Result<JournalReplay> {
  const lines = text.split('\n');
  // The last element is '' when the text ends with a newline, else the torn write of a crashed command.
  lines.pop();
  if (lines.length === 0) return ok({ kind: 'none' });
  const header = parseLine(lines[0], headerSchema());
  if (!header) return fail(corrupt(where, 1, 'not a journal header'));
  if (header.stack !== state.stack) return fail(corrupt(where, 1, `it belongs to stack "${header.stack}", not "${state.stack}"`));
  const lineage = stateExists ? state.lineage : header.lineage;
  if (header.lineage !== lineage) return fail(corrupt(where, 1, `its lineage ${header.lineage} is not the state's (${state.lineage})`));
  if (stateExists && header.base_serial < state.serial) return ok({ kind: 'none' }); // folded already, not yet removed
  if (header.base_serial !== (stateExists ? state.serial : 0)) {
    return fail(corrupt(where, 1, `it continues serial ${header.base_serial}, but the state file is at serial ${state.serial}`));
  }
  const resources = { ...state.resources };
  let serial = header.base_serial;
  let service = state.service;
  let appliedDigest = state.applied_digest;
  for (let index = 1; index < lines.length; index += 1) {
    const record = parseLine(lines[index], recordSchema());
    if (!record || record.serial !== serial + 1) return fail(corrupt(where, index + 1, record ? `serial ${record.serial} does not follow ${serial}` : 'not a journal record'));
    for (const address of record.del) delete resources[address];
    for (const [address, entry] of Object.entries(record.set)) setOwn(resources, address, entry);
    serial = record.serial;
    service = record.service ?? service;
    if (record.digest !== undefined) appliedDigest = { digest: record.digest, serial: record.serial };
  }
  const recorded = { ...(service === undefined ? {} : { service }), ...(appliedDigest === undefined ? {} : { applied_digest: appliedDigest }) };
  return ok({ kind: 'applied', state: { ...state, lineage, serial, resources, ...recorded }, records: lines.length - 1 });
}

function parseLine<T>(line: string, schema: Zod.ZodType<T>): T | undefined {
  try {
    const parsed = schema.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

function corrupt(where: string, line: number, why: string): EngineError {
  return new EngineError(
    'state_corrupt',
    `state journal ${where} is damaged at line ${line}: ${why}. It holds the writes of a command that did not finish; ` +
      'move it aside to use the state file as it was before that command (run `secretform plan` to see what the service holds)',
  );
}
