/**
 * `npm run bench -- --synth`: what secretform's constructs cost at synth, against cdktf itself. The bench app
 * (app.ts, transpiled to plain JavaScript like an app compiled before synth) runs as `node app.js` twice per
 * shape and run, alternating: once with secretform's constructs, once with as many plain `terraform_data`
 * resources (BENCH_PLAIN=1, which loads cdktf only, as a plain cdktf app does: not secretform's package), the
 * same node, flags and output directory layout. The two apps take turns at running first, round by round, and
 * each round's ratio is printed under the order it ran in. Each figure is the median of the runs, and the
 * constructs' row is checked against the plain row of the same run (issue 35: <= 1.5x).
 * No service is involved: synth never talks to one.
 */
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import type { BenchArgs, SynthShape } from './args';
import { summariseProfile, summaryText } from './profile-summary';
import { benchProject, runNodeExport as runNode, type Row } from './run';

const RUNS = 3;
/** Issue 35: the app with secretform's constructs <= 1.5x as many plain cdktf resources. */
const TARGET = 1.5;
const ROOT = resolve(__dirname, '..');
const load = () => loadavg().map((l) => l.toFixed(1)).join(', ');

interface Timed {
  code: number | null;
  seconds: number;
  stderr: string;
  peakRssMb: number | undefined;
  cpuSeconds: number | undefined;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function shapeText(shape: SynthShape): string {
  return shape.stacks === 1 ? `1 stack of ${shape.size.toLocaleString('en-US')}` : `${shape.stacks} stacks of ${shape.size.toLocaleString('en-US')}`;
}

/** Each round's wall (CPU) ratio, the rounds where the constructs' app ran first apart from those where plain cdktf did. */
function orderText(ours: Timed[], plain: Timed[]): string {
  const ratio = (i: number) => `${(ours[i].seconds / plain[i].seconds).toFixed(2)}x (CPU ${((ours[i].cpuSeconds ?? 0) / (plain[i].cpuSeconds ?? 1)).toFixed(2)}x)`;
  const rounds = ours.map((_, i) => i);
  const first = (parity: number) => rounds.filter((i) => i % 2 === parity).map(ratio).join(', ') || 'none';
  return `constructs first ${first(0)}; plain first ${first(1)}`;
}

/** The first CPU profile written into `dir`, summarised (where the time went, by package or file). */
function profileNote(dir: string | undefined, what: string): string | undefined {
  if (dir === undefined) return undefined;
  const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
  return file && `${what}: ${summaryText(summariseProfile(join(dir, file), 8))} (${join(dir, file)})`;
}

/** The two rows of one shape: the plain cdktf app (the reference) and the app with secretform's constructs. */
export async function measureSynthShape(shape: SynthShape, args: BenchArgs, notes: string[]): Promise<Row[]> {
  const project = benchProject(shape.size);
  const label = `${shape.size}x${shape.stacks}`;
  const profDir = (variant: string) => {
    if (!args.cpuProfDir) return undefined;
    const dir = resolve(args.cpuProfDir, `synth-${label}-${variant}`);
    mkdirSync(dir, { recursive: true });
    return dir;
  };
  const oursProf = profDir('constructs');
  const plainProf = profDir('plain');
  try {
    const env: NodeJS.ProcessEnv = { BENCH_ROOT: ROOT, BENCH_SIZE: String(shape.size), BENCH_STACKS: String(shape.stacks) };
    for (const name of ['PATH', 'HOME', 'TMPDIR', 'LANG']) if (process.env[name] !== undefined) env[name] = process.env[name];
    const ours: Timed[] = [];
    const plain: Timed[] = [];
    const app = (variant: 'ours' | 'plain', i: number) => {
      if (variant === 'ours') return runNode([join(project, 'app.js')], { ...env, CDKTF_OUTDIR: join(project, 'constructs.out') }, { cwd: project, cpuProfDir: i === 0 ? oursProf : undefined });
      return runNode([join(project, 'app.js')], { ...env, BENCH_PLAIN: '1', CDKTF_OUTDIR: join(project, 'plain.out') }, { cwd: project, cpuProfDir: i === 0 ? plainProf : undefined });
    };
    for (let i = 0; i < RUNS; i++) {
      // Alternating, so that both see the machine in the same phase (its speed drifts over minutes), and each
      // runs first in turn: neither gets the quieter or the busier half of every round.
      for (const variant of i % 2 === 0 ? (['ours', 'plain'] as const) : (['plain', 'ours'] as const)) {
        const run = await app(variant, i);
        (variant === 'ours' ? ours : plain).push(run);
        process.stdout.write(`  ${shapeText(shape)}, ${variant === 'ours' ? 'secretform constructs' : 'plain cdktf'}: ${run.seconds.toFixed(2)} s (CPU ${(run.cpuSeconds ?? 0).toFixed(2)} s, load ${load()})\n`);
      }
    }
    const failed = (runs: Timed[], what: string) => {
      const bad = runs.find((run) => run.code !== 0);
      return bad && `${what} exited ${bad.code}: ${bad.stderr.trim().split('\n').slice(-3).join(' | ').slice(0, 300)}`;
    };
    const summary = (runs: Timed[]) => ({
      seconds: median(runs.map((run) => run.seconds)),
      cpuSeconds: median(runs.map((run) => run.cpuSeconds ?? 0)),
      peakRssMb: Math.max(...runs.map((run) => run.peakRssMb ?? 0)),
    });
    const size = shape.size * shape.stacks;
    const plainRow: Row = { figure: `synth: plain cdktf app, ${shapeText(shape)}`, size, ...summary(plain), note: `reference: as many terraform_data resources; median of ${RUNS}`, failed: failed(plain, 'plain app') };
    const oursRow: Row = { figure: `synth: app with secretform constructs, ${shapeText(shape)}`, size, ...summary(ours), failed: failed(ours, 'app') };
    if (!plainRow.failed && !oursRow.failed) {
      Object.assign(oursRow, { target: TARGET, targetKind: 'reference', referenceSeconds: plainRow.seconds, referenceName: 'the plain cdktf app' });
      oursRow.note = `${(oursRow.seconds! / plainRow.seconds!).toFixed(2)}x the plain cdktf app (CPU ${(oursRow.cpuSeconds! / plainRow.cpuSeconds!).toFixed(2)}x); median of ${RUNS}, alternating`;
      notes.push(`synth ${shapeText(shape)}, each round's ratio by the app that ran first: ${orderText(ours, plain)}`);
    }
    for (const note of [profileNote(oursProf, `profile, constructs, ${shapeText(shape)}`), profileNote(plainProf, `profile, plain cdktf, ${shapeText(shape)}`)]) {
      if (note) notes.push(note);
    }
    return [plainRow, oursRow];
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
}
