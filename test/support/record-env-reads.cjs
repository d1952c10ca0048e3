/**
 * Preloaded (`node --require`) into the binary by test/e2e/cli-help-environment.test.ts: replaces process.env with
 * a proxy that records every variable the process reads by name, and writes their names, one per line, to the file
 * SF_RECORD_ENV_READS names when the process exits. A copy of the whole environment (`{ ...env }`, Object.entries,
 * the app's filtered environment) reads every name without meaning any: a read right after the name was listed
 * as one of all the keys (in the same turn) is not recorded.
 */
'use strict';
const fs = require('node:fs');

const file = process.env.SF_RECORD_ENV_READS;
if (file) {
  const real = process.env;
  const reads = new Set();
  // Names just listed by an enumeration of the environment: their next read is part of the copy, not a read by name.
  const enumerated = new Set();
  let enumerating = false;
  const record = (name) => {
    if (typeof name !== 'string') return;
    if (enumerated.has(name)) enumerated.delete(name);
    else if (!reads.has(name)) {
      reads.add(name);
      // Written as it is read, not at exit: a process that ends on a signal it re-raises (the dev server on
      // SIGTERM) runs no 'exit' handler.
      fs.appendFileSync(file, `${name}\n`);
    }
  };
  process.env = new Proxy(real, {
    get(target, name) {
      record(name);
      return Reflect.get(target, name);
    },
    has(target, name) {
      record(name);
      return Reflect.has(target, name);
    },
    getOwnPropertyDescriptor(target, name) {
      // Within an enumeration, the check that a listed key is enumerable; otherwise `Object.hasOwn(env, NAME)`.
      if (enumerating && typeof name === 'string') enumerated.add(name);
      else record(name);
      return Reflect.getOwnPropertyDescriptor(target, name);
    },
    ownKeys(target) {
      if (!enumerating) {
        enumerating = true;
        process.nextTick(() => {
          enumerating = false;
          enumerated.clear();
        });
      }
      return Reflect.ownKeys(target);
    },
  });
  fs.writeFileSync(file, '');
}
