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
const FLAGS = ['--liftoff-only'];

function setV8Flags() {
  const v8 = require('node:v8');
  for (const flag of FLAGS) v8.setFlagsFromString(flag);
}

module.exports = { FLAGS, setV8Flags };
