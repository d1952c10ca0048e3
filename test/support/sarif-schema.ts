/**
 * The published OASIS SARIF 2.1.0 schema (test/fixtures/sarif, a JSON Schema draft-04 document), compiled once:
 * what every SARIF file secretform writes must satisfy, so code scanning accepts it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv-draft-04';
import addFormats from 'ajv-formats';

let compiled: ValidateFunction | undefined;

/** The schema's complaints about `log`; empty when it is valid SARIF 2.1.0. */
export function sarifSchemaErrors(log: unknown): ErrorObject[] {
  if (compiled === undefined) {
    const schema = JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', 'sarif', 'sarif-schema-2.1.0.json'), 'utf8')) as object;
    compiled = addFormats(new Ajv({ allErrors: true, strict: false })).compile(schema);
  }
  return compiled(log) ? [] : [...(compiled.errors ?? [])];
}
