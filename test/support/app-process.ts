/**
 * An app file run in a process of its own, as `secretform synth` runs it, with the few variables a process needs and
 * `CDKTF_OUTDIR` set to a new temporary directory (removed when the test file ends, temp-dir.ts).
 */
import { spawnSync } from 'node:child_process';
import { tempDir } from './temp-dir';

/** Runs `node <args>` in `cwd` with `env` and returns the app's output directory; throws when the app fails. */
export function runAppProcess(name: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): string {
  const outdir = tempDir(`secretform-app-${name}-`);
  const base: NodeJS.ProcessEnv = {};
  for (const key of ['PATH', 'HOME', 'TMPDIR', 'LANG']) if (process.env[key] !== undefined) base[key] = process.env[key];
  const result = spawnSync(process.execPath, args, { cwd, env: { ...base, ...env, CDKTF_OUTDIR: outdir }, encoding: 'utf8', maxBuffer: 1 << 26 });
  if (result.status !== 0) throw new Error(`${name} exited ${result.status}: ${result.stderr}`);
  return outdir;
}
