/**
 * Which code the binary runs: the CLI's bundle (scripts/bundle-cli.js) when it is at least as new as the last
 * compile, else the compiled modules, so that a `tsc` run alone never leaves the binary on stale code. Driven on a
 * copy of the real bin/secretform.js beside a dist/ whose two entry points say which one was loaded.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './cli-harness';
import { tempDir } from '../support/temp-dir';

let root: string;
beforeEach(() => {
  root = tempDir('secretform-bundle-choice-');
  mkdirSync(join(root, 'bin'));
  mkdirSync(join(root, 'dist', 'cli'), { recursive: true });
  for (const file of ['secretform.js', 'load-bundle.js', 'v8-flags.js']) copyFileSync(join(ROOT, 'bin', file), join(root, 'bin', file));
  writeFileSync(join(root, 'package.json'), JSON.stringify({ version: '0.0.0-test' }));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** An entry point whose `main` prints `name`. */
function entry(file: string, name: string, modifiedSecondsAgo: number): void {
  const path = join(root, 'dist', ...file.split('/'));
  writeFileSync(path, `exports.main = async () => { process.stdout.write(${JSON.stringify(name)}); return 0; };\n`);
  const when = Date.now() / 1000 - modifiedSecondsAgo;
  utimesSync(path, when, when);
}

function touch(file: string, modifiedSecondsAgo: number): void {
  const path = join(root, 'dist', file);
  writeFileSync(path, '{}');
  const when = Date.now() / 1000 - modifiedSecondsAgo;
  utimesSync(path, when, when);
}

function run(): string {
  const env = { PATH: process.env.PATH, TMPDIR: join(root, 'tmp') };
  mkdirSync(env.TMPDIR, { recursive: true });
  const result = spawnSync(process.execPath, [join(root, 'bin', 'secretform.js'), 'plan'], { encoding: 'utf8', env });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return result.stdout;
}

describe('the binary loads', () => {
  test('the bundle when it was made after the compile', () => {
    entry('cli/main.js', 'modules', 60);
    entry('cli/main.bundle.js', 'bundle', 30);
    touch('.tsbuildinfo', 60);
    expect(run()).toBe('bundle');
  });

  test('the compiled modules when the compile rewrote the entry point after the bundle was made', () => {
    entry('cli/main.bundle.js', 'bundle', 60);
    entry('cli/main.js', 'modules', 30);
    expect(run()).toBe('modules');
  });

  test('the compiled modules when an incremental compile ran after the bundle (entry point untouched)', () => {
    entry('cli/main.js', 'modules', 90);
    entry('cli/main.bundle.js', 'bundle', 60);
    touch('.tsbuildinfo', 30);
    expect(run()).toBe('modules');
  });

  test('the compiled modules when there is no bundle', () => {
    entry('cli/main.js', 'modules', 30);
    expect(run()).toBe('modules');
  });
});
