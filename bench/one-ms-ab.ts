/**
 * `npx tsx bench/one-ms-ab.ts --base DIR [--head DIR] [--size 10000] [--runs 5] [--cpu-prof DIR]`: the 1 ms row
 * (bench/one-ms.ts: JSON report, SECRETFORM_STATE_KEY set, parallelism 10, the dev server in a process of its own)
 * for this checkout's build against another build of secretform (DIR: a checkout of the base revision, built with
 * `npm run build`), alternating base, head and the bare client so that each sees the machine as it is at that
 * moment (`--head DIR`: another built checkout as the head, e.g. a copy of this one, so that tests rebuilding
 * this checkout's dist/ meanwhile do not change what is measured). One synth and one apply (this checkout's),
 * then the runs. Every plan's JSON report is compared with the
 * first base plan's, byte for byte: a change that alters the output shows here as a failure, not as a speed-up.
 * Prints each run and the medians of wall and CPU (and, on Linux, the CPU and minor page faults of each process's main
 * thread apart from its other threads: bench/one-ms-threads.js), with the load before and after. On a loaded machine
 * the fault counts are the steadiest figure: they do not move with the load, and each fault costs CPU. Run `npm run build` first: the
 * head build is this checkout's dist/.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { seedFor } from './mix';
import { planReads } from './one-ms';
import { benchProject, defaultEnv, median, ROOT_TOKEN, runNodeExport as runNode, runSecretform, type CliRun } from './run';
import { startServerProcess } from './server-process';

const LATENCY_MS = 1;
const PARALLELISM = 10;

function option(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
}

const load = () => loadavg().map((l) => l.toFixed(1)).join(', ');

/** The preload that reports a process's main-thread and other-thread CPU and page faults (bench/one-ms-threads.js). */
const THREADS_PRELOAD = join(__dirname, 'one-ms-threads.js');

/** What the preload wrote of one process's threads: CPU seconds and minor page faults of its main thread and of the others. */
interface ThreadSplit {
  main: number;
  other: number;
  mainFaults: number;
  otherFaults: number;
}

/** The thread split from the file the preload wrote; undefined without one. */
function threadSplit(file: string): ThreadSplit | undefined {
  if (!existsSync(file)) return undefined;
  const written = JSON.parse(readFileSync(file, 'utf8')) as { mainMs: number; otherMs: number; mainFaults: number; otherFaults: number };
  rmSync(file);
  return { main: written.mainMs / 1000, other: written.otherMs / 1000, mainFaults: written.mainFaults, otherFaults: written.otherFaults };
}

/** A thread split as a run's line shows it. */
function splitText(split: ThreadSplit): string {
  return `main thread ${split.main.toFixed(2)} s, other threads ${split.other.toFixed(2)} s; page faults main ${Math.round(split.mainFaults)}, others ${Math.round(split.otherFaults)}`;
}

async function main(): Promise<void> {
  const base = option('--base');
  if (base === undefined) throw new Error('--base DIR (a built checkout of the base revision) is required');
  const baseBin = join(resolve(base), 'bin', 'secretform.js');
  const head = option('--head');
  const headBin = head === undefined ? undefined : join(resolve(head), 'bin', 'secretform.js');
  const size = Number(option('--size') ?? '10000');
  const runs = Number(option('--runs') ?? '5');
  const cpuProfDir = option('--cpu-prof');
  process.stdout.write(`1 ms A/B at ${size} objects; load ${load()} on ${cpus().length} cores\n`);
  const project = benchProject(size);
  const dir = mkdtempSync(join(tmpdir(), 'secretform-bench-one-ms-ab-'));
  const seedFile = join(dir, 'seed.json');
  writeFileSync(seedFile, JSON.stringify(seedFor(size)));
  const server = await startServerProcess(['--no-defaults', '--seed', seedFile, '--latency-ms', String(LATENCY_MS), '--root-token', ROOT_TOKEN]);
  try {
    const env = { ...defaultEnv({ url: server.url }, size), SECRETFORM_STATE_KEY: 'bench-one-ms-state-key' };
    const synth = await runSecretform(['synth', '--synth-env', 'BENCH_ROOT', '--synth-env', 'BENCH_SIZE', '--synth-env', 'BENCH_STACK'], project, env);
    if (synth.code !== 0) throw new Error(`synth: ${synth.stderr.slice(-2000)}`);
    const statePath = join(project, 'one-ms.state.json');
    const applied = await runSecretform(['apply', '--no-synth', '--auto-approve', '--state', statePath], project, env);
    if (applied.code !== 0) throw new Error(`apply: ${applied.stderr.slice(-2000)}`);
    const readsFile = join(dir, 'reads.json');
    const reads = planReads(join(project, 'cdktf.out'), 'bench');
    writeFileSync(readsFile, JSON.stringify({ url: server.url, parallelism: PARALLELISM, reads }));
    process.stdout.write(`synth ${synth.seconds.toFixed(1)} s, apply ${applied.seconds.toFixed(1)} s, ${reads.length} reads\n`);

    const args = ['plan', '--no-synth', '--format', 'json', '--state', statePath];
    const rows: Record<'base' | 'head' | 'bare', { seconds: number; cpu: number; server: number; threads?: ThreadSplit }[]> = { base: [], head: [], bare: [] };
    // Every measured process reports its threads' CPU through the preload (NODE_OPTIONS reaches each of them).
    const threadsFile = join(dir, 'threads.json');
    const measuredEnv = { NODE_OPTIONS: `--require ${JSON.stringify(THREADS_PRELOAD)}`, BENCH_THREADS_FILE: threadsFile };
    let reference: string | undefined;
    for (let i = 0; i < runs; i++) {
      // Both orders of base and head, so that neither always runs right after the bare client.
      const order = i % 2 === 0 ? (['base', 'head', 'bare'] as const) : (['head', 'base', 'bare'] as const);
      for (const which of order) {
        const profile = cpuProfDir === undefined ? {} : { cpuProfDir: join(cpuProfDir, which) };
        const before = server.cpuSeconds() ?? 0;
        let run: CliRun;
        const runEnv = { ...env, ...measuredEnv };
        if (which === 'bare') run = await runNode([join(__dirname, 'bare-client.js'), readsFile], { PATH: process.env.PATH, SERVICE_TOKEN: ROOT_TOKEN, ...measuredEnv }, profile);
        else if (which === 'head') run = headBin === undefined ? await runSecretform(args, project, runEnv, profile) : await runNode([headBin, ...args], runEnv, { cwd: project, ...profile });
        else run = await runNode([baseBin, ...args], runEnv, { cwd: project, ...profile });
        const threads = threadSplit(threadsFile);
        const serverCpu = (server.cpuSeconds() ?? 0) - before;
        if (run.code !== 0) throw new Error(`${which}: exit ${run.code}: ${run.stderr.slice(-2000)}`);
        if (which !== 'bare') {
          reference ??= run.stdout;
          if (run.stdout !== reference) {
            const kept = mkdtempSync(join(tmpdir(), 'secretform-bench-one-ms-differs-'));
            writeFileSync(join(kept, `${which}.json`), run.stdout);
            writeFileSync(join(kept, 'reference.json'), reference);
            throw new Error(`${which}'s plan JSON differs from the first plan's (both kept in ${kept})`);
          }
        }
        rows[which].push({ seconds: run.seconds, cpu: run.cpuSeconds ?? 0, server: serverCpu, threads });
        const split = threads === undefined ? '' : ` (${splitText(threads)})`;
        process.stdout.write(`${which.padEnd(4)} ${run.seconds.toFixed(2)} s, CPU ${(run.cpuSeconds ?? 0).toFixed(2)} s${split}, server CPU ${serverCpu.toFixed(2)} s (load ${load()})\n`);
      }
    }
    const bare = median(rows.bare.map((row) => row.seconds));
    for (const which of ['base', 'head', 'bare'] as const) {
      const seconds = median(rows[which].map((row) => row.seconds));
      const cpu = median(rows[which].map((row) => row.cpu));
      const serverCpu = median(rows[which].map((row) => row.server));
      const splits = rows[which].flatMap((row) => (row.threads === undefined ? [] : [row.threads]));
      const medianOf = (part: keyof ThreadSplit) => median(splits.map((split) => split[part]));
      const split = splits.length === 0 ? '' : ` (${splitText({ main: medianOf('main'), other: medianOf('other'), mainFaults: medianOf('mainFaults'), otherFaults: medianOf('otherFaults') })})`;
      process.stdout.write(`${which.padEnd(4)} median ${seconds.toFixed(2)} s, CPU ${cpu.toFixed(2)} s${split}, server CPU ${serverCpu.toFixed(2)} s, ${(seconds / bare).toFixed(2)}x the bare client\n`);
    }
    process.stdout.write(`plan JSON identical in all ${runs * 2} plans (${reference!.length} bytes); load at the end ${load()}\n`);
  } finally {
    process.stdout.write(`${await server.close()}\n`);
    rmSync(project, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
