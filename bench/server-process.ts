/**
 * `secretform dev-server` in a process of its own, for the bench: a service on the same machine but not inside the
 * bench's process (its own event loop, its own heap and GC, scheduled by the OS like any other server).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const BIN = join(resolve(__dirname, '..'), 'bin', 'secretform.js');
/** How long the server may take to say where it listens. */
const START_TIMEOUT_MS = 60_000;

export interface ServerProcess {
  url: string;
  /** CPU time (user + system) the server process has used so far, or undefined where /proc is not there. */
  cpuSeconds(): number | undefined;
  /** SIGTERM, then what the server printed when it stopped (its request count and most in flight). */
  close(): Promise<string>;
}

/** Starts `secretform dev-server --port 0 ARGS...` (dist/ built) and resolves once it listens. */
export function startServerProcess(args: string[]): Promise<ServerProcess> {
  const child = spawn(process.execPath, [BIN, 'dev-server', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH, NO_COLOR: '1' } });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exited = new Promise<void>((done) => child.once('close', () => done()));
  return new Promise((done, reject) => {
    const timer = setTimeout(() => fail(`did not listen within ${START_TIMEOUT_MS / 1000} s`), START_TIMEOUT_MS);
    const fail = (why: string) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`secretform dev-server ${why}: ${err.trim().slice(0, 500)}`));
    };
    const onClose = (code: number | null) => fail(`exited ${code} before it listened`);
    child.once('close', onClose);
    const onData = () => {
      const listening = /dev server listening on (\S+)/.exec(out);
      if (!listening) return;
      clearTimeout(timer);
      child.off('close', onClose);
      child.stdout.off('data', onData);
      done({
        url: listening[1],
        cpuSeconds: () => processCpuSeconds(child.pid!),
        close: async () => {
          child.kill('SIGTERM');
          await exited;
          return out.trim().split('\n').pop() ?? '';
        },
      });
    };
    child.stdout.on('data', onData);
  });
}

/** utime + stime of a process from /proc/PID/stat (fields 14 and 15, in clock ticks of 1/100 s on Linux). */
function processCpuSeconds(pid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces: count the fields after its closing one.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
