// Bundles the compiled CLI (dist/cli/main.js and the secretform modules it requires) into dist/cli/main.bundle.js,
// which bin/secretform.js loads: one file instead of ~250 is ~50 ms less start-up for every command
// (docs/performance.md). Run after tsc (`npm run build`). npm packages stay outside (required from node_modules
// as before, lazily where the code is lazy: zod, pg, cdktf); so does the dev server, which only
// `secretform dev-server` loads. Usage: node scripts/bundle-cli.js
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const esbuild = require('esbuild');

const root = path.join(__dirname, '..');
const dist = path.join(root, 'dist');

const outfile = path.join(dist, 'cli', 'main.bundle.js');
esbuild.buildSync({
  entryPoints: [path.join(dist, 'cli', 'main.js')],
  outfile,
  bundle: true,
  platform: 'node',
  // The oldest Node of package.json "engines": the bundle is the compiled JavaScript, not lowered further.
  target: 'node20',
  format: 'cjs',
  packages: 'external',
  // The dev server: only `secretform dev-server` loads it. native-import.js: see there (import() in the bundle
  // would need vm's loader hook).
  external: [path.join(dist, 'devserver', '*'), path.join(dist, 'policy', 'native-import.js')],
  // Maps back to src/ through tsc's own source maps.
  sourcemap: true,
  logLevel: 'warning',
});

// The bundle runs as a vm.Script (bin/load-bundle.js), which has no loader for import(): a dynamic import in it
// would fail at run time, so it fails the build instead.
const dynamicImport = /\bimport\(/.exec(fs.readFileSync(outfile, 'utf8'));
if (dynamicImport) {
  process.stderr.write(`scripts/bundle-cli.js: ${path.relative(root, outfile)} calls import(); use importNative (src/policy/native-import.ts), which stays outside the bundle\n`);
  process.exit(1);
}
