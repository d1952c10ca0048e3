import type { AttributeChange, ModifyOperation } from './directory';

/** An LDIF that does not parse; the message names the line (`LDIF line 3: ...`). */
export class LdifError extends Error {
  constructor(
    readonly line: number,
    detail: string,
  ) {
    super(`LDIF line ${line}: ${detail}`);
    this.name = 'LdifError';
  }
}

/** One change record; `line` is where its `dn:` is, for error messages. */
export type LdifRecord =
  | { changetype: 'add'; dn: string; line: number; attributes: Record<string, string[]> }
  | { changetype: 'modify'; dn: string; line: number; changes: AttributeChange[] }
  | { changetype: 'delete'; dn: string; line: number };

/** A line after unfolding: its text and the number of the physical line it starts on. */
interface LogicalLine {
  text: string;
  line: number;
}

/** An `attr: value` / `attr:: base64` line, split and decoded. */
interface AttributeLine {
  attribute: string;
  value: string;
  line: number;
}

const MODIFY_OPERATIONS: ReadonlySet<string> = new Set<ModifyOperation>(['add', 'replace', 'delete']);

/**
 * Parses the RFC 2849 subset the directory engine uses: comments, folded lines, `attr: value` and
 * `attr:: base64`, records separated by blank lines, an optional leading `version: 1`, and change types add
 * (also when `changetype` is absent), modify (`add:`/`replace:`/`delete:` blocks each closed by `-`) and delete.
 */
export function parseLdif(text: string): LdifRecord[] {
  const records: LdifRecord[] = [];
  const groups = splitRecords(text);
  groups.forEach((group, index) => {
    let lines = group;
    if (index === 0 && /^version:/i.test(lines[0].text)) {
      const version = parseAttributeLine(lines[0]);
      if (version.value.trim() !== '1') throw new LdifError(version.line, `unsupported LDIF version "${version.value}"`);
      lines = lines.slice(1);
      if (lines.length === 0) return;
    }
    records.push(parseRecord(lines));
  });
  return records;
}

/** Unfolds continuation lines, drops comments, and groups the lines of each record. */
function splitRecords(text: string): LogicalLine[][] {
  const physical = text.split(/\r?\n/);
  const groups: LogicalLine[][] = [];
  let group: LogicalLine[] = [];
  let inComment = false;
  physical.forEach((raw, index) => {
    const lineNumber = index + 1;
    if (raw.length === 0) {
      if (group.length > 0) groups.push(group);
      group = [];
      inComment = false;
      return;
    }
    if (raw.startsWith(' ')) {
      // A folded line continues the previous one (or the comment it belongs to), without its leading space.
      if (inComment) return;
      const previous = group[group.length - 1];
      if (!previous) throw new LdifError(lineNumber, 'continuation line (starting with a space) without a line to continue');
      previous.text += raw.slice(1);
      return;
    }
    if (raw.startsWith('#')) {
      inComment = true;
      return;
    }
    inComment = false;
    group.push({ text: raw, line: lineNumber });
  });
  if (group.length > 0) groups.push(group);
  return groups;
}

function parseRecord(lines: LogicalLine[]): LdifRecord {
  const [dnLine, ...rest] = lines;
  if (!/^dn:/i.test(dnLine.text)) throw new LdifError(dnLine.line, `record must start with "dn:", found "${dnLine.text}"`);
  const dn = parseAttributeLine(dnLine).value.trim();
  if (!dn) throw new LdifError(dnLine.line, 'empty dn');
  if (rest.length === 0) throw new LdifError(dnLine.line, `record for "${dn}" has only a dn: line`);

  let changetype = 'add';
  let body = rest;
  if (/^changetype:/i.test(rest[0].text)) {
    changetype = parseAttributeLine(rest[0]).value.trim().toLowerCase();
    body = rest.slice(1);
  }
  switch (changetype) {
    case 'add': {
      if (body.length === 0) throw new LdifError(dnLine.line, `add record for "${dn}" has no attributes`);
      const attributes: Record<string, string[]> = {};
      for (const line of body) {
        const { attribute, value } = parseAttributeLine(line);
        // Keep the first spelling of a repeated attribute name (names are case-insensitive).
        const existing = Object.keys(attributes).find((k) => k.toLowerCase() === attribute.toLowerCase());
        (attributes[existing ?? attribute] ??= []).push(value);
      }
      return { changetype: 'add', dn, line: dnLine.line, attributes };
    }
    case 'delete':
      if (body.length > 0) throw new LdifError(body[0].line, `no attributes allowed for changetype delete`);
      return { changetype: 'delete', dn, line: dnLine.line };
    case 'modify':
      return { changetype: 'modify', dn, line: dnLine.line, changes: parseModifications(body, dnLine, dn) };
    case 'modrdn':
    case 'moddn':
      throw new LdifError(rest[0].line, `unsupported changetype ${changetype}`);
    default:
      throw new LdifError(rest[0].line, `invalid changetype "${changetype}"`);
  }
}

/** `add: attr` / `replace: attr` / `delete: attr`, then values of that attribute, then `-`. */
function parseModifications(body: LogicalLine[], dnLine: LogicalLine, dn: string): AttributeChange[] {
  if (body.length === 0) throw new LdifError(dnLine.line, `modify record for "${dn}" has no modifications`);
  const changes: AttributeChange[] = [];
  let current: AttributeChange | undefined;
  for (const line of body) {
    if (line.text === '-') {
      if (!current) throw new LdifError(line.line, '"-" without a preceding add:, replace: or delete: line');
      changes.push(current);
      current = undefined;
      continue;
    }
    const parsed = parseAttributeLine(line);
    if (!current) {
      const op = parsed.attribute.toLowerCase();
      if (!MODIFY_OPERATIONS.has(op)) {
        throw new LdifError(line.line, `invalid operation "${parsed.attribute}" in modify record (expected add, replace or delete)`);
      }
      const attribute = parsed.value.trim();
      validateAttributeName(attribute, line.line);
      current = { op: op as ModifyOperation, attribute, values: [] };
      continue;
    }
    if (parsed.attribute.toLowerCase() !== current.attribute.toLowerCase()) {
      throw new LdifError(
        line.line,
        `attribute "${parsed.attribute}" in the ${current.op} block for "${current.attribute}" (missing "-"?)`,
      );
    }
    current.values.push(parsed.value);
  }
  if (current) {
    const last = body[body.length - 1];
    throw new LdifError(last.line, `modify block for "${current.attribute}" does not end with a "-" line`);
  }
  return changes;
}

function parseAttributeLine(line: LogicalLine): AttributeLine {
  const colon = line.text.indexOf(':');
  if (colon < 0) throw new LdifError(line.line, `missing ":" in "${line.text}"`);
  const attribute = line.text.slice(0, colon);
  validateAttributeName(attribute, line.line);
  const rest = line.text.slice(colon + 1);
  if (rest.startsWith(':')) {
    return { attribute, value: decodeBase64Value(rest.slice(1).replace(/^ +/, ''), line.line), line: line.line };
  }
  if (rest.startsWith('<')) throw new LdifError(line.line, `URL values ("${attribute}:<") are not supported`);
  // RFC 2849: the separator is the colon followed by any number of spaces.
  return { attribute, value: rest.replace(/^ +/, ''), line: line.line };
}

/** Attribute descriptions: a name (letters, digits, '-') or a numeric OID, with optional `;options`. */
function validateAttributeName(name: string, line: number): void {
  if (!/^([A-Za-z][A-Za-z0-9-]*|[0-9]+(\.[0-9]+)*)(;[A-Za-z0-9-]+)*$/.test(name)) {
    throw new LdifError(line, `invalid attribute name "${name}"`);
  }
}

const BASE64_PATTERN = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Decodes a `::` value. Text values come back as text; bytes that are not valid UTF-8 (such as UTF-16LE
 * passwords with non-ASCII characters) map one-to-one to characters (latin1) so no byte is lost.
 */
function decodeBase64Value(encoded: string, line: number): string {
  const compact = encoded.trimEnd();
  if (!BASE64_PATTERN.test(compact)) throw new LdifError(line, `invalid base64 value "${compact}"`);
  return bytesToText(Buffer.from(compact, 'base64'));
}

function bytesToText(bytes: Buffer): string {
  const text = bytes.toString('utf8');
  return Buffer.from(text, 'utf8').equals(bytes) ? text : bytes.toString('latin1');
}

/** Template actions replaced by a value that is valid both as plain text and as base64. */
const TEMPLATE_ACTION = /\{\{[\s\S]*?\}\}/g;
const ACTION_PLACEHOLDER = 'AAAA';

/**
 * The directory engine accepts base64-encoded LDIF. Returns the decoded text when `text` is valid base64
 * (line breaks allowed, as Go's decoder skips them) that decodes to UTF-8 text parsing as LDIF with at least
 * one record; else undefined. The LDIF is still a template, so its `{{ ... }}` actions are stood in for by a
 * placeholder while parsing (a value like `unicodePwd:: {{ .Password | utf16le | base64 }}` only becomes
 * base64 once rendered).
 */
export function isLikelyBase64Ldif(text: string): string | undefined {
  const compact = text.trim().replace(/\r?\n/g, '');
  if (compact.length === 0 || !BASE64_PATTERN.test(compact)) return undefined;
  const bytes = Buffer.from(compact, 'base64');
  const decoded = bytes.toString('utf8');
  if (!Buffer.from(decoded, 'utf8').equals(bytes)) return undefined;
  try {
    return parseLdif(decoded.replace(TEMPLATE_ACTION, ACTION_PLACEHOLDER)).length > 0 ? decoded : undefined;
  } catch (error) {
    if (error instanceof LdifError) return undefined;
    throw error;
  }
}
