/**
 * Where a stack's state lives: `--state` (or SECRETFORM_STATE) is either a file path or a PostgreSQL URL,
 * `postgres://USER[:PASSWORD]@HOST[:PORT]/DB[?schema=NAME]` (`postgresql://` too). The password never appears in
 * what is printed: `display` masks it.
 */
import * as path from 'node:path';
import { EngineError, fail, ok, type Result } from '../errors';

export const STATE_ENV = 'SECRETFORM_STATE';
export const DEFAULT_PG_SCHEMA = 'secretform';
/** In a state file path, replaced by the stack's name: one file per stack when a run covers several. */
export const STACK_PLACEHOLDER = '{stack}';

export interface PostgresLocation {
  kind: 'postgres';
  host: string;
  port: number;
  user: string;
  password?: string;
  database: string;
  schema: string;
  /** `sslmode=require|verify-full` turns TLS on (verify-full checks the certificate, as does `require` here). */
  ssl: boolean;
  /** The URL with its password masked. */
  display: string;
}

export type StateLocation = { kind: 'file'; path: string; display: string } | PostgresLocation;

const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\//i;
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * The state of `stack`: `given` (the --state flag), else SECRETFORM_STATE, else `.secretform/<stack>.state.json`.
 * `{stack}` in a file path is the stack's name.
 */
export function resolveStateLocation(given: string | undefined, env: NodeJS.ProcessEnv, cwd: string, stack: string): Result<StateLocation> {
  const chosen = chosenStateSetting(given, env);
  if (chosen === undefined) {
    const file = path.join(cwd, '.secretform', `${stack}.state.json`);
    return ok({ kind: 'file', path: file, display: file });
  }
  if (!URL_LIKE.test(chosen)) {
    const file = path.resolve(cwd, chosen.replaceAll(STACK_PLACEHOLDER, stack));
    return ok({ kind: 'file', path: file, display: file });
  }
  return parsePostgresUrl(chosen);
}

/** `--state` if given, else SECRETFORM_STATE, else undefined (the default file per stack). */
export function chosenStateSetting(given: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  if (given !== undefined && given !== '') return given;
  return env[STATE_ENV] !== undefined && env[STATE_ENV] !== '' ? env[STATE_ENV] : undefined;
}

export function isStateUrl(value: string): boolean {
  return URL_LIKE.test(value);
}

export function parsePostgresUrl(text: string): Result<PostgresLocation> {
  const shown = maskPassword(text);
  const bad = (why: string): Result<never> => fail(new EngineError('state_config', `state URL ${shown}: ${why}`));
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return bad('not a valid URL; the form is postgres://USER[:PASSWORD]@HOST[:PORT]/DB[?schema=NAME]');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    return bad(`unsupported scheme "${url.protocol.replace(/:$/, '')}"; state is a file path or a postgres:// URL`);
  }
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (database === '' || database.includes('/')) return bad('name the database: postgres://USER@HOST/DB');
  const user = decodeURIComponent(url.username);
  if (user === '') return bad('name the user: postgres://USER@HOST/DB');
  let schema = DEFAULT_PG_SCHEMA;
  let ssl = false;
  let host = decodeURIComponent(url.hostname.replace(/^\[|\]$/g, ''));
  for (const [name, value] of url.searchParams) {
    if (name === 'schema') {
      if (!IDENTIFIER.test(value)) return bad(`schema "${value}" must be a lower-case identifier (letters, digits, _), e.g. ?schema=secretform`);
      schema = value;
    } else if (name === 'sslmode') {
      if (!['disable', 'require', 'verify-full'].includes(value)) return bad(`sslmode "${value}" is not one of disable, require, verify-full`);
      ssl = value !== 'disable';
    } else if (name === 'host') {
      // A directory: the server's Unix socket (postgres://user@/db?host=/var/run/postgresql).
      host = value;
    } else {
      return bad(`unknown parameter "${name}"; allowed: schema, sslmode, host`);
    }
  }
  if (host === '') return bad('name the host: postgres://USER@HOST[:PORT]/DB (or ?host=/socket/dir)');
  const port = url.port === '' ? 5432 : Number(url.port);
  return ok({
    kind: 'postgres',
    host,
    port,
    user,
    password: url.password === '' ? undefined : decodeURIComponent(url.password),
    database,
    schema,
    ssl,
    display: shown,
  });
}

/** The URL with any password replaced by `***` (also for text that does not parse as a URL). */
export function maskPassword(text: string): string {
  // Up to the last '@': a password with an unencoded '@' or '/' is masked whole (and the host with it).
  return text.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/?#@:]*):.*@/i, '$1:***@');
}
