/**
 * bin/v8-flags.js keeps undici's WebAssembly HTTP parser (llhttp) on V8's baseline code, so that no run of the CLI
 * pays for, and waits at exit for, its optimizing compile (the file says why). A child node with V8's test natives
 * compiles the parser as undici does, makes a function hot and says whether V8 moved it to optimized code: without
 * the flags it does within moments, with them it does not.
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
