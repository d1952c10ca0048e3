/**
 * What the tests that run the real terraform share: where it is, the `describe` that skips (saying why) when it
 * is absent outside CI, and a child runner that does not block this process (the dev servers answer from it).
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

export const TERRAFORM = process.env.SECRETFORM_TEST_TERRAFORM ?? '/usr/local/bin/terraform';
const haveTerraform = fs.existsSync(TERRAFORM);
if (!haveTerraform) {
  const why = `terraform not found at ${TERRAFORM} (set SECRETFORM_TEST_TERRAFORM): the cdktf deploy bridge tests cannot run`;
  if (process.env.CI === 'true') throw new Error(why);
  process.stderr.write(`SKIPPED: ${why}\n`);
}
export const describeWithTerraform = haveTerraform ? describe : describe.skip;

/** Runs a child with `env`; resolves to its output, rejects with it when the child fails or runs past `timeoutMs`. */
export function runChild(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, timeoutMs = 120_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(output);
      else reject(new Error(`${path.basename(command)} ${args.join(' ')} failed (${code ?? signal}):\n${output}`));
    });
  });
}
