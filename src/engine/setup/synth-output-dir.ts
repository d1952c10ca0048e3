/**
 * Where a project's synth output is when no directory is named: `output` of cdktf.json, else cdktf.out. The CLI's
 * `--output` defaults to it, and the engine's check of a saved plan's connections (saved-plan/saved-plan-connection.ts)
 * reads the output there when its caller names none.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export const DEFAULT_OUTPUT_DIR = 'cdktf.out';

/** The output directory `secretform synth` would write when no --output is given: cdktf.json's, else cdktf.out. */
export function configuredOutputDir(cwd: string): string {
  const file = path.join(cwd, 'cdktf.json');
  let config: unknown;
  try {
    config = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    // A missing or unreadable cdktf.json leaves the default; the engine then reports the missing synth output.
    return DEFAULT_OUTPUT_DIR;
  }
  const output = (config as { output?: unknown } | null)?.output;
  return typeof output === 'string' && output.trim() !== '' ? output : DEFAULT_OUTPUT_DIR;
}
