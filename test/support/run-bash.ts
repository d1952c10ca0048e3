/**
 * A documented shell block run as a user would paste it: `bash -euo pipefail -c SCRIPT`, so a failing line
 * fails the block, with both outputs collected whole.
 */
import { spawn } from 'node:child_process';

export interface BashRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runBash(script: string, cwd?: string, environment?: NodeJS.ProcessEnv): Promise<BashRun> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-euo', 'pipefail', '-c', script], { cwd, env: environment, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
