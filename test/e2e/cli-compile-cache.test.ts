/**
 * The code cache bin/load-bundle.js keeps of the CLI's bundle: made at the end of a command's first run, used by its
 * next runs, never trusted when it is not the user's own or not made from this very bundle, and never in the way
 * of a run. Driven on a copy of the real bin/ and bundle (so that the bundle can be changed), with TMPDIR pointing
 * at a directory of the test's own; SECRETFORM_DEBUG_COMPILE_CACHE=1 makes the binary say what it did.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './cli-harness';
import { tempDir } from '../support/temp-dir';

let root: string;
let temporary: string;
let cacheDir: string;
beforeAll(() => {
  root = tempDir('secretform-compile-cache-test-');
  mkdirSync(join(root, 'bin'));
  for (const file of ['secretform.js', 'load-bundle.js', 'v8-flags.js']) copyFileSync(join(ROOT, 'bin', file), join(root, 'bin', file));
  // The bundle and the module it requires from dist/ for every command (scripts/bundle-cli.js's externals).
  for (const file of ['cli/main.bundle.js', 'policy/native-import.js']) {
    mkdirSync(join(root, 'dist', file, '..'), { recursive: true });
    copyFileSync(join(ROOT, 'dist', file), join(root, 'dist', file));
  }
  copyFileSync(join(ROOT, 'package.json'), join(root, 'package.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'), 'dir');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));
beforeEach(() => {
  temporary = join(root, 'tmp');
  rmSync(temporary, { recursive: true, force: true });
  mkdirSync(temporary);
  cacheDir = join(temporary, `secretform-compile-cache-${process.getuid!()}`);
});

/** Runs `secretform <command> --help` and returns what the binary said of its cache. */
function run(command: string, env: Record<string, string> = {}): string {
  const result = spawnSync(process.execPath, [join(root, 'bin', 'secretform.js'), command, '--help'], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, TMPDIR: temporary, SECRETFORM_DEBUG_COMPILE_CACHE: '1', ...env },
  });
  expect(result.status).toBe(0);
  expect(result.stdout).toContain(`Usage: secretform ${command}`);
  const said = /^secretform: compile cache (.*)$/m.exec(result.stderr);
  expect(said).not.toBeNull();
  return said![1];
}

/** A cache file's parts: the line naming the bundle, the checksum line, the data V8 made. */
function cacheParts(content: Buffer): { header: Buffer; checksum: string; data: Buffer } {
  const identityEnd = content.indexOf(0x0a) + 1;
  const checksumEnd = content.indexOf(0x0a, identityEnd) + 1;
  return { header: content.subarray(0, identityEnd), checksum: content.subarray(identityEnd, checksumEnd).toString('latin1'), data: content.subarray(checksumEnd) };
}

const sha256 = (data: Buffer): string => `sha256:${createHash('sha256').update(data).digest('hex')}`;

function cacheFiles(): string[] {
  return readdirSync(cacheDir).sort();
}

describe('the compile cache of the CLI bundle', () => {
  test('is written by the first run of a command and used by the next', () => {
    expect(run('plan')).toBe('miss');
    expect(cacheFiles()).toEqual([expect.stringMatching(/^plan-v\d+\.\d+\.\d+-\w+-[0-9a-f]{8}\.bin$/)]);
    expect(statSync(cacheDir).mode & 0o777).toBe(0o700);
    expect(statSync(join(cacheDir, cacheFiles()[0])).mode & 0o777).toBe(0o600);
    expect(run('plan')).toBe('hit');
    expect(run('plan')).toBe('hit');
  });

  test('is kept per command: another command makes its own', () => {
    expect(run('plan')).toBe('miss');
    expect(run('graph')).toBe('miss');
    expect(cacheFiles()).toHaveLength(2);
    expect(run('graph')).toBe('hit');
  });

  test('that V8 rejects is written again, and the run goes on as without one', () => {
    expect(run('plan')).toBe('miss');
    const file = join(cacheDir, cacheFiles()[0]);
    const { header, data } = cacheParts(readFileSync(file));
    // Data V8 rejects, with its checksum: what the checksum cannot catch (a cache from another V8) reaches V8.
    const rejected = Buffer.alloc(data.length, 0x5a);
    writeFileSync(file, Buffer.concat([header, Buffer.from(`${sha256(rejected)}\n`), rejected]));
    expect(run('plan')).toBe('rejected');
    expect(run('plan')).toBe('hit');
  });

  describe('damaged on disk (its data no longer matches its checksum) is never given to V8: compiled afresh and written again', () => {
    test.each<[string, (data: Buffer) => Buffer]>([
      // V8 takes such data (its length and header hold) and crashed the process with SIGSEGV: exit 139.
      ['its data zeroed past byte 4,096, its length kept', (data) => Buffer.concat([data.subarray(0, 4096), Buffer.alloc(data.length - 4096)])],
      // Exit 133 (SIGTRAP) before the checksum.
      ['random bits flipped in its data', (data) => {
        const flipped = Buffer.from(data);
        for (let i = 0; i < 64; i++) {
          const at = 64 + Math.floor(Math.random() * (flipped.length - 64));
          flipped[at] ^= 1 << Math.floor(Math.random() * 8);
        }
        return flipped;
      }],
      ['its data cut short', (data) => data.subarray(0, data.length >> 1)],
      ['its checksum line missing', (data) => data],
    ])('%s', (name, damage) => {
      expect(run('plan')).toBe('miss');
      const file = join(cacheDir, cacheFiles()[0]);
      const { header, checksum, data } = cacheParts(readFileSync(file));
      expect(checksum).toBe(`${sha256(data)}\n`);
      const damaged = name === 'its checksum line missing' ? Buffer.concat([header, data]) : Buffer.concat([header, Buffer.from(checksum), damage(data)]);
      writeFileSync(file, damaged);
      expect(run('plan')).toBe('damaged');
      expect(run('plan')).toBe('hit');
    });
  });

  test('is flushed to disk (fsync) before it is renamed into place', () => {
    const log = join(root, 'fs-writes.log');
    rmSync(log, { force: true });
    expect(run('plan', { NODE_OPTIONS: `--require ${join(ROOT, 'test', 'support', 'record-fs-writes.cjs')}`, SF_RECORD_FS_WRITES: log })).toBe('miss');
    const file = join(cacheDir, cacheFiles()[0]);
    const calls = readFileSync(log, 'utf8').trim().split('\n');
    const renamed = calls.findIndex((call) => call.startsWith('rename ') && call.endsWith(` ${file}`));
    expect(renamed).toBeGreaterThanOrEqual(0);
    const temporaryFile = calls[renamed].slice('rename '.length, -(file.length + 1));
    expect(temporaryFile).not.toBe(file);
    expect(calls.slice(0, renamed)).toContain(`fsync ${temporaryFile}`);
  });

  test('made from another build of the bundle is not used', () => {
    expect(run('plan')).toBe('miss');
    const bundle = join(root, 'dist', 'cli', 'main.bundle.js');
    const later = Date.now() / 1000 + 5;
    utimesSync(bundle, later, later);
    expect(run('plan')).toBe('miss');
    expect(run('plan')).toBe('hit');
  });

  test('is not used in a directory others may write to', () => {
    mkdirSync(cacheDir, { mode: 0o700 });
    chmodSync(cacheDir, 0o777);
    expect(run('plan')).toBe(`off (others may write to ${cacheDir})`);
    expect(cacheFiles()).toEqual([]);
  });

  test('is not used when its directory is a link to somewhere else', () => {
    const elsewhere = join(temporary, 'elsewhere');
    mkdirSync(elsewhere, { mode: 0o700 });
    symlinkSync(elsewhere, cacheDir, 'dir');
    expect(run('plan')).toBe(`off (${cacheDir} is not a directory)`);
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  test('is off with NODE_DISABLE_COMPILE_CACHE=1, as node\'s own', () => {
    expect(run('plan', { NODE_DISABLE_COMPILE_CACHE: '1' })).toBe('off (NODE_DISABLE_COMPILE_CACHE=1)');
    expect(readdirSync(temporary)).toEqual([]);
  });
});
