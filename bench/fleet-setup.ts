/**
 * What every fleet measure starts from (bench/fleet.ts, bench/fleet-ab.ts): 4 dev servers, each in a process of
 * its own (bench/fleet-servers.ts), a project whose cdktf app is bench/fleet-app.ts, and its synth output, taken
 * from the synth cache when an entry fits (bench/fleet-synth-cache.ts) or synthesized and stored there. A synth
 * measures `secretform synth` of the app (the wall time holds the app: cdktf and our constructs; the CPU and RSS
 * are secretform's own) and, apart, the same number of plain cdktf resources (`node fleet-app.js`, FLEET_PLAIN=1):
 * cdktf's own cost.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import ts from 'typescript';
import { FLEET_SERVERS, type FleetSize } from './args';
import { startFleetServers } from './fleet-servers';
import { appKey, cacheEntries, storeEntry, useEntry, type CacheEntry, type CachedSynth } from './fleet-synth-cache';
import { failure, ROOT_TOKEN, runNodeExport as runNode, runSecretform, type BenchServer } from './run';

export interface Fleet {
  servers: BenchServer[];
  /** The project directory, its `cdktf.out` in place (runs take `--no-synth`). */
  project: string;
  /** The environment of every secretform run of the fleet. */
  env: NodeJS.ProcessEnv;
  /** The synth figures: measured now, or when the cache entry used was made. */
  synth: CachedSynth;
  /** Whether the synth output came from the cache. */
  cached: boolean;
  /** Where the synth output is kept. */
  entry: CacheEntry;
  close(): Promise<void>;
}

/** The fleet of `size`, ready for an apply of every stack. */
export async function startFleet(size: FleetSize, cacheDir: string, log: (line: string) => void): Promise<Fleet> {
  const key = appKey(size);
  const requestLogCap = Math.ceil(size.stacks / FLEET_SERVERS) * size.objects * 2;
  const project = fleetProject();
  const passwordHash = bcrypt.hashSync('fleet-user-password', 4);
  try {
    for (const entry of cacheEntries(cacheDir, key)) {
      let servers: BenchServer[];
      try {
        servers = await startFleetServers(FLEET_SERVERS, requestLogCap, entry.ports);
      } catch (error) {
        log(`  synth cache: ${entry.dir} was made for ports ${entry.ports.join(', ')}, not free now (${(error as Error).message.split('\n')[0]})`);
        continue;
      }
      useEntry(entry, project);
      log(`  synth cache: using ${entry.dir} (synthesized ${entry.figures.measuredAt})`);
      return fleetOf(servers, project, fleetEnv(size, servers, passwordHash), entry, true);
    }
    const servers = await startFleetServers(FLEET_SERVERS, requestLogCap);
    try {
      const env = fleetEnv(size, servers, passwordHash);
      log(`  synth cache: no entry for ${key} in ${cacheDir}; synthesizing (minutes at 100 x 1,000)`);
      const figures = await measureSynth(project, env);
      const ports = servers.map((server) => Number(new URL(server.url).port));
      const entry = storeEntry(cacheDir, key, ports, join(project, 'cdktf.out'), figures);
      return fleetOf(servers, project, env, entry, false);
    } catch (error) {
      await Promise.all(servers.map((server) => server.close()));
      throw error;
    }
  } catch (error) {
    rmSync(project, { recursive: true, force: true });
    throw error;
  }
}

function fleetOf(servers: BenchServer[], project: string, env: NodeJS.ProcessEnv, entry: CacheEntry, cached: boolean): Fleet {
  return {
    servers, project, env, entry, cached, synth: entry.figures,
    close: async () => {
      await Promise.all(servers.map((server) => server.close()));
      rmSync(project, { recursive: true, force: true });
    },
  };
}

/** `secretform synth` of the fleet app into the project's `cdktf.out`, then the plain cdktf app apart. */
async function measureSynth(project: string, env: NodeJS.ProcessEnv): Promise<CachedSynth> {
  const measuredAt = new Date().toISOString();
  const load = loadavg();
  const synth = await runSecretform(['synth', '--synth-env', 'FLEET_*', '--synth-env', 'BENCH_ROOT'], project, env);
  if (synth.code !== 0) throw new Error(failure(synth, 'fleet synth'));
  const plainOut = mkdtempSync(join(tmpdir(), 'secretform-bench-fleet-plain-'));
  try {
    const plain = await runNode([join(project, 'fleet-app.js')], { ...env, FLEET_PLAIN: '1', CDKTF_OUTDIR: plainOut }, { cwd: project });
    if (plain.code !== 0) throw new Error(failure(plain, 'plain cdktf app'));
    const figures = (run: typeof synth) => ({ seconds: run.seconds, cpuSeconds: run.cpuSeconds, peakRssMb: run.peakRssMb });
    return { measuredAt, load, synth: figures(synth), plain: figures(plain) };
  } finally {
    rmSync(plainOut, { recursive: true, force: true });
  }
}

function fleetProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'secretform-bench-fleet-'));
  const source = readFileSync(join(__dirname, 'fleet-app.ts'), 'utf8');
  const output = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true } });
  writeFileSync(join(dir, 'fleet-app.js'), output.outputText);
  writeFileSync(join(dir, 'cdktf.json'), JSON.stringify({ language: 'typescript', app: `${JSON.stringify(process.execPath)} fleet-app.js`, output: 'cdktf.out' }, null, 2));
  return dir;
}

function fleetEnv(size: FleetSize, servers: BenchServer[], passwordHash: string): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = {};
  for (const name of ['PATH', 'HOME', 'TMPDIR', 'LANG']) if (process.env[name] !== undefined) base[name] = process.env[name];
  return {
    ...base,
    BENCH_ROOT: join(__dirname, '..'),
    FLEET_STACKS: String(size.stacks),
    FLEET_OBJECTS: String(size.objects),
    FLEET_SERVERS: servers.map((server) => server.url).join(','),
    FLEET_PASSWORD_HASH: passwordHash,
    SERVICE_TOKEN: ROOT_TOKEN,
    SECRETFORM_STATE_KEY: 'bench-fleet-state-key',
    NO_COLOR: '1',
  };
}
