/**
 * `npx tsx bench/fleet-ab.ts --fleet-size 8x250 --base DIR [--head DIR] [--runs 3] [--cpu-prof DIR] [--fleet-cache DIR]
 * [--format text|json]`: the fleet's plan of every stack, this checkout's build (or the built checkout `--head DIR`,
 * so that a test rebuilding dist/ meanwhile changes nothing measured) against another build of secretform (DIR: a
 * checkout of the base revision, built with `npm run build`), alternating with the bare
 * client sending the same reads (bench/bare-client.js, one undici Pool per server, 10 in flight each). The servers
 * run in processes of their own; the synth output comes from the fleet's synth cache when it fits
 * (bench/fleet-synth-cache.ts; `npm run bench -- --fleet` fills it), else it is synthesized and kept. One apply
 * (this checkout's), then the runs alternate so that each sees the machine as it is at that moment. Prints the
 * medians, the ratios, the floor and the most requests in flight at each server. Every plan's report (text, or
 * `--format json`) must equal the first one byte for byte (the run fails otherwise), and each run's CPU is split
 * into its main thread's and its other threads' (bench/one-ms-threads.js): V8's compile and GC threads share the
 * 2 cores with the servers. Run `npm run build` first when the head is this checkout's dist/.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { median, ROOT_TOKEN, runNodeExport as runNode, runSecretform } from './run';
import { FLEET_LATENCY_MS, FLEET_SERVERS, parseFleetSize } from './args';
import { occupancyText, perServer } from './fleet';
import { startFleet } from './fleet-setup';
import { defaultFleetCacheDir } from './fleet-synth-cache';

const PARALLELISM = 10;

const load = () => loadavg().map((l) => l.toFixed(1)).join(', ');

function option(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
}

/** The preload that reports a process's main-thread and other-thread CPU (bench/one-ms-threads.js). */
const THREADS_PRELOAD = join(__dirname, 'one-ms-threads.js');

/** CPU seconds of the main thread and of the other threads, from the file the preload wrote; undefined without one. */
function threadSplit(file: string): { main: number; other: number } | undefined {
  if (!existsSync(file)) return undefined;
  const { mainMs, otherMs } = JSON.parse(readFileSync(file, 'utf8')) as { mainMs: number; otherMs: number };
  rmSync(file);
  return { main: mainMs / 1000, other: otherMs / 1000 };
}

interface Run {
  seconds: number;
  cpu: number;
  rss: number;
  main?: number;
  other?: number;
  inFlight: number[];
}

function split(rows: readonly Run[]): string {
  const mains = rows.flatMap((row) => (row.main === undefined ? [] : [row.main]));
  const others = rows.flatMap((row) => (row.other === undefined ? [] : [row.other]));
  return mains.length === 0 ? '' : ` (main thread ${median(mains).toFixed(2)} s, other threads ${median(others).toFixed(2)} s)`;
}

async function main(): Promise<void> {
  const size = parseFleetSize(option('--fleet-size') ?? '8x250');
  const base = option('--base');
  if (base === undefined) throw new Error('--base DIR (a built checkout of the base revision) is required');
  const baseBin = join(resolve(base), 'bin', 'secretform.js');
  const head = option('--head');
  const headBin = head === undefined ? undefined : join(resolve(head), 'bin', 'secretform.js');
  const runs = Number(option('--runs') ?? '3');
  const format = option('--format') ?? 'text';
  if (format !== 'text' && format !== 'json') throw new Error('--format is text or json');
  const cpuProfDir = option('--cpu-prof');
  const cacheDir = resolve(option('--fleet-cache') ?? defaultFleetCacheDir());
  process.stdout.write(`fleet A/B ${size.stacks}x${size.objects} on ${FLEET_SERVERS} servers; load ${load()} on ${cpus().length} cores\n`);
  const fleet = await startFleet(size, cacheDir, (line) => process.stdout.write(`${line}\n`));
  const { servers, project, env } = fleet;
  try {
    process.stdout.write(`synth ${fleet.synth.synth.seconds.toFixed(1)} s (plain cdktf ${fleet.synth.plain.seconds.toFixed(1)} s)${fleet.cached ? ` when cached, ${fleet.synth.measuredAt}` : ''}\n`);
    const applied = await runSecretform(['apply', '--stack', '*', '--no-synth', '--auto-approve'], project, env);
    if (applied.code !== 0) throw new Error(`apply: ${applied.stderr.slice(-2000)}`);
    process.stdout.write(`apply ${applied.seconds.toFixed(1)} s\n`);
    const rows: Record<'head' | 'base' | 'bare', Run[]> = { head: [], base: [], bare: [] };
    let requests: number[] = [];
    const threadsDir = mkdtempSync(join(tmpdir(), 'secretform-bench-fleet-threads-'));
    const threadsFile = join(threadsDir, 'threads.json');
    // Every measured process reports its threads' CPU through the preload (NODE_OPTIONS reaches each of them).
    const measured = { NODE_OPTIONS: `--require ${JSON.stringify(THREADS_PRELOAD)}`, BENCH_THREADS_FILE: threadsFile };
    const runEnv = { ...env, ...measured };
    let reference: string | undefined;
    for (let i = 0; i < runs; i++) {
      // Both orders of head and base, so that neither always runs first while the machine's load rises or falls
      // (one order throughout made base look faster at every pair of a run whose load fell from 6 to 2).
      for (const which of i % 2 === 0 ? (['head', 'base'] as const) : (['base', 'head'] as const)) {
        const args = ['plan', '--stack', '*', '--no-synth', '--format', format];
        const profile = cpuProfDir === undefined ? {} : { cpuProfDir: join(cpuProfDir, which) };
        const bin = which === 'head' ? headBin : baseBin;
        const planned = await perServer(servers, () => (bin === undefined ? runSecretform(args, project, runEnv, profile) : runNode([bin, ...args], runEnv, { cwd: project, ...profile })));
        const threads = threadSplit(threadsFile);
        // A text report says so; a JSON report is compared with the first one below.
        const noChanges = format === 'json' || /No changes/.test(planned.result.stdout);
        if (planned.result.code !== 0 || !noChanges) throw new Error(`${which} plan: ${planned.result.stderr.slice(-2000)}`);
        reference ??= planned.result.stdout;
        if (planned.result.stdout !== reference) {
          const kept = mkdtempSync(join(tmpdir(), 'secretform-bench-fleet-differs-'));
          writeFileSync(join(kept, `${which}.out`), planned.result.stdout);
          writeFileSync(join(kept, 'reference.out'), reference);
          throw new Error(`${which}'s plan report differs from the first plan's (both kept in ${kept})`);
        }
        const run: Run = { seconds: planned.result.seconds, cpu: planned.result.cpuSeconds ?? 0, rss: planned.result.peakRssMb ?? 0, main: threads?.main, other: threads?.other, inFlight: planned.maxInFlight };
        rows[which].push(run);
        requests = planned.requests;
        process.stdout.write(`${which} plan ${run.seconds.toFixed(2)} s (CPU ${run.cpu.toFixed(2)} s${split([run])}, RSS ${run.rss.toFixed(0)} MB), in flight at most ${planned.maxInFlight.join('/')}, ${occupancyText(planned.occupancy)} (load ${load()})\n`);
      }
      const dir = mkdtempSync(join(tmpdir(), 'secretform-bench-fleet-reads-'));
      const readsFile = join(dir, 'reads.json');
      writeFileSync(readsFile, JSON.stringify({ servers: await Promise.all(servers.map(async (server, s) => ({ url: server.url, parallelism: PARALLELISM, reads: await server.lastRequests(requests[s]) }))) }));
      const bareProfile = cpuProfDir === undefined ? {} : { cpuProfDir: join(cpuProfDir, 'bare') };
      const bare = await perServer(servers, () => runNode([join(__dirname, 'bare-client.js'), readsFile], { PATH: process.env.PATH, SERVICE_TOKEN: ROOT_TOKEN, ...measured }, bareProfile));
      const bareThreads = threadSplit(threadsFile);
      rmSync(dir, { recursive: true, force: true });
      const bareRun: Run = { seconds: bare.result.seconds, cpu: bare.result.cpuSeconds ?? 0, rss: bare.result.peakRssMb ?? 0, main: bareThreads?.main, other: bareThreads?.other, inFlight: bare.maxInFlight };
      rows.bare.push(bareRun);
      process.stdout.write(`bare ${bareRun.seconds.toFixed(2)} s (CPU ${bareRun.cpu.toFixed(2)} s${split([bareRun])}), ${occupancyText(bare.occupancy)} (load ${load()})\n`);
    }
    const floor = (Math.max(...requests) * FLEET_LATENCY_MS) / PARALLELISM / 1000;
    const bare = median(rows.bare.map((row) => row.seconds));
    for (const which of ['head', 'base', 'bare'] as const) {
      const seconds = median(rows[which].map((row) => row.seconds));
      process.stdout.write(`${which.padEnd(5)} median ${seconds.toFixed(2)} s, CPU ${median(rows[which].map((row) => row.cpu)).toFixed(2)} s${split(rows[which])}, RSS ${median(rows[which].map((row) => row.rss)).toFixed(0)} MB, ${(seconds / bare).toFixed(2)}x the bare client, ${(seconds / floor).toFixed(2)}x the floor (${floor.toFixed(2)} s); most in flight ${Math.max(...rows[which].flatMap((row) => row.inFlight))}\n`);
    }
    process.stdout.write(`reads per server ${requests.join(' / ')}; plan ${format} report identical in all ${runs * 2} plans (${reference!.length} bytes); load at the end ${load()}\n`);
    rmSync(threadsDir, { recursive: true, force: true });
  } finally {
    await fleet.close();
  }
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
