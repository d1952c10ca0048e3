/**
 * `npx tsx bench/fleet-ab.ts --fleet-size 8x250 --base DIR [--runs 3] [--cpu-prof DIR] [--fleet-cache DIR]`: the
 * fleet's plan of every stack, this checkout's build against another build of secretform (DIR: a checkout of the
 * base revision, built with `tsc -p tsconfig.build.json` and `scripts/bundle-cli.js`), alternating with the bare
 * client sending the same reads (bench/bare-client.js, one undici Pool per server, 10 in flight each). The servers
 * run in processes of their own; the synth output comes from the fleet's synth cache when it fits
 * (bench/fleet-synth-cache.ts; `npm run bench -- --fleet` fills it), else it is synthesized and kept. One apply
 * (this checkout's), then the runs alternate so that each sees the machine as it is at that moment. Prints the
 * medians, the ratios, the floor and the most requests in flight at each server. Run `npm run build` first: the
 * head build is this checkout's dist/.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { median, ROOT_TOKEN, runNodeExport as runNode, runSecretform } from './run';
import { FLEET_LATENCY_MS, FLEET_SERVERS, parseFleetSize } from './args';
import { perServer } from './fleet';
import { startFleet } from './fleet-setup';
import { defaultFleetCacheDir } from './fleet-synth-cache';

const PARALLELISM = 10;

const load = () => loadavg().map((l) => l.toFixed(1)).join(', ');

function option(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
}

async function main(): Promise<void> {
  const size = parseFleetSize(option('--fleet-size') ?? '8x250');
  const base = option('--base');
  if (base === undefined) throw new Error('--base DIR (a built checkout of the base revision) is required');
  const baseBin = join(resolve(base), 'bin', 'secretform.js');
  const runs = Number(option('--runs') ?? '3');
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
    const rows: Record<'head' | 'base' | 'bare', { seconds: number; cpu: number; inFlight: number[] }[]> = { head: [], base: [], bare: [] };
    let requests: number[] = [];
    for (let i = 0; i < runs; i++) {
      // Both orders of head and base, so that neither always runs first while the machine's load rises or falls
      // (one order throughout made base look faster at every pair of a run whose load fell from 6 to 2).
      for (const which of i % 2 === 0 ? (['head', 'base'] as const) : (['base', 'head'] as const)) {
        const args = ['plan', '--stack', '*', '--no-synth'];
        const profile = cpuProfDir === undefined || i > 0 ? {} : { cpuProfDir: join(cpuProfDir, which) };
        const planned = await perServer(servers, () => (which === 'head' ? runSecretform(args, project, env, profile) : runNode([baseBin, ...args], env, { cwd: project, ...profile })));
        if (planned.result.code !== 0 || !/No changes/.test(planned.result.stdout)) throw new Error(`${which} plan: ${planned.result.stderr.slice(-2000)}`);
        rows[which].push({ seconds: planned.result.seconds, cpu: planned.result.cpuSeconds ?? 0, inFlight: planned.maxInFlight });
        requests = planned.requests;
        process.stdout.write(`${which} plan ${planned.result.seconds.toFixed(2)} s (CPU ${(planned.result.cpuSeconds ?? 0).toFixed(2)} s, RSS ${(planned.result.peakRssMb ?? 0).toFixed(0)} MB), in flight ${planned.maxInFlight.join('/')} (load ${load()})\n`);
      }
      const dir = mkdtempSync(join(tmpdir(), 'secretform-bench-fleet-reads-'));
      const readsFile = join(dir, 'reads.json');
      writeFileSync(readsFile, JSON.stringify({ servers: await Promise.all(servers.map(async (server, s) => ({ url: server.url, parallelism: PARALLELISM, reads: await server.lastRequests(requests[s]) }))) }));
      const bare = await perServer(servers, () => runNode([join(__dirname, 'bare-client.js'), readsFile], { PATH: process.env.PATH, SERVICE_TOKEN: ROOT_TOKEN }));
      rmSync(dir, { recursive: true, force: true });
      rows.bare.push({ seconds: bare.result.seconds, cpu: bare.result.cpuSeconds ?? 0, inFlight: bare.maxInFlight });
      process.stdout.write(`bare ${bare.result.seconds.toFixed(2)} s (CPU ${(bare.result.cpuSeconds ?? 0).toFixed(2)} s) (load ${load()})\n`);
    }
    const floor = (Math.max(...requests) * FLEET_LATENCY_MS) / PARALLELISM / 1000;
    const bare = median(rows.bare.map((row) => row.seconds));
    for (const which of ['head', 'base', 'bare'] as const) {
      const seconds = median(rows[which].map((row) => row.seconds));
      process.stdout.write(`${which.padEnd(5)} median ${seconds.toFixed(2)} s, CPU ${median(rows[which].map((row) => row.cpu)).toFixed(2)} s, ${(seconds / bare).toFixed(2)}x the bare client, ${(seconds / floor).toFixed(2)}x the floor (${floor.toFixed(2)} s); most in flight ${Math.max(...rows[which].flatMap((row) => row.inFlight))}\n`);
    }
    process.stdout.write(`reads per server ${requests.join(' / ')}; load at the end ${load()}\n`);
  } finally {
    await fleet.close();
  }
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
