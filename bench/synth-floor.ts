/**
 * `npx tsx bench/synth-floor.ts [--size N] [--stacks N] [--runs N] [--base DIR] [--overrides]`: how much of the
 * synth ratio (issue 35) is our output format and how much is our constructs' own work.
 *
 * Runs, alternating, in one project directory (bench/app.ts and bench/synth-floor-app.ts transpiled, as `--synth`
 * runs the app): plain cdktf (as many plain resources, the reference), the floor (synth-floor-app.ts: the same
 * `cdk.tf.json` bytes as the constructs, with only the elements cdktf needs and the values precomputed; its
 * reading of them is timed apart and left out), the constructs of this tree's dist/ and, with `--base DIR`, the
 * constructs of another compiled tree (a directory with src/, dist/ and node_modules, as synth-identical.ts
 * makes one). `--overrides` adds one run of the floor setting every value with `addOverride` (cdktf's public
 * way; slow: its per-type list of override keys is merged quadratically).
 *
 * Before timing, the floor's output is compared with the constructs' byte for byte (the digest records beside
 * each `cdk.tf.json` are the constructs' own, not cdktf's, and are left out). Prints each run's CPU (user +
 * system of the app's process) and the medians, with their ratios to plain cdktf.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { DIGEST_RECORD_FILE } from '../src/engine/setup/desired-digest-record';
import { benchProject, median, runNodeExport as runNode } from './run';
import { filesUnder } from './files-under';

const ROOT = resolve(__dirname, '..');

function option(name: string, fallback: string | undefined): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : fallback;
}

const size = Number(option('--size', '10000'));
const stacks = Number(option('--stacks', '1'));
const runs = Number(option('--runs', '3'));
const base = option('--base', undefined);
const withOverrides = process.argv.includes('--overrides');

function transpile(project: string, name: string): void {
  const source = readFileSync(join(__dirname, `${name}.ts`), 'utf8');
  const output = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true } });
  writeFileSync(join(project, `${name}.js`), output.outputText);
}

function sameOutput(expected: string, actual: string): string | undefined {
  const files = filesUnder(expected, (name) => name === DIGEST_RECORD_FILE);
  if (files.join('\n') !== filesUnder(actual, (name) => name === DIGEST_RECORD_FILE).join('\n')) return 'the file lists differ';
  const different = files.find((file) => !readFileSync(join(expected, file)).equals(readFileSync(join(actual, file))));
  return different && `${different} differs`;
}

interface Variant {
  readonly name: string;
  readonly script: string;
  readonly env: NodeJS.ProcessEnv;
}

async function main(): Promise<void> {
  const project = benchProject(size);
  transpile(project, 'synth-floor-app');
  const env: NodeJS.ProcessEnv = { BENCH_ROOT: ROOT, BENCH_SIZE: String(size), BENCH_STACKS: String(stacks) };
  for (const name of ['PATH', 'HOME', 'TMPDIR', 'LANG']) if (process.env[name] !== undefined) env[name] = process.env[name];
  const reference = join(project, 'reference.out');
  try {
    const made = spawnSync(process.execPath, ['app.js'], { cwd: project, env: { ...env, CDKTF_OUTDIR: reference }, encoding: 'utf8' });
    if (made.status !== 0) throw new Error(`the constructs app exited ${made.status}: ${made.stderr}`);
    const floorEnv = (floorMode: string) => ({ ...env, BENCH_FLOOR_REF: reference, BENCH_FLOOR_MODE: floorMode });
    const variants: Variant[] = [
      { name: 'plain cdktf', script: 'app.js', env: { ...env, BENCH_PLAIN: '1' } },
      { name: 'floor (our bytes, cdktf only)', script: 'synth-floor-app.js', env: floorEnv('minimal') },
      { name: 'constructs', script: 'app.js', env },
      ...(base === undefined ? [] : [{ name: `constructs, base ${base}`, script: 'app.js', env: { ...env, BENCH_ROOT: resolve(base) } }]),
    ];
    const checks = withOverrides ? ['minimal', 'overrides'] : ['minimal'];
    for (const floorMode of checks) {
      const out = join(project, `check-${floorMode}.out`);
      const check = spawnSync(process.execPath, ['synth-floor-app.js'], { cwd: project, env: { ...floorEnv(floorMode), CDKTF_OUTDIR: out }, encoding: 'utf8' });
      if (check.status !== 0) throw new Error(`the floor app (${floorMode}) exited ${check.status}: ${check.stderr}`);
      const difference = sameOutput(reference, out);
      if (difference !== undefined) throw new Error(`the floor (${floorMode}) does not write the constructs' bytes: ${difference}`);
      rmSync(out, { recursive: true, force: true });
    }
    process.stdout.write(`${stacks} x ${size}: the floor writes the constructs' bytes (checked); load ${loadavg().map((load) => load.toFixed(1)).join(' ')}\n`);
    const cpu = new Map<string, number[]>(variants.map((variant) => [variant.name, []]));
    const wall = new Map<string, number[]>(variants.map((variant) => [variant.name, []]));
    const timed = async (variant: Variant) => {
      const run = await runNode([variant.script], { ...variant.env, CDKTF_OUTDIR: join(project, 'timed.out') }, { cwd: project });
      rmSync(join(project, 'timed.out'), { recursive: true, force: true });
      if (run.code !== 0) throw new Error(`${variant.name} exited ${run.code}: ${run.stderr}`);
      // The floor's reading of the precomputed values is not cdktf's work.
      const reading = /reading the precomputed values took ([\d.]+) s/.exec(run.stderr);
      return { cpu: run.cpuSeconds! - (reading ? Number(reading[1]) : 0), wall: run.seconds };
    };
    for (let round = 0; round < runs; round++) {
      const line: string[] = [];
      for (const variant of variants) {
        const { cpu: seconds, wall: wallSeconds } = await timed(variant);
        cpu.get(variant.name)!.push(seconds);
        wall.get(variant.name)!.push(wallSeconds);
        line.push(`${variant.name} ${seconds.toFixed(2)}`);
      }
      process.stdout.write(`  round ${round + 1} (load ${loadavg()[0].toFixed(1)}), CPU s: ${line.join(', ')}\n`);
    }
    if (withOverrides) {
      const { cpu: seconds } = await timed({ name: 'floor, addOverride', script: 'synth-floor-app.js', env: floorEnv('overrides') });
      process.stdout.write(`  floor with every value through addOverride (one run): ${seconds.toFixed(2)} s CPU\n`);
    }
    const plain = median(cpu.get('plain cdktf')!);
    for (const variant of variants) {
      const cpuMedian = median(cpu.get(variant.name)!);
      process.stdout.write(`${variant.name}: CPU median ${cpuMedian.toFixed(2)} s (${(cpuMedian / plain).toFixed(2)}x plain), wall median ${median(wall.get(variant.name)!).toFixed(2)} s\n`);
    }
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
