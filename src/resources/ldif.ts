/**
 * LDIF as the directory engine takes it: templated text (Go-template actions inside LDIF), possibly
 * base64-encoded as a whole. The server stores and returns the decoded text, so the canonical form is decoded.
 */
import { LDIF_TEMPLATE, templateProblems } from './template';

const BASE64_TEXT = /^[A-Za-z0-9+/\s]+={0,2}\s*$/;

/** The LDIF text of a value that may be base64-encoded as a whole (LDIF always holds a ":"; base64 never). */
export function decodeLdif(value: string): string {
  if (!value.includes(':') && BASE64_TEXT.test(value)) {
    const decoded = Buffer.from(value.replace(/\s+/g, ''), 'base64').toString('utf8');
    if (decoded.includes(':')) return decoded;
  }
  return value;
}

/** Canonical form: decoded, `\n` line ends, no trailing blank lines or spaces (the server keeps what it got). */
export function canonicalLdif(value: string): string {
  return decodeLdif(value).replace(/\r\n/g, '\n').replace(/\s+$/, '');
}

const ATTRIBUTE = /^([A-Za-z][A-Za-z0-9-]*|\d+(?:\.\d+)*)(;[A-Za-z0-9-]+)*$/;
const CHANGE_TYPES = new Set(['add', 'delete', 'modify', 'modrdn', 'moddn']);
const MODIFY_OPERATIONS = new Set(['add', 'delete', 'replace', 'increment']);

/**
 * The problems of the LDIF texts checked last, by text: the roles of a stack often share their LDIF (the 1,000
 * dynamic roles of a 10,000-resource stack had two texts), and parsing it for each cost ~15 ms of a plan's
 * start-up. Bounded, so a long-running process keeps no more than a few texts.
 */
const recentProblems = new Map<string, readonly string[]>();
const RECENT_MAX = 32;

/** The problems of a templated LDIF value, each a short sentence; empty when it parses. */
export function ldifProblems(value: string): string[] {
  let problems = recentProblems.get(value);
  if (!problems) {
    problems = parseProblems(value);
    if (recentProblems.size >= RECENT_MAX) recentProblems.clear();
    recentProblems.set(value, problems);
  }
  return [...problems];
}

function parseProblems(value: string): string[] {
  const text = decodeLdif(value).replace(/\r\n/g, '\n');
  const problems = templateProblems(text, LDIF_TEMPLATE);
  if (problems.length > 0) return problems;
  // Every action becomes a value that is valid both as text and as base64, so `attr:: {{...|base64}}` parses.
  const rendered = text.replace(/\{\{[\s\S]*?\}\}/g, 'AAAA');
  return parseLdifRecords(rendered);
}

function parseLdifRecords(text: string): string[] {
  const lines: string[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith(' ') && lines.length > 0 && lines[lines.length - 1] !== '') lines[lines.length - 1] += line.slice(1);
    else lines.push(line);
  }
  const records: string[][] = [];
  let current: string[] = [];
  for (const line of lines) {
    if (line.startsWith('#')) continue;
    if (line.trim() === '') {
      if (current.length > 0) records.push(current);
      current = [];
    } else {
      current.push(line);
    }
  }
  if (current.length > 0) records.push(current);
  if (records.length > 0 && /^version:\s*1\s*$/.test(records[0][0])) {
    records[0] = records[0].slice(1);
    if (records[0].length === 0) records.shift();
  }
  if (records.length === 0) return ['holds no LDIF entry (each entry starts with a "dn:" line)'];
  const problems: string[] = [];
  records.forEach((record, index) => problems.push(...recordProblems(record, index + 1)));
  return problems;
}

function recordProblems(record: string[], number: number): string[] {
  const problems: string[] = [];
  const lines = record.map(splitLine);
  const first = lines[0];
  if (!first || first.attribute.toLowerCase() !== 'dn') return [`entry ${number} does not start with a "dn:" line (got ${JSON.stringify(record[0])})`];
  if (first.value.trim() === '' && !first.base64) problems.push(`entry ${number} has an empty dn`);
  let index = 1;
  let changeType = 'add';
  if (lines[index]?.attribute.toLowerCase() === 'changetype') {
    changeType = lines[index]!.value.trim();
    if (!CHANGE_TYPES.has(changeType)) problems.push(`entry ${number} has changetype "${changeType}"; allowed: ${[...CHANGE_TYPES].join(', ')}`);
    index++;
  }
  let inModification = false;
  for (; index < record.length; index++) {
    const raw = record[index];
    if (changeType === 'modify' && raw.trim() === '-') {
      if (!inModification) problems.push(`entry ${number} has a "-" separator without a modification before it`);
      inModification = false;
      continue;
    }
    const line = lines[index];
    if (!line) {
      problems.push(`entry ${number}: line ${JSON.stringify(raw)} is not "attribute: value"`);
      continue;
    }
    if (!ATTRIBUTE.test(line.attribute)) problems.push(`entry ${number}: "${line.attribute}" is not an attribute name`);
    if (line.base64 && !/^[A-Za-z0-9+/]*={0,2}$/.test(line.value.trim())) problems.push(`entry ${number}: the value of "${line.attribute}::" is not base64`);
    if (changeType === 'modify' && !inModification) {
      if (!MODIFY_OPERATIONS.has(line.attribute.toLowerCase())) {
        problems.push(`entry ${number}: a modify entry needs "add:", "delete:", "replace:" or "increment:" before "${line.attribute}:"`);
      }
      inModification = true;
    }
  }
  if (changeType === 'add' && record.length - (lines[1]?.attribute.toLowerCase() === 'changetype' ? 2 : 1) === 0) {
    problems.push(`entry ${number} adds an entry without attributes`);
  }
  return problems;
}

function splitLine(line: string): { attribute: string; value: string; base64: boolean } | undefined {
  const match = /^([^:\s]+)\s*:(:|<)?\s?(.*)$/.exec(line);
  if (!match) return undefined;
  return { attribute: match[1], value: match[3], base64: match[2] === ':' };
}
