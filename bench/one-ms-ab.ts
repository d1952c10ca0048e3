/**
 * `npx tsx bench/one-ms-ab.ts --base DIR [--size 10000] [--runs 5] [--cpu-prof DIR]`: the 1 ms row (bench/one-ms.ts:
 * JSON report, state key set, parallelism 10, the dev server in a process of its own) with this checkout's build
 * against another build of secretform (DIR: a checkout of the base revision, built), alternating with the bare
 * client sending the same reads. One synth and one apply (this checkout's), then head, base and bare client in
 * turn, so each sees the machine as it is at that moment. Prints every run and the medians of wall and CPU (the
 * figure that compares on a shared machine), and checks that both plans printed the same JSON report.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { seedFor } from './mix';
import { planReads } from './one-ms';
import { benchProject, defaultEnv, median, ROOT_TOKEN, runNodeExport as runNode, runSecretform, type CliRun } from './run';
import { startServerProcess } from './server-process';

function option(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
}

async function main(): Promise<void> {
  const base = option('--base');
  if (base === undefined) throw new Error('--base DIR (a built checkout of the base revision) is required');
  const baseBin = join(resolve(base), 'bin', 'secretform.js');
  const size = Number(option('--size') ?? '10000');
  const runs = Number(option('--runs') ?? '5');
  const cpuProfDir = option('--cpu-prof');
  const load = (): string => loadavg().map((l) => l.toFixed(1)).join(', ');
  process.stdout.write(`1 ms A/B at ${size}; load ${load()} on ${cpus().length} cores\n`);
  const dir = mkdtempSync(join(tmpdir(), 'secretform-bench-one-ms-ab-'));
  const project = benchProject(size);
  const seedFile = join(dir, 'seed.json');
  writeFileSync(seedFile, JSON.stringify(seedFor(size)));
  const server = await startServerProcess(['--no-defaults', '--seed', seedFile, '--latency-ms', '1', '--root-token', ROOT_TOKEN]);
  try {
    const env = { ...defaultEnv({ url: server.url }, size), SECRETFORM_STATE_KEY: 'bench-one-ms-state-key' };
    const synth = await runSecretform(['synth', '--synth-env', 'BENCH_ROOT', '--synth-env', 'BENCH_SIZE', '--synth-env', 'BENCH_STACK'], project, env);
    if (synth.code !== 0) throw new Error(`synth: ${synth.stderr.slice(-2000)}`);
    const statePath = join(project, 'one-ms.state.json');
    const applied = await runSecretform(['apply', '--no-synth', '--auto-approve', '--state', statePath], project, env);
    if (applied.code !== 0) throw new Error(`apply: ${applied.stderr.slice(-2000)}`);
    const readsFile = join(dir, 'reads.json');
    writeFileSync(readsFile, JSON.stringify({ url: server.url, parallelism: 10, reads: planReads(join(project, 'cdktf.out'), 'bench') }));
    const args = ['plan', '--no-synth', '--format', 'json', '--state', statePath];
    const rows: Record<'head' | 'base' | 'bare', (CliRun & { serverCpu: number })[]> = { head: [], base: [], bare: [] };
    const outputs: Record<'head' | 'base', string | undefined> = { head: undefined, base: undefined };
    for (let i = 0; i < runs; i++) {
      for (const which of ['head', 'base', 'bare'] as const) {
        const profile = cpuProfDir === undefined || i > 0 ? {} : { cpuProfDir: join(cpuProfDir, which) };
        const before = server.cpuSeconds() ?? 0;
        const run = which === 'head'
          ? await runSecretform(args, project, env, profile)
          : which === 'base'
            ? await runNode([baseBin, ...args], env, { cwd: project, ...profile })
            : await runNode([join(__dirname, 'bare-client.js'), readsFile], { PATH: process.env.PATH, SERVICE_TOKEN: ROOT_TOKEN }, profile);
        const serverCpu = (server.cpuSeconds() ?? 0) - before;
        if (run.code !== 0) throw new Error(`${which}: exit ${run.code}: ${run.stderr.slice(-2000)}`);
        if (which !== 'bare') {
          if (outputs[which] !== undefined && outputs[which] !== run.stdout) throw new Error(`${which}: the report differs between runs`);
          outputs[which] = run.stdout;
        }
        rows[which].push({ ...run, serverCpu });
        process.stdout.write(`${which} ${run.seconds.toFixed(2)} s, CPU ${(run.cpuSeconds ?? 0).toFixed(2)} s, server CPU ${serverCpu.toFixed(2)} s, load ${load()}\n`);
      }
    }
    process.stdout.write(`reports ${outputs.head === outputs.base ? 'identical' : 'DIFFER'} (${outputs.head?.length} bytes)\n`);
    const bare = median(rows.bare.map((row) => row.seconds));
    for (const which of ['head', 'base', 'bare'] as const) {
      const seconds = median(rows[which].map((row) => row.seconds));
      const cpu = median(rows[which].map((row) => row.cpuSeconds ?? 0));
      process.stdout.write(`${which.padEnd(5)} median ${seconds.toFixed(2)} s (${(seconds / bare).toFixed(2)}x bare), CPU ${cpu.toFixed(2)} s [${rows[which].map((row) => (row.cpuSeconds ?? 0).toFixed(2)).join(' ')}], server CPU ${median(rows[which].map((row) => row.serverCpu)).toFixed(2)} s\n`);
    }
    process.stdout.write(`load at the end ${load()}\n`);
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(project, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
