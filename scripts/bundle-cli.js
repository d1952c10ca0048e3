// Bundles the compiled CLI (dist/cli/main.js and the secretform modules it requires) into dist/cli/main.bundle.js,
// which bin/secretform.js loads: one file instead of ~250 is ~50 ms less start-up for every command
// (docs/performance.md). Run after tsc (`npm run build`). npm packages stay outside (required from node_modules
// as before, lazily where the code is lazy: zod, pg, cdktf); so does the dev server, which only
// `secretform dev-server` loads. Usage: node scripts/bundle-cli.js
'use strict';
const path = require('node:path');
const esbuild = require('esbuild');

const root = path.join(__dirname, '..');
const dist = path.join(root, 'dist');

esbuild.buildSync({
  entryPoints: [path.join(dist, 'cli', 'main.js')],
  outfile: path.join(dist, 'cli', 'main.bundle.js'),
  bundle: true,
  platform: 'node',
  // The oldest Node of package.json "engines": the bundle is the compiled JavaScript, not lowered further.
  target: 'node20',
  format: 'cjs',
  packages: 'external',
  external: [path.join(dist, 'devserver', '*')],
  // Maps back to src/ through tsc's own source maps.
  sourcemap: true,
  logLevel: 'warning',
});
