/**
 * A credential given to a construct. Only a reference is ever synthesized (`{"$secret": {"env": "NAME"}}` or
 * `{"$secret": {"file": "path"}}`); the engine resolves it at plan/apply time. No method of this class returns
 * the value of a plain-text secret: printing, logging or JSON-serialising one shows only where it comes from.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

const BRAND = Symbol.for('secretform.SecretValue');
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** What a synthesized secret reference holds. */
export type SecretReference = { readonly env: string } | { readonly file: string };

/** Plain-text values live outside the objects, so no serialiser or inspector can reach them. */
const plainTexts = new WeakMap<SecretValue, string>();

export class SecretValue {
  /** A value read from this environment variable when the engine runs (plan/apply), never at synth. */
  static fromEnv(name: string): SecretValue {
    if (typeof name !== 'string' || !ENV_NAME.test(name)) {
      throw new Error(`SecretValue.fromEnv: ${JSON.stringify(name)} is not an environment variable name (letters, digits and "_", not starting with a digit)`);
    }
    return new SecretValue({ env: name });
  }

  /**
   * A value read from this file when the engine runs; a relative path is resolved against the directory the
   * engine runs in (the project directory). One trailing newline is dropped.
   */
  static fromFile(filePath: string): SecretValue {
    if (typeof filePath !== 'string' || filePath.trim() === '') {
      throw new Error(`SecretValue.fromFile: ${JSON.stringify(filePath)} is not a file path`);
    }
    return new SecretValue({ file: filePath });
  }

  /**
   * A value held in memory, for tests and the in-process engine API only: it cannot be synthesized (synth fails
   * naming the construct and field), because the synthesized JSON must never hold a secret.
   */
  static unsafePlainText(value: string): SecretValue {
    if (typeof value !== 'string') throw new Error('SecretValue.unsafePlainText: the value must be a string');
    const secret = new SecretValue(undefined);
    plainTexts.set(secret, value);
    return secret;
  }

  static isSecretValue(value: unknown): value is SecretValue {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }

  /** Rebuilds a value from a synthesized reference. */
  static fromReference(reference: SecretReference): SecretValue {
    return 'env' in reference ? SecretValue.fromEnv(reference.env) : SecretValue.fromFile(reference.file);
  }

  private constructor(private readonly ref: SecretReference | undefined) {
    Object.defineProperty(this, BRAND, { value: true });
  }

  /** The reference to synthesize; undefined for a plain-text value (which cannot be synthesized). */
  get reference(): SecretReference | undefined {
    return this.ref;
  }

  get isPlainText(): boolean {
    return this.ref === undefined;
  }

  /** Where the value comes from, for messages: never the value itself. */
  describe(): string {
    if (!this.ref) return 'SecretValue.unsafePlainText(...)';
    return 'env' in this.ref ? `SecretValue.fromEnv(${JSON.stringify(this.ref.env)})` : `SecretValue.fromFile(${JSON.stringify(this.ref.file)})`;
  }

  toString(): string {
    return this.describe();
  }

  toJSON(): unknown {
    return this.ref ? { $secret: this.ref } : { $secret: 'unsafe-plain-text' };
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return this.describe();
  }
}

export interface ResolveOptions {
  /** Directory relative file paths are resolved against (default: the current directory). */
  readonly cwd?: string;
  /** Environment to read variables from (default: `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** The value of a secret, for the engine. Fails naming the variable or file (never showing a value). */
export async function resolveSecretValue(secret: SecretValue, options: ResolveOptions = {}): Promise<string> {
  const now = resolveWithoutReading(secret, options);
  if (now !== undefined) return now;
  return readSecretFile(secret.reference as { file: string }, options);
}

/**
 * The value of a secret that needs no file read (a variable, a plain text), at once; undefined for a file reference
 * (`resolveSecretValue` reads it). Fails as `resolveSecretValue` does. The engine resolves thousands of variables
 * per run without a promise each.
 */
export function resolveWithoutReading(secret: SecretValue, options: ResolveOptions = {}): string | undefined {
  const reference = secret.reference;
  if (!reference) {
    const value = plainTexts.get(secret);
    if (value === undefined) throw new Error('resolveSecretValue: not a SecretValue');
    return value;
  }
  if ('env' in reference) {
    const value = (options.env ?? process.env)[reference.env];
    if (value === undefined) throw new Error(`secret environment variable ${reference.env} is not set`);
    return value;
  }
  return undefined;
}

async function readSecretFile(reference: { file: string }, options: ResolveOptions): Promise<string> {
  const filePath = path.resolve(options.cwd ?? process.cwd(), reference.file);
  try {
    const text = await fs.readFile(filePath, 'utf8');
    return text.replace(/\r?\n$/, '');
  } catch (error) {
    throw new Error(`cannot read secret file ${filePath}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, { cause: error });
  }
}

/**
 * Prefixes of the variables that configure secretform itself (SERVICE_TOKEN, SERVICE_ADDR, SECRETFORM_STATE_KEY,
 * ...). A stack's secret never comes from one: a reference to one would send the operator's token or the state
 * key to the service as a user's password. Constructs refuse it at synth, the engine at plan and apply.
 */
export const RESERVED_ENV_PREFIXES = ['SERVICE_', 'SECRETFORM_'] as const;

/** Why a reference may not be used for a stack's secret, or undefined when it may. */
export function reservedReferenceProblem(reference: SecretReference | undefined): string | undefined {
  if (reference === undefined || !('env' in reference)) return undefined;
  const name = reference.env.toUpperCase();
  const prefix = RESERVED_ENV_PREFIXES.find((candidate) => name.startsWith(candidate));
  if (prefix === undefined) return undefined;
  return `${reference.env} is a variable of secretform's own (${RESERVED_ENV_PREFIXES.map((p) => `${p}*`).join(', ')}: the service address and token, the state key), never a stack's secret; give the secret a variable of its own`;
}

/** The synthesized form of a secret reference. */
export function secretReferenceJson(reference: SecretReference): { $secret: SecretReference } {
  return { $secret: reference };
}

/** Parses the synthesized form back; undefined when `value` is not one. */
export function parseSecretReferenceJson(value: unknown): SecretReference | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const inner = (value as Record<string, unknown>).$secret;
  if (typeof inner !== 'object' || inner === null) return undefined;
  const record = inner as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.length !== 1) return undefined;
  if (typeof record.env === 'string' && ENV_NAME.test(record.env)) return { env: record.env };
  if (typeof record.file === 'string' && record.file.trim() !== '') return { file: record.file };
  return undefined;
}
