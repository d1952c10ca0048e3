// End-to-end tests drive the real binary (bin/secretform.js -> dist/), so compile the current sources first.
// Type errors do not stop the run here (tsc still emits); `npm test` type-checks the whole project before jest.
const { spawnSync } = require('node:child_process');
const path = require('node:path');

module.exports = async function globalSetup() {
  // Test files that start a PostgreSQL cluster record this run as its owner (see test/global-teardown.js).
  process.env.SECRETFORM_TEST_RUN_PID = String(process.pid);
  const root = path.resolve(__dirname, '..');
  const result = spawnSync(
    process.execPath,
    [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--incremental', '--tsBuildInfoFile', 'dist/.tsbuildinfo'],
    { cwd: root, encoding: 'utf8' },
  );
  if (result.status !== 0) {
    process.stderr.write(`\n[global-setup] tsc reported errors (dist/ was still emitted):\n${result.stdout}${result.stderr}\n`);
  }
  // The binary loads the CLI from its bundle (scripts/bundle-cli.js), as an installed package does.
  const bundled = spawnSync(process.execPath, [path.join(root, 'scripts', 'bundle-cli.js')], { cwd: root, encoding: 'utf8' });
  if (bundled.status !== 0) throw new Error(`[global-setup] scripts/bundle-cli.js failed:\n${bundled.stdout}${bundled.stderr}`);
};
