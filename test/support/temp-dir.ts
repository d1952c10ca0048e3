/**
 * Temporary directories of a test file: `tempDir(prefix)` makes one under the system's temporary directory, and
 * the file's test environment (test/support/temp-dir-environment.js) removes it when the file ends, after its
 * afterAll hooks, also when a test failed. Tests make their directories here rather than with mkdtempSync, so no
 * run leaves any behind.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The name of the list on the file's global object that the environment reads (the same name there). */
const MADE = '__secretformTempDirs';

export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const holder = globalThis as { [MADE]?: string[] };
  (holder[MADE] ??= []).push(dir);
  return dir;
}
