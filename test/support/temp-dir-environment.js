// The test environment of every file: Node's, and at the end of the file (after its last afterAll hook, also when
// a test failed or timed out) the removal of every temporary directory it made through test/support/temp-dir.ts,
// so that runs leave nothing behind in the system's temporary directory.
const { rmSync } = require('node:fs');
const { TestEnvironment } = require('jest-environment-node');

/** The list test/support/temp-dir.ts keeps on the file's global object (the same name there). */
const MADE = '__secretformTempDirs';

class TempDirEnvironment extends TestEnvironment {
  async teardown() {
    const made = this.global[MADE] ?? [];
    // maxRetries: a child the file started may still be writing into its directory as it exits.
    for (const dir of made) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    await super.teardown();
  }
}

module.exports = TempDirEnvironment;
