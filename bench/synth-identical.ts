/**
 * `npx tsx bench/synth-identical.ts --base REV [--quick]`: checks that the current code synthesizes exactly the
 * bytes an earlier revision did (a change meant to make synth faster must not change what it writes). The
 * earlier revision's `src/` and `examples/` are exported with `git archive` into a temporary directory and
 * compiled there; then each app runs once against each tree, from the same project directory, and every file of
 * the two output directories is compared byte for byte:
 *
 * - the bench app (bench/app.ts, as `--synth` runs it) at 1 x 10,000 and 100 x 1,000 (`--quick`: 1 x 1,000 and
 *   10 x 100), and at 1 x 1,000 with the `null_resource` bridge;
 * - examples/platform and examples/environments (run with tsx, as their cdktf.json does).
 *
 * Exits 1 naming the first differing file and offset.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { DIGEST_RECORD_FILE } from '../src/engine/setup/desired-digest-record';
import { SPECS_RECORD_FILE } from '../src/engine/setup/desired-specs-record';
import { benchProject } from './run';
import { filesUnder } from './files-under';

const ROOT = resolve(__dirname, '..');
/** What an app needs of a tree (the examples import `../../src`). */
const TREE_PARTS = ['src', 'examples', 'tsconfig.json', 'tsconfig.build.json', 'package.json'];
/** Where each app writes, relative to its project directory. */
const OUTDIR = 'cdktf.out.synth-identical';

interface Case {
  name: string;
  /** The project directory the app runs in, for a tree (the base's or the current one). */
  cwd(tree: string): string;
  /** The command, relative to `cwd`. */
  args: string[];
  env: NodeJS.ProcessEnv;
}

function baseEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of ['PATH', 'HOME', 'TMPDIR', 'LANG']) if (process.env[name] !== undefined) env[name] = process.env[name];
  return env;
}

/** A directory holding the revision's sources, compiled, with this project's node_modules: apps run against it. */
function exportTree(rev: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'secretform-synth-tree-'));
  const archive = execFileSync('git', ['archive', rev, ...TREE_PARTS], { cwd: ROOT, maxBuffer: 1 << 30 });
  execFileSync('tar', ['-x', '-C', dir], { input: archive });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  compile(dir);
  return dir;
}

/** Replaces the tree's sources with the working tree's (committed or not), compiled: same paths, current code. */
function replaceWithCurrent(dir: string): void {
  for (const part of [...TREE_PARTS, 'dist']) rmSync(join(dir, part), { recursive: true, force: true });
  for (const part of TREE_PARTS) cpSync(join(ROOT, part), join(dir, part), { recursive: true });
  compile(dir);
}

function compile(tree: string): void {
  const built = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(tree, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (built.status !== 0) throw new Error(`tsc -p ${tree}/tsconfig.build.json failed`);
}

/** The first difference between two output directories, or undefined when they hold the same bytes. */
function difference(expected: string, actual: string): string | undefined {
  const expectedFiles = filesUnder(expected);
  // The records beside each cdk.tf.json (secretform-digest.json for change detection, secretform-specs.json for
  // a plan's load) are compared when the base writes them too; a base from before one has none of it, and the
  // current ones are left out.
  const isRecord = (file: string) => basename(file) === DIGEST_RECORD_FILE || basename(file) === SPECS_RECORD_FILE;
  const actualFiles = filesUnder(actual).filter((file) => !isRecord(file) || expectedFiles.some((other) => basename(other) === basename(file)));
  if (expectedFiles.join('\n') !== actualFiles.join('\n')) return `files differ: ${expectedFiles.join(', ')} vs ${actualFiles.join(', ')}`;
  for (const file of expectedFiles) {
    // A record keeps its file's identity as synth left it (inode, times): two synths never share it, the rest of
    // the record (the file's size and SHA-256, the digest's hash state) must be the same.
    const read = (dir: string) => (isRecord(file) ? withoutFileIdentity(readFileSync(join(dir, file), 'utf8')) : readFileSync(join(dir, file)));
    const a = read(expected);
    const b = read(actual);
    if (a.equals(b)) continue;
    let at = 0;
    while (at < a.length && at < b.length && a[at] === b[at]) at++;
    const around = (buffer: Buffer) => JSON.stringify(buffer.subarray(Math.max(0, at - 80), at + 80).toString('utf8'));
    return `${file} differs at byte ${at} (${a.length} vs ${b.length} bytes):\n  base:    ${around(a)}\n  current: ${around(b)}`;
  }
  return undefined;
}

/** A digest record's bytes without `file.written` (the identity of the file it describes: inode, times). */
function withoutFileIdentity(text: string): Buffer {
  // The specs record's first line is its version and the file's identity: the rest is compared.
  if (!text.startsWith('{\n')) return Buffer.from(text.slice(text.indexOf('\n') + 1));
  const record = JSON.parse(text) as { file?: { written?: unknown } };
  if (record.file !== undefined) delete record.file.written;
  return Buffer.from(JSON.stringify(record, null, 2));
}

/**
 * Runs the app against `tree` and moves its output to `into`. The app writes to the same directory, relative to
 * its project directory, for both trees: the output path is part of what synth writes (the deploy bridge's
 * command names it).
 */
function run(testCase: Case, tree: string, into: string): void {
  const cwd = testCase.cwd(tree);
  const outdir = join(cwd, OUTDIR);
  rmSync(outdir, { recursive: true, force: true });
  const result = spawnSync(process.execPath, testCase.args, { cwd, env: { ...testCase.env, BENCH_ROOT: tree, CDKTF_OUTDIR: OUTDIR }, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (result.status !== 0) throw new Error(`${testCase.name} against ${tree} exited ${result.status}: ${(result.stderr ?? '').trim().split('\n').slice(-5).join(' | ')}`);
  // Copied, not renamed: the project directory and the comparison's may be on different file systems.
  cpSync(outdir, into, { recursive: true });
  rmSync(outdir, { recursive: true, force: true });
}

function main(): void {
  const argv = process.argv.slice(2);
  const baseAt = argv.indexOf('--base');
  const rev = baseAt >= 0 ? argv[baseAt + 1] : undefined;
  if (rev === undefined) throw new Error('usage: npx tsx bench/synth-identical.ts --base REV [--quick]');
  const quick = argv.includes('--quick');
  process.stdout.write(`compiling ${rev}...\n`);
  // One directory for both trees, one after the other: absolute paths (cdktf's local backend writes one) match.
  const tree = exportTree(rev);
  const tsx = require.resolve('tsx/cli');
  const shapes = quick ? [[1000, 1], [100, 10]] : [[10000, 1], [1000, 100]];
  const cases: Case[] = [];
  const projects: string[] = [];
  const app = (size: number, stacks: number, name: string, extra: NodeJS.ProcessEnv = {}): Case => {
    const project = benchProject(size);
    projects.push(project);
    return { name, cwd: () => project, args: ['app.js'], env: { ...baseEnv(), BENCH_SIZE: String(size), BENCH_STACKS: String(stacks), ...extra } };
  };
  for (const [size, stacks] of shapes) cases.push(app(size, stacks, `bench app ${stacks} x ${size}`));
  // The null_resource bridge (context `secretform:bridge`).
  cases.push(app(1000, 1, 'bench app 1 x 1000, null_resource bridge', { CDKTF_CONTEXT_JSON: JSON.stringify({ 'secretform:bridge': 'null_resource' }) }));
  for (const example of ['platform', 'environments']) {
    cases.push({ name: `examples/${example}`, cwd: (root) => join(root, 'examples', example), args: [tsx, 'main.ts'], env: baseEnv() });
  }
  const out = mkdtempSync(join(tmpdir(), 'secretform-synth-identical-'));
  let failed = false;
  try {
    for (const [index, testCase] of cases.entries()) run(testCase, tree, join(out, `${index}-base`));
    process.stdout.write('compiling the working tree...\n');
    replaceWithCurrent(tree);
    for (const [index, testCase] of cases.entries()) {
      const expected = join(out, `${index}-base`);
      const actual = join(out, `${index}-current`);
      run(testCase, tree, actual);
      const diff = difference(expected, actual);
      const files = filesUnder(actual);
      const bytes = files.reduce((sum, file) => sum + statSync(join(actual, file)).size, 0);
      process.stdout.write(`${diff ? 'DIFFERENT' : 'identical'}: ${testCase.name} (${files.length} files, ${bytes.toLocaleString('en-US')} bytes)${diff ? `\n  ${diff}` : ''}\n`);
      if (diff) failed = true;
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
    rmSync(tree, { recursive: true, force: true });
    for (const project of projects) if (existsSync(project)) rmSync(project, { recursive: true, force: true });
  }
  if (failed) process.exitCode = 1;
}

main();
