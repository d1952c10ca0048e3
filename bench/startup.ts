// `npm run bench:startup [-- --node PATH] [--runs N]`: how long `secretform` takes to start with and without
// the compile caches: Node's module compile cache (Node >= 22.1; bin/secretform.js enables it) and the bundle's
// own (bin/load-bundle.js, every Node). Each command runs N times (default 15)
// per setting, medians printed: once with NODE_DISABLE_COMPILE_CACHE=1, once with a cache directory filled by a
// first run. `--node` picks the Node binary (e.g. `--node "$(scripts/fetch-node.sh 22.23.3)"`); the default is
// the one running this script. Wall-clock times: on a machine loaded by other work, compare within one run only.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..');
const BIN = join(ROOT, 'bin', 'secretform.js');

/** The commands measured: the CLI's whole command table (`--help`), and `plan` up to its first check. */
const COMMANDS: Array<{ figure: string; args: string[] }> = [
  { figure: 'secretform --help', args: ['--help'] },
  { figure: 'secretform plan (start-up until the missing token is reported)', args: ['plan', '--no-synth'] },
];

function parseArgs(argv: string[]): { node: string; runs: number } {
  const options = { node: process.execPath, runs: 15 };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--node' && argv[i + 1]) options.node = argv[++i];
    else if (argv[i] === '--runs' && Number(argv[i + 1]) >= 1) options.runs = Number(argv[++i]);
    else throw new Error(`unknown argument ${argv[i]}; use --node PATH or --runs N`);
  }
  return options;
}

function timeOnce(node: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((done, reject) => {
    const started = performance.now();
    const child = spawn(node, [BIN, ...args], { cwd: tmpdir(), env, stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', () => done((performance.now() - started) / 1000));
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function main(): Promise<void> {
  const { node, runs } = parseArgs(process.argv.slice(2));
  const version = await new Promise<string>((done) => {
    let out = '';
    spawn(node, ['--version']).stdout.on('data', (chunk) => (out += chunk)).on('close', () => done(out.trim()));
  });
  const cacheDir = mkdtempSync(join(tmpdir(), 'secretform-compile-cache-'));
  // No SERVICE_* variables: plan stops at its first check, before any request.
  // TMPDIR: the bundle's own code cache (bin/load-bundle.js) lives under it, and NODE_DISABLE_COMPILE_CACHE=1 turns
  // it off too, so the two settings compare no cache at all with both caches warm.
  const base: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, NODE_COMPILE_CACHE: cacheDir, TMPDIR: cacheDir };
  const settings = [
    { name: 'without compile cache', env: { ...base, NODE_DISABLE_COMPILE_CACHE: '1' } },
    { name: 'with compile cache (warm)', env: base },
  ];
  process.stdout.write(`secretform start-up bench: node ${version}, ${runs} runs each, load average ${loadavg().map((l) => l.toFixed(1)).join(', ')}\n\n`);
  process.stdout.write('| figure | setting | median s |\n|---|---|---|\n');
  try {
    for (const command of COMMANDS) {
      await timeOnce(node, command.args, base); // fills the cache for this command's modules
      for (const setting of settings) {
        const times: number[] = [];
        for (let i = 0; i < runs; i++) times.push(await timeOnce(node, command.args, setting.env));
        process.stdout.write(`| ${command.figure} | ${setting.name} | ${median(times).toFixed(3)} |\n`);
      }
    }
  } finally {
    rmSync(cacheDir, { recursive: true, force: true });
  }
  process.stdout.write(`\nload average at the end: ${loadavg().map((l) => l.toFixed(1)).join(', ')}\n`);
}

main().catch((error) => {
  process.stderr.write(`bench:startup failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
