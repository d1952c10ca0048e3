/**
 * The two passes of the suite (`npm test` and `npm run test:integration`, see test/integration-tests.js) run
 * every test file exactly once between them: a file listed for the integration pass that no longer exists, or a
 * pattern that stops matching, would drop tests from CI without a word.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const integration = require('../integration-tests') as string[];

function listTests(config: string): string[] {
  const result = spawnSync(process.execPath, [require.resolve('jest/bin/jest'), '--config', config, '--listTests'], { cwd: ROOT, encoding: 'utf8' });
  expect(result.status).toBe(0);
  return result.stdout
    .split('\n')
    .filter((line) => line.endsWith('.test.ts'))
    .map((line) => path.relative(ROOT, line))
    .sort();
}

function allTestFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) return allTestFiles(relative);
    return entry.name.endsWith('.test.ts') ? [relative] : [];
  });
}

test('every file of the integration list exists, once', () => {
  for (const file of integration) expect(fs.existsSync(path.join(ROOT, file))).toBe(true);
  expect(new Set(integration).size).toBe(integration.length);
});

test('npm test and the integration pass split the test files between them, each file in exactly one', () => {
  const main = listTests('jest.main.config.js');
  const second = listTests('jest.integration.config.js');
  expect(second).toEqual([...integration].sort());
  expect(main.filter((file) => second.includes(file))).toEqual([]);
  expect([...main, ...second].sort()).toEqual(allTestFiles('test').sort());
});
