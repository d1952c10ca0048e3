// Loaded with --require (NODE_OPTIONS) into each process one-ms-ab.ts measures: writes the CPU time of its main
// thread and of all its other threads (V8's compile and GC helpers, libuv's pool), in milliseconds, to
// BENCH_THREADS_FILE at exit. A third of a plan's CPU is not on its main thread, and on 2 cores those threads
// compete with the server: the split says which a change moved. Also the minor page faults of the main thread and
// of the others: on the shared 2-core machine a fresh page costs 15-30 us (docs/performance.md, "Session 17"), and
// unlike CPU time a fault count does not move with the machine's load. Linux only (/proc/self/task); elsewhere
// nothing.
'use strict';
const fs = require('node:fs');
const file = process.env.BENCH_THREADS_FILE;
if (file && fs.existsSync('/proc/self/task')) {
  process.on('exit', () => {
    const split = { mainMs: 0, otherMs: 0, mainFaults: 0, otherFaults: 0 };
    for (const tid of fs.readdirSync('/proc/self/task')) {
      // Fields after the command name (which may hold spaces): minflt is the 8th, utime and stime the 12th and
      // 13th (in ticks).
      const fields = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ');
      const ms = (Number(fields[11]) + Number(fields[12])) * 10;
      const faults = Number(fields[7]);
      if (Number(tid) === process.pid) {
        split.mainMs += ms;
        split.mainFaults += faults;
      } else {
        split.otherMs += ms;
        split.otherFaults += faults;
      }
    }
    fs.writeFileSync(file, JSON.stringify(split));
  });
}
