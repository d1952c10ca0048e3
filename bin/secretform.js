#!/usr/bin/env node
'use strict';
// `secretform version` answers before anything else is loaded (target: well under 0.3 s).
const args = process.argv.slice(2);
if (args.length === 1 && ['version', '--version', '-V'].includes(args[0])) {
  process.stdout.write(`secretform ${require('../package.json').version}\n`);
  return;
}
require('./v8-flags').setV8Flags();
// Node >= 22.1 can keep the compiled code of the modules a run loads (in $NODE_COMPILE_CACHE, by default the
// system's temporary directory), so the next start skips compiling them; NODE_DISABLE_COMPILE_CACHE=1 turns it
// off. Older Node has no such function: nothing changes there. bench/startup.ts measures the gain. The CLI's
// bundle has a cache of its own, made at the end of a run (load-bundle.js says why).
const { enableCompileCache } = require('node:module');
if (typeof enableCompileCache === 'function') enableCompileCache();
// SECRETFORM_DEBUG_LOADED_MODULES=<file>: list every module loaded by the run into <file> at exit (tests check
// that a command loads only what it needs).
if (process.env.SECRETFORM_DEBUG_LOADED_MODULES) {
  const file = process.env.SECRETFORM_DEBUG_LOADED_MODULES;
  process.on('exit', () => require('node:fs').writeFileSync(file, Object.keys(require.cache).join('\n') + '\n'));
}
loadCli().main(process.argv).then(
  (code) => exitOnceWritten(code),
  (err) => { process.stderr.write(`secretform: ${err && err.message ? err.message : err}\n`); exitOnceWritten(1); },
);

/**
 * Ends the process once stdout and stderr have taken everything written to them, rather than when node's event
 * loop runs dry. The command is over when `main` settles (what it holds is released before, and exit-release.ts
 * covers the synchronous rest); a natural exit then still waited for V8's background compiles queued late and tore
 * the heap down page by page: ~60 ms after a plan of 10,000 objects had written its report, where the kernel frees
 * the memory of an exiting process at once (docs/performance.md, "Session 15"). A pipe may hold back part of a
 * large report (its reader is slower): each stream's empty write completes only after every write before it.
 */
function exitOnceWritten(code) {
  process.exitCode = code;
  const streams = [process.stdout, process.stderr];
  let waiting = streams.length;
  const written = () => {
    waiting -= 1;
    // After a turn of the event loop: a write that failed (EPIPE: the reader went away) has then emitted its
    // error, from which main's output guard sets the exit code its exit handler gives.
    if (waiting === 0) require('node:timers').setImmediate(() => process.exit());
  };
  for (const stream of streams) {
    if (stream.destroyed || stream.writableLength === 0) written();
    else stream.write('', written);
  }
}

/** The CLI: its bundle through the compile cache (load-bundle.js), or the compiled modules as any files. */
function loadCli() {
  const file = cliModule();
  return file.endsWith('.bundle.js') ? require('./load-bundle').loadBundle(file, args[0]) : require(file);
}

/**
 * The CLI's code: `dist/cli/main.bundle.js`, secretform's compiled modules in one file (scripts/bundle-cli.js, run
 * by `npm run build`), loads ~50 ms faster than the ~250 modules it is made from (docs/performance.md). A bundle
 * older than the last compile (`tsc` run alone since) would be stale code: then, or without one, the modules.
 */
function cliModule() {
  const fs = require('node:fs');
  const path = require('node:path');
  const dist = path.join(__dirname, '..', 'dist');
  const bundle = path.join(dist, 'cli', 'main.bundle.js');
  const modules = path.join(dist, 'cli', 'main.js');
  const built = fs.statSync(bundle, { throwIfNoEntry: false });
  if (!built) return modules;
  for (const compiled of [modules, path.join(dist, '.tsbuildinfo')]) {
    const stat = fs.statSync(compiled, { throwIfNoEntry: false });
    if (stat && stat.mtimeMs > built.mtimeMs) return modules;
  }
  return bundle;
}
