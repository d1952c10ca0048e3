/**
 * The fleet's synth output, kept between bench runs. Synth of 100 stacks x 1,000 takes many minutes (cdktf and
 * our constructs), and its output embeds the dev servers' addresses, so an entry is keyed by the fleet's size,
 * the servers' addresses, the app's source (bench/fleet-app.ts) and the code synth runs (src/, without the parts
 * that only read a synth output: the engine, the CLI, the client, the dev server, the reports; and cdktf's
 * version). A later run starts its servers on an entry's ports and copies its `cdktf.out` into a fresh project;
 * when any of those ports is taken, or no entry matches, it synthesizes again on free ports and stores a new entry.
 * Each entry also keeps the synth figures measured when it was made, printed with the date they were measured.
 */
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import type { FleetSize } from './args';

const ROOT = resolve(__dirname, '..');
/** Folders of src/ whose code never runs at synth: a change there keeps the cached outputs. */
const NOT_AT_SYNTH = ['engine', 'cli', 'client', 'devserver', 'report'];

export function defaultFleetCacheDir(): string {
  return join(tmpdir(), 'secretform-bench-fleet-cache');
}

/** The synth figures of an entry, measured when it was made. */
export interface CachedSynth {
  /** ISO time of the measure. */
  measuredAt: string;
  /** `uptime`'s load averages then. */
  load: number[];
  /** `secretform synth` of the app: wall time, and secretform's own CPU and peak RSS (not the app's). */
  synth: { seconds: number; cpuSeconds?: number; peakRssMb?: number };
  /** The same number of plain cdktf resources, `node fleet-app.js` with FLEET_PLAIN=1: cdktf's own cost. */
  plain: { seconds: number; cpuSeconds?: number; peakRssMb?: number };
}

export interface CacheEntry {
  dir: string;
  /** The ports the servers listened on when it was made. */
  ports: number[];
  figures: CachedSynth;
}

/** What an entry of this size, app and synth code is keyed by (the addresses come on top). */
export function appKey(size: FleetSize): string {
  const hash = createHash('sha256');
  hash.update(JSON.stringify({ stacks: size.stacks, objects: size.objects, node: process.version }));
  hash.update(readFileSync(join(__dirname, 'fleet-app.ts')));
  hash.update(readFileSync(join(ROOT, 'node_modules', 'cdktf', 'package.json')));
  for (const file of synthSources(join(ROOT, 'src'))) {
    hash.update(relative(ROOT, file));
    hash.update(readFileSync(file));
  }
  return `${size.stacks}x${size.objects}-${hash.digest('hex').slice(0, 16)}`;
}

function synthSources(dir: string): string[] {
  return readdirSync(dir).sort().flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return dir === join(ROOT, 'src') && NOT_AT_SYNTH.includes(name) ? [] : synthSources(path);
    return [path];
  });
}

/** The entries made for `key`, the newest first. */
export function cacheEntries(cacheDir: string, key: string): CacheEntry[] {
  if (!existsSync(cacheDir)) return [];
  return readdirSync(cacheDir)
    .filter((name) => name.startsWith(`${key}-`) && existsSync(join(cacheDir, name, 'figures.json')) && existsSync(join(cacheDir, name, 'cdktf.out', 'manifest.json')))
    .map((name) => {
      const dir = join(cacheDir, name);
      return { dir, ports: name.slice(key.length + 1).split('-').map(Number), figures: JSON.parse(readFileSync(join(dir, 'figures.json'), 'utf8')) as CachedSynth };
    })
    .sort((a, b) => b.figures.measuredAt.localeCompare(a.figures.measuredAt));
}

/** Copies `outdir` (a fresh synth for servers on `ports`) into the cache with its figures; returns the entry. */
export function storeEntry(cacheDir: string, key: string, ports: readonly number[], outdir: string, figures: CachedSynth): CacheEntry {
  const dir = join(cacheDir, `${key}-${ports.join('-')}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  // Written last: an entry without figures.json (a run stopped while copying) is never used.
  cpSync(outdir, join(dir, 'cdktf.out'), { recursive: true });
  writeFileSync(join(dir, 'figures.json'), JSON.stringify(figures, null, 2));
  return { dir, ports: [...ports], figures };
}

/** Copies an entry's synth output into `project` (as `cdktf.out`), where `--no-synth` runs read it. */
export function useEntry(entry: CacheEntry, project: string): void {
  const target = join(project, 'cdktf.out');
  rmSync(target, { recursive: true, force: true });
  cpSync(join(entry.dir, 'cdktf.out'), target, { recursive: true });
}
