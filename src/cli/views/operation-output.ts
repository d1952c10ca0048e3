/**
 * How `secretform action` prints an operation's answer: `text` for people, `json` (one object: the service's
 * fields, plus the lease) and `env` (`export NAME='value'` lines; the same names `secretform exec` puts into the
 * command's environment). Credentials appear here and nowhere else: on stdout, for the operations that return
 * them. A library status never shows the borrower's token: it is a credential of someone else.
 */
import type { OperationAnswer } from '../../engine/operations/operation-run';
import { isPlainObject } from '../../resources/define';
import { UsageError } from '../run/usage-error';

export const OPERATION_FORMATS = ['text', 'json', 'env'] as const;
export type OperationFormat = (typeof OPERATION_FORMATS)[number];

export function parseOperationFormat(value: string): OperationFormat {
  if ((OPERATION_FORMATS as readonly string[]).includes(value)) return value as OperationFormat;
  throw new UsageError(`--format must be one of ${OPERATION_FORMATS.join(', ')}, got "${value}"`);
}

/** Fields of a status answer that hold another caller's token: never printed. */
const HIDDEN_STATUS_FIELDS = new Set(['borrower_client_token']);

/** The answer as one flat JSON object: the service's fields, then the lease. */
export function answerObject(answer: OperationAnswer): Record<string, unknown> {
  const object: Record<string, unknown> = answer.operation === 'status' ? withoutBorrowerTokens(answer.fields) : { ...answer.fields };
  if (answer.lease) {
    if (answer.lease.id !== undefined) object.lease_id = answer.lease.id;
    if (answer.lease.durationSeconds !== undefined) object.lease_duration = answer.lease.durationSeconds;
    if (answer.lease.renewable !== undefined) object.renewable = answer.lease.renewable;
  }
  if (answer.operation === 'rotate-root') object.rotated_at = answer.rotatedAt;
  if (answer.operation === 'rotate-role') object.rotated = true;
  return object;
}

function withoutBorrowerTokens(fields: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [account, status] of Object.entries(fields)) {
    result[account] = isPlainObject(status) ? Object.fromEntries(Object.entries(status).filter(([key]) => !HIDDEN_STATUS_FIELDS.has(key))) : status;
  }
  return result;
}

/**
 * Environment variables of a credential answer: each scalar field (and the lease) as its name upper-cased
 * (`client_secret` -> `CLIENT_SECRET`); lists joined with commas; nested objects left out.
 */
export function credentialEnvironment(answer: OperationAnswer): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(answerObject(answer))) {
    const key = name.toUpperCase().replace(/[^A-Z0-9_]/g, '_');
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') env[key] = String(value);
    else if (Array.isArray(value) && value.every((item) => typeof item === 'string')) env[key] = value.join(',');
  }
  return env;
}

/** `'it'\''s'`: a POSIX shell word that stays one literal value whatever it holds. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** The text stdout gets, ending with a newline. */
export function renderAnswer(answer: OperationAnswer, format: OperationFormat): string {
  if (format === 'json') return `${JSON.stringify(answerObject(answer), null, 2)}\n`;
  if (format === 'env') {
    if (!answer.returnsCredentials) throw new UsageError(`--format env is for operations that return credentials (creds, check-out, login), not ${answer.operation}`);
    return Object.entries(credentialEnvironment(answer)).map(([name, value]) => `export ${name}=${shellQuote(value)}\n`).join('');
  }
  return renderText(answer);
}

function renderText(answer: OperationAnswer): string {
  switch (answer.operation) {
    case 'rotate-root':
      return `Rotated the root credential of ${answer.address} (${answer.id}) at ${answer.rotatedAt}: only the service knows the new one.\n` +
        'Plans show it as managed by the service, and apply no longer sends the value in code; change that value in code to hand the root back.\n';
    case 'rotate-role':
      return `Rotated the password of ${answer.address} (${answer.id}) now.\n`;
    case 'check-in': {
      const checkedIn = Array.isArray(answer.fields.check_ins) ? answer.fields.check_ins.map(String) : [];
      return `Checked in: ${checkedIn.length > 0 ? checkedIn.join(', ') : '(none)'}\n`;
    }
    case 'status':
      return statusText(answer);
    default:
      return credentialText(answer);
  }
}

function statusText(answer: OperationAnswer): string {
  const lines = Object.entries(answer.fields).sort(([a], [b]) => (a < b ? -1 : 1)).map(([account, status]) => {
    const record = isPlainObject(status) ? status : {};
    if (record.available === true) return `${account}: available`;
    const entity = typeof record.borrower_entity_id === 'string' && record.borrower_entity_id !== '' ? ` (borrower entity ${record.borrower_entity_id})` : '';
    return `${account}: checked out${entity}`;
  });
  return `${lines.length > 0 ? lines.join('\n') : '(no accounts)'}\n`;
}

function credentialText(answer: OperationAnswer): string {
  const lines: string[] = [];
  for (const [name, value] of Object.entries(answer.fields)) {
    lines.push(`${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`);
  }
  if (answer.lease?.id !== undefined) lines.push(`lease_id: ${answer.lease.id}`);
  if (answer.lease?.durationSeconds !== undefined) lines.push(`lease_duration: ${answer.lease.durationSeconds} s${readable(answer.lease.durationSeconds)}`);
  if (answer.lease?.renewable !== undefined) lines.push(`renewable: ${answer.lease.renewable}`);
  return `${lines.join('\n')}\n`;
}

/** ` (24h)`, ` (90m)`, or nothing for 0 (unlimited) and odd values. */
function readable(seconds: number): string {
  if (seconds === 0) return ' (no limit)';
  if (seconds % 3600 === 0) return ` (${seconds / 3600}h)`;
  if (seconds % 60 === 0) return ` (${seconds / 60}m)`;
  return '';
}
