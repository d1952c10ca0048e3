import * as fs from 'node:fs';
import * as path from 'node:path';
import { inspect } from 'node:util';
import { parseSecretReferenceJson, resolveSecretValue, SecretValue } from '../../src/secret-value';
import { tempDir } from '../support/temp-dir';

describe('SecretValue', () => {
  test('fromEnv and fromFile hold only a reference, synthesized as {"$secret": ...}', () => {
    expect(SecretValue.fromEnv('DB_PASSWORD').reference).toEqual({ env: 'DB_PASSWORD' });
    expect(SecretValue.fromFile('keys/app.pem').reference).toEqual({ file: 'keys/app.pem' });
    expect(JSON.stringify({ password: SecretValue.fromEnv('DB_PASSWORD') })).toBe('{"password":{"$secret":{"env":"DB_PASSWORD"}}}');
    expect(parseSecretReferenceJson({ $secret: { file: 'keys/app.pem' } })).toEqual({ file: 'keys/app.pem' });
    expect(parseSecretReferenceJson({ $secret: { env: 'A', file: 'b' } })).toBeUndefined();
    expect(parseSecretReferenceJson('DB_PASSWORD')).toBeUndefined();
  });

  test('rejects names that are not environment variables and empty paths', () => {
    expect(() => SecretValue.fromEnv('1BAD')).toThrow('SecretValue.fromEnv: "1BAD" is not an environment variable name');
    expect(() => SecretValue.fromEnv('')).toThrow('is not an environment variable name');
    expect(() => SecretValue.fromFile(' ')).toThrow('SecretValue.fromFile: " " is not a file path');
  });

  test('a plain-text value never shows in JSON, strings or inspection', () => {
    const secret = SecretValue.unsafePlainText('s3cr3t-value-123');
    expect(secret.isPlainText).toBe(true);
    expect(secret.reference).toBeUndefined();
    // eslint-disable-next-line @typescript-eslint/restrict-template-expressions -- what a template literal shows is under test
    for (const shown of [JSON.stringify(secret), String(secret), `${secret}`, inspect(secret), inspect({ nested: secret }, { depth: 5, showHidden: true })]) {
      expect(shown).not.toContain('s3cr3t-value-123');
    }
    expect(SecretValue.isSecretValue(secret)).toBe(true);
    expect(SecretValue.isSecretValue({ reference: { env: 'X' } })).toBe(false);
  });

  test('resolves environment variables and files at engine time, naming what is missing', async () => {
    const dir = tempDir('secretform-secret-');
    try {
      fs.writeFileSync(path.join(dir, 'key.txt'), 'file-value\n');
      await expect(resolveSecretValue(SecretValue.fromFile('key.txt'), { cwd: dir })).resolves.toBe('file-value');
      await expect(resolveSecretValue(SecretValue.fromFile(path.join(dir, 'key.txt')))).resolves.toBe('file-value');
      await expect(resolveSecretValue(SecretValue.fromEnv('SF_X'), { env: { SF_X: 'env-value' } })).resolves.toBe('env-value');
      await expect(resolveSecretValue(SecretValue.fromEnv('SF_MISSING'), { env: {} })).rejects.toThrow('secret environment variable SF_MISSING is not set');
      await expect(resolveSecretValue(SecretValue.fromFile('absent.txt'), { cwd: dir })).rejects.toThrow(`cannot read secret file ${path.join(dir, 'absent.txt')}: ENOENT`);
      await expect(resolveSecretValue(SecretValue.unsafePlainText('p'))).resolves.toBe('p');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
