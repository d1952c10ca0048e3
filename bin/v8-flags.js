'use strict';
// The V8 flags the CLI runs with: set by bin/secretform.js before the CLI's code is loaded, since V8 reads them
// when it compiles, not when it starts.
//
// --liftoff-only: undici parses HTTP with llhttp, compiled to WebAssembly. V8 compiles a WebAssembly module with
// its baseline compiler (Liftoff) and, once a function is hot, again with its optimizing compiler (TurboFan) on a
// background thread. On Node 20 and 22 every run that sends a request paid for that second compile (~0.3 s of CPU;
// a third of a small plan's samples) and waited for it at exit: `plan --no-synth` of 3 objects on Node 20 takes
// 0.52 s instead of 0.80 s, a plan of 10,000 objects 0.47 s less CPU, and the baseline code parses our answers
// no slower (docs/performance.md, "Session 15"). Node 24 is as fast either way. The CLI runs no other WebAssembly.
//
// --no-parallel-scavenge: V8 splits each young-generation collection (a scavenge) across helper threads and waits
// for all of them. A plan's scavenges copy what survives its load (the desired state, read answers, diffs): on a
// 2-core runner, shared with the service, the helpers wait for a core while the main thread waits for them. On the
// main thread alone, the same scavenges cost a little more of its CPU and less of the process's, and the plan
// of 10,000 objects at 1 ms finishes earlier (docs/performance.md, "Session 15"). V8 reads the flag at each
// scavenge, so setting it here, before the CLI loads, covers every one.
const FLAGS = ['--liftoff-only', '--no-parallel-scavenge'];

function setV8Flags() {
  const v8 = require('node:v8');
  for (const flag of FLAGS) v8.setFlagsFromString(flag);
}

module.exports = { FLAGS, setV8Flags };
