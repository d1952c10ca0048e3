/**
 * A separate process that takes a stack's state lock through the compiled engine (dist/) and then ends the way
 * the test asks: holds it until killed, throws, exits at once as a second Ctrl-C does, or dies writing to a
 * closed stdout (EPIPE). Tests check which of these leave the lock behind (none may).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tempDir } from './temp-dir';

const DIST = resolve(__dirname, '../../dist');

const SCRIPT = `
const { openLockedState } = require(${JSON.stringify(join(DIST, 'engine/state/locked-state.js'))});
const { resolveStateLocation } = require(${JSON.stringify(join(DIST, 'engine/state/state-location.js'))});
const [state, stack, mode] = process.argv.slice(2);
(async () => {
  const location = resolveStateLocation(state, {}, process.cwd(), stack);
  if (!location.ok) { process.stderr.write(location.error.message + '\\n'); process.exit(3); }
  const locked = await openLockedState(location.value, stack, 'secretform apply', 0);
  if (!locked.ok) { process.stderr.write(locked.error.message + '\\n'); process.exit(3); }
  process.stdout.write('locked\\n');
  if (mode === 'throw') setTimeout(() => { throw new Error('an error nobody caught'); }, 20);
  else if (mode === 'exit') setTimeout(() => process.exit(130), 20);
  else if (mode === 'epipe') process.stdin.once('data', () => setInterval(() => process.stdout.write('x'.repeat(65536)), 5));
  else setInterval(() => undefined, 1000);
})();
`;

export type HolderMode = 'hold' | 'throw' | 'exit' | 'epipe';

export interface LockHolderProcess {
  child: ChildProcess;
  stderr(): string;
  exited: Promise<number | null>;
}

/** Starts the holder and resolves once it holds the lock. */
export async function startLockHolder(state: string, stack: string, mode: HolderMode): Promise<LockHolderProcess> {
  const dir = tempDir('secretform-lock-holder-');
  const script = join(dir, 'hold.js');
  writeFileSync(script, SCRIPT);
  const child = spawn(process.execPath, [script, state, stack, mode], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  await new Promise<void>((done, fail) => {
    const onData = (chunk: Buffer): void => {
      stdout += chunk.toString();
      if (stdout.includes('locked\n')) {
        child.stdout.off('data', onData);
        done();
      }
    };
    child.stdout.on('data', onData);
    void exited.then((code) => fail(new Error(`the lock holder exited (${code}) before taking the lock: ${stderr}`)));
  });
  return { child, stderr: () => stderr, exited };
}

export interface OrphanedLockHolder {
  /** The pid of the process holding the lock. */
  pid: number;
  /** Its parent: a `sleep` that never reaps it, so once killed the holder stays a zombie until this one ends. */
  parent: ChildProcess;
}

/**
 * Starts a holder whose parent never reaps it (a shell that starts it in the background, then becomes `sleep`),
 * and resolves once it holds the lock: killing `pid` then leaves a zombie, as a killed command whose parent is busy
 * does. End `parent` to let init reap it.
 */
export async function startOrphanedLockHolder(state: string, stack: string): Promise<OrphanedLockHolder> {
  const dir = tempDir('secretform-lock-holder-');
  const script = join(dir, 'hold.js');
  writeFileSync(script, SCRIPT);
  const parent = spawn('/bin/sh', ['-c', '"$0" "$1" "$2" "$3" hold & echo "pid:$!"; exec sleep 600', process.execPath, script, state, stack], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  parent.stderr.on('data', (chunk) => (stderr += chunk));
  const pid = await new Promise<number>((done, fail) => {
    parent.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const started = /pid:(\d+)/.exec(stdout);
      if (started && stdout.includes('locked\n')) done(Number(started[1]));
    });
    parent.on('exit', (code) => fail(new Error(`the holder's parent exited (${code}) before the lock was taken: ${stderr}`)));
  });
  return { pid, parent };
}
