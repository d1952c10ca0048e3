/**
 * Preloaded (`node --require`) into the binary by test/e2e/cli-compile-cache.test.ts: records, in order, each
 * fsync (with the path the descriptor was opened on) and each rename the process makes, one per line, to the file
 * SF_RECORD_FS_WRITES names. The calls themselves go through unchanged: it observes what reaches the disk and in
 * which order (a cache renamed into place before it is flushed may be an empty file after a power loss).
 */
'use strict';
const fs = require('node:fs');

const file = process.env.SF_RECORD_FS_WRITES;
if (file) {
  const opened = new Map();
  const { openSync, closeSync, fsyncSync, renameSync, appendFileSync } = fs;
  fs.openSync = function (target, ...rest) {
    const fd = openSync.call(fs, target, ...rest);
    opened.set(fd, String(target));
    return fd;
  };
  fs.closeSync = function (fd) {
    opened.delete(fd);
    return closeSync.call(fs, fd);
  };
  fs.fsyncSync = function (fd) {
    fsyncSync.call(fs, fd);
    appendFileSync(file, `fsync ${opened.get(fd) ?? `fd ${fd}`}\n`);
  };
  fs.renameSync = function (from, to) {
    renameSync.call(fs, from, to);
    appendFileSync(file, `rename ${String(from)} ${String(to)}\n`);
  };
}
