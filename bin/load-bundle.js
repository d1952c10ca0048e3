'use strict';
// Loads the CLI's bundle with a V8 code cache of what an earlier run of the same command compiled.
//
// Why not only node's compile cache (module.enableCompileCache, Node >= 22.1): it keeps what V8 compiles when a
// file is loaded, not the functions compiled later while the command runs (most of the bundle's ~400 modules are
// functions V8 compiles on their first call), and Node 20 has none. A cache made at the end of a run has both:
// ~40 ms less before the first request on Node 20, ~15 ms on Node 22 (docs/performance.md, "Compile cache").
//
// The cache is only ever an optimisation: any problem with it (no such directory, unreadable, damaged, rejected by
// V8) means the bundle is compiled as usual, and a missing, stale, damaged or rejected cache is written again at
// exit. V8 checks little more than the data's length and source hash: damaged data that passes it crashes the
// process (a payload zeroed past its first 4 KB: SIGSEGV) on every later run. So the file carries a SHA-256 of
// its data, checked before V8 sees it, and is written to disk (fsync) before it is renamed into place.
// Loading compiled code from a file is as powerful as running it, so the directory must be the user's own: made
// with mode 0700 under the system's temporary directory, used only when it is still a directory owned by this user
// that nobody else may write. NODE_DISABLE_COMPILE_CACHE=1 turns it off, as it does node's.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const vm = require('node:vm');
const { Module, createRequire } = require('node:module');
const { Buffer } = require('node:buffer');
const { createHash } = require('node:crypto');

// 2: the header's second line is the data's SHA-256.
const FORMAT = 'secretform-compile-cache 2';

/**
 * Runs `file` (a CommonJS bundle) as a module and returns its exports; `command` names the cache it uses (each
 * command compiles different functions). SECRETFORM_DEBUG_COMPILE_CACHE=1 says on stderr what happened.
 */
function loadBundle(file, command) {
  const source = fs.readFileSync(file, 'utf8');
  const cache = cacheFor(file, command);
  const read = cache.file === undefined ? { data: undefined } : readCache(cache.file, cache.identity);
  const cached = read.data;
  // The wrapper node puts around a CommonJS file, on the file's first line so that line numbers stay the same.
  const wrapped = `(function (exports, require, module, __filename, __dirname) { ${source}\n});`;
  // No loader for import(): vm's is experimental (a warning on Node 22) and lost with a cached script on Node 20.
  // The bundle has no import() (scripts/bundle-cli.js checks); src/policy/native-import.ts stays outside it.
  const script = new vm.Script(wrapped, { filename: file, cachedData: cached });
  const status = cache.file === undefined ? `off (${cache.why})` : read.damaged ? 'damaged' : cached === undefined ? 'miss' : script.cachedDataRejected ? 'rejected' : 'hit';
  if (process.env.SECRETFORM_DEBUG_COMPILE_CACHE === '1') process.stderr.write(`secretform: compile cache ${status}\n`);
  if (status === 'miss' || status === 'damaged' || status === 'rejected') {
    // At exit, so the cache holds every function this run compiled, not only the ones loading compiles.
    process.once('exit', () => writeCache(cache.file, cache.identity, script));
  }
  const bundle = new Module(file, module);
  bundle.filename = file;
  bundle.paths = Module._nodeModulePaths(path.dirname(file));
  require.cache[file] = bundle;
  const requireFromBundle = createRequire(file);
  script.runInThisContext().call(bundle.exports, bundle.exports, requireFromBundle, bundle, file, path.dirname(file));
  bundle.loaded = true;
  return bundle.exports;
}

/** Where this bundle's cache for `command` is, and what identifies the bundle it was made from; or why none. */
function cacheFor(file, command) {
  if (process.env.NODE_DISABLE_COMPILE_CACHE === '1') return { why: 'NODE_DISABLE_COMPILE_CACHE=1' };
  try {
    return cacheLocation(file, command);
  } catch (error) {
    return { why: error.code ?? error.message };
  }
}

function cacheLocation(file, command) {
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  const dir = path.join(os.tmpdir(), `secretform-compile-cache${uid === undefined ? '' : `-${uid}`}`);
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if (error.code !== 'EEXIST') throw error;
  }
  const own = fs.lstatSync(dir);
  if (!own.isDirectory()) return { why: `${dir} is not a directory` };
  if (uid !== undefined && own.uid !== uid) return { why: `${dir} belongs to another user` };
  if (uid !== undefined && (own.mode & 0o022) !== 0) return { why: `others may write to ${dir}` };
  const bundle = fs.statSync(file);
  const name = /^[a-z][a-z-]{0,30}$/.test(command ?? '') ? command : 'other';
  return {
    file: path.join(dir, `${name}-${process.version}-${process.arch}-${hashOf(file)}.bin`),
    identity: `${FORMAT} ${file} ${bundle.size} ${bundle.mtimeMs} ${bundle.ino}`,
  };
}

/**
 * The cached data when the file was made from this very bundle and its data is whole (`damaged` when the checksum
 * does not match: never given to V8, which would trust it).
 */
function readCache(cacheFile, identity) {
  let content;
  try {
    content = fs.readFileSync(cacheFile);
  } catch {
    return { data: undefined };
  }
  const header = Buffer.from(`${identity}\n`);
  if (content.length <= header.length || !content.subarray(0, header.length).equals(header)) return { data: undefined };
  const checksumEnd = content.indexOf(0x0a, header.length);
  if (checksumEnd < 0) return { data: undefined, damaged: true };
  const checksum = content.subarray(header.length, checksumEnd).toString('latin1');
  const data = content.subarray(checksumEnd + 1);
  if (data.length === 0 || checksum !== checksumOf(data)) return { data: undefined, damaged: true };
  return { data };
}

/**
 * Written beside, flushed to disk and renamed into place: runs at the same time never read half a file, and a
 * crash or power loss right after the rename leaves the old file or the whole new one, not a renamed empty one.
 */
function writeCache(cacheFile, identity, script) {
  const temporary = `${cacheFile}.${process.pid}.tmp`;
  let fd;
  try {
    const data = script.createCachedData();
    fd = fs.openSync(temporary, 'w', 0o600);
    fs.writeFileSync(fd, Buffer.concat([Buffer.from(`${identity}\n${checksumOf(data)}\n`), data]));
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fd = undefined;
    fs.renameSync(temporary, cacheFile);
  } catch {
    if (fd !== undefined) closeQuietly(fd);
    fs.rmSync(temporary, { force: true });
  }
}

/** Closes a file the failed write left open; a failure here changes nothing (the process is exiting). */
function closeQuietly(fd) {
  try {
    fs.closeSync(fd);
  } catch {
    // Nothing to do: the file is removed next, and the descriptor goes with the process.
  }
}

function checksumOf(data) {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

/** A short name for the bundle's path (FNV-1a): installs in different places keep different caches. */
function hashOf(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash.toString(16).padStart(8, '0');
}

module.exports = { loadBundle };
