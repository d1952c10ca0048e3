/**
 * A separate process that takes a stack's state lock through the compiled engine (dist/) and then ends the way
 * the test asks: holds it until killed, throws, exits at once as a second Ctrl-C does, or dies writing to a
 * closed stdout (EPIPE). Tests check which of these leave the lock behind (none may).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

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
  const dir = mkdtempSync(join(tmpdir(), 'secretform-lock-holder-'));
  const script = join(dir, 'hold.js');
  writeFileSync(script, SCRIPT);
  const child = spawn(process.execPath, [script, state, stack, mode], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  await new Promise<void>((done, fail) => {
    const onData = (chunk: Buffer): void => {
      stdout += chunk;
      if (stdout.includes('locked\n')) {
        child.stdout!.off('data', onData);
        done();
      }
    };
    child.stdout!.on('data', onData);
    void exited.then((code) => fail(new Error(`the lock holder exited (${code}) before taking the lock: ${stderr}`)));
  });
  return { child, stderr: () => stderr, exited };
}
