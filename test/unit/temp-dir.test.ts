/**
 * The temporary directories a test file makes with tempDir (test/support/temp-dir.ts) are gone when the file
 * ends, those made as it loads and those made in a test, also when the test failed: a jest of its own runs
 * test/fixtures/temp-dir/makes-dirs.fixture.ts with this repository's test environment and transform.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tempDir } from '../support/temp-dir';

const ROOT = resolve(__dirname, '../..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const base = require('../../jest.config') as { testEnvironment: string; transform: Record<string, unknown> };

test('a failing file\'s temporary directories are removed when it ends', () => {
  const record = join(tempDir('secretform-temp-dir-record-'), 'made.txt');
  const config = { rootDir: ROOT, roots: ['<rootDir>/test/fixtures/temp-dir'], testMatch: ['**/*.fixture.ts'], testEnvironment: base.testEnvironment, transform: base.transform };
  const run = spawnSync(process.execPath, [require.resolve('jest/bin/jest'), '--config', JSON.stringify(config), '--ci'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, TEMP_DIR_RECORD: record },
  });
  expect(run.stderr).toContain('this test fails on purpose');
  expect(run.status).toBe(1);
  const made = readFileSync(record, 'utf8').trim().split('\n');
  expect(made).toHaveLength(2);
  expect(made.filter((dir) => existsSync(dir))).toEqual([]);
});
