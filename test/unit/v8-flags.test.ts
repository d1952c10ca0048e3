/**
 * bin/v8-flags.js keeps undici's WebAssembly HTTP parser (llhttp) on V8's baseline code, so that no run of the CLI
 * pays for, and waits at exit for, its optimizing compile (the file says why). A child node with V8's test natives
 * compiles the parser as undici does, makes a function hot and says whether V8 moved it to optimized code: without
 * the flags it does within moments, with them it does not.
 *
 * It also keeps every young-generation collection (scavenge) on the main thread: a child node that keeps what it
 * allocates says, through V8's own trace, how many threads each scavenge ran on.
 *
 * Node 24's V8 freezes its flags once started: there `setFlagsFromString` changes nothing, and the CLI measured the
 * same with or without the flag, so the check runs on Node 20 and 22 only.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../support/temp-dir';

const ROOT = join(__dirname, '..', '..');
const FLAGS_MODULE = join(ROOT, 'bin', 'v8-flags.js');
const LLHTTP = join(ROOT, 'node_modules', 'undici', 'lib', 'llhttp', 'llhttp-wasm.js');
const FLAGS_APPLY_AT_RUNTIME = Number(process.versions.node.split('.')[0]) < 24;

/** Makes llhttp's `llhttp_alloc` hot, then polls for up to `limitMs` whether it is still Liftoff (baseline) code. */
const PROBE = `
if (process.argv[2] === 'with-flags') require(${JSON.stringify(FLAGS_MODULE)}).setV8Flags();
const parser = new WebAssembly.Module(require(${JSON.stringify(LLHTTP)}));
const instance = new WebAssembly.Instance(parser, { env: new Proxy({}, { get: () => () => 0 }) });
const { llhttp_alloc: alloc, llhttp_free: free } = instance.exports;
for (let i = 0; i < 200000; i++) free(alloc(1));
const limitMs = Number(process.argv[3]);
const started = Date.now();
(function poll() {
  const baseline = %IsLiftoffFunction(alloc);
  const ms = Date.now() - started;
  if (!baseline || ms >= limitMs) process.stdout.write(JSON.stringify({ baseline, ms }));
  else setTimeout(poll, 5);
})();
`;

function probe(variant: 'with-flags' | 'without', limitMs: number): { baseline: boolean; ms: number } {
  const file = join(tempDir('secretform-v8-flags-'), 'probe.js');
  writeFileSync(file, PROBE);
  const result = spawnSync(process.execPath, ['--allow-natives-syntax', file, variant, String(limitMs)], { encoding: 'utf8' });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return JSON.parse(result.stdout) as { baseline: boolean; ms: number };
}

(FLAGS_APPLY_AT_RUNTIME ? describe : describe.skip)('the CLI keeps WebAssembly on baseline code', () => {
  test("a hot function of undici's parser stays baseline code with the CLI's flags, and is optimized without", () => {
    // Without the flags V8 optimizes the hot function (the probe can tell): this is what the CLI paid for.
    const without = probe('without', 20_000);
    expect(without.baseline).toBe(false);
    // With them it is still baseline code after several times as long as V8 took to optimize it above.
    const withFlags = probe('with-flags', Math.max(1_000, 5 * without.ms));
    expect(withFlags.baseline).toBe(true);
  });
});

/**
 * Allocates ~2 million objects that stay alive (as a plan keeps its desired state and answers), so that V8 runs
 * scavenges large enough to split across threads. `--trace-parallel-scavenge` prints one line per thread of a
 * scavenge, `--trace-gc` one line when it ends.
 */
const SCAVENGE_PROBE = `
if (process.argv[2] === 'with-flags') require(${JSON.stringify(FLAGS_MODULE)}).setV8Flags();
const kept = [];
for (let round = 0; round < 40; round++) {
  const batch = [];
  for (let i = 0; i < 50000; i++) batch.push({ round, i, name: 'object-' + i });
  kept.push(batch);
}
process.stdout.write(String(kept.length));
`;

/** The number of threads of each scavenge of the probe, in order. */
function scavengeThreads(variant: 'with-flags' | 'without'): number[] {
  const file = join(tempDir('secretform-v8-flags-'), 'scavenge-probe.js');
  writeFileSync(file, SCAVENGE_PROBE);
  const result = spawnSync(process.execPath, ['--trace-gc', '--trace-parallel-scavenge', file, variant], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  const threads: number[] = [];
  let lines = 0;
  for (const line of result.stdout.split('\n')) {
    if (/ scavenge\[0x[0-9a-f]+\]: time=/.test(line)) lines++;
    else if (/: Scavenge /.test(line)) {
      threads.push(lines);
      lines = 0;
    }
  }
  return threads;
}

(FLAGS_APPLY_AT_RUNTIME ? describe : describe.skip)('the CLI scavenges on its main thread', () => {
  test('every scavenge of a process with the CLI\'s flags runs on one thread; without them some run on several', () => {
    // Without the flags V8 splits the larger scavenges across its helper threads: what the CLI no longer does.
    const without = scavengeThreads('without');
    expect(without.length).toBeGreaterThan(5);
    expect(Math.max(...without)).toBeGreaterThan(1);
    const withFlags = scavengeThreads('with-flags');
    expect(withFlags.length).toBeGreaterThan(5);
    expect(withFlags.every((count) => count === 1)).toBe(true);
  });
});
