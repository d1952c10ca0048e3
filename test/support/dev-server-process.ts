/**
 * A `secretform dev-server` as its own process, started as a page of the docs says (`npx secretform dev-server`,
 * `node bin/secretform.js dev-server`), on a free port: the tests that run the docs' blocks share it.
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface DevServerProcess {
  child: ChildProcess;
  /** `http://127.0.0.1:PORT`, from the line the server prints once it listens. */
  url: Promise<string>;
}

/**
 * Runs `command args... --port 0` and resolves the address the server prints. `detached` gives it its own process
 * group (npx runs the server as a child of its own: stop both with `stopDevServerProcess`).
 */
export function startDevServerProcess(command: string, args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; detached?: boolean } = {}): DevServerProcess {
  const child = spawn(command, [...args, '--port', '0'], { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'], detached: options.detached === true });
  const url = new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += String(chunk);
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]);
    });
    child.stderr.on('data', (chunk) => (output += String(chunk)));
    child.on('error', reject);
    child.on('close', (code) => reject(new Error(`the dev server exited (${code}):\n${output}`)));
  });
  return { child, url };
}

/** Stops a server started by `startDevServerProcess` (its whole process group when it was detached). */
export function stopDevServerProcess(server: ChildProcess, detached = false): void {
  try {
    if (detached && server.pid !== undefined) process.kill(-server.pid, 'SIGTERM');
    else server.kill('SIGTERM');
  } catch {
    // Already gone.
  }
}
