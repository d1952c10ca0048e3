/**
 * How the binary ends (bin/secretform.js, `exitOnceWritten`): once its command is over and stdout and stderr have
 * taken everything written to them, whatever else node still holds; and never before a slow reader has had every
 * byte. A preload (`node --require`) stands for what a run leaves behind: a timer still pending, output a pipe has
 * not taken yet.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN } from './cli-harness';
import { tempDir } from '../support/temp-dir';

jest.setTimeout(120_000);

interface Ended {
  code: number | null;
  stdout: string;
  stderr: string;
  seconds: number;
}

/** Runs `node --require PRELOAD bin/secretform.js ARGS`; with `readAfterMs`, its stdout is read only after that long. */
function runWithPreload(preload: string, args: string[], readAfterMs = 0): Promise<Ended> {
  const file = join(tempDir('secretform-exit-'), 'preload.js');
  writeFileSync(file, preload);
  const started = performance.now();
  const child = spawn(process.execPath, ['--require', file, BIN, ...args], { env: { PATH: process.env.PATH, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
  // Paused, the pipe fills (64 KB) and the child's writes wait for this reader.
  child.stdout.pause();
  setTimeout(() => {
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stdout.resume();
  }, readAfterMs);
  return new Promise((resolve) => {
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), seconds: (performance.now() - started) / 1000 }));
  });
}

test('the binary ends when its command has ended, not when a timer the run left behind fires', async () => {
  // A minute-long timer that keeps node's event loop alive: a natural exit would wait for it.
  const ended = await runWithPreload('setTimeout(() => {}, 60_000);\n', ['--help']);
  expect(ended.stderr).toBe('');
  expect(ended.code).toBe(0);
  expect(ended.stdout).toContain('Usage: secretform');
  expect(ended.seconds).toBeLessThan(30);
});

test('every byte reaches a reader slower than the binary, and then it ends', async () => {
  // 4 MB of lines written before the command runs: most of it is still waiting for the pipe when the command ends.
  const line = `${'x'.repeat(1023)}\n`;
  const preload = `process.stdout.write(${JSON.stringify(line)}.repeat(4096));\nsetTimeout(() => {}, 60_000);\n`;
  const ended = await runWithPreload(preload, ['--help'], 1_500);
  expect(ended.stderr).toBe('');
  expect(ended.code).toBe(0);
  expect(ended.stdout.length).toBeGreaterThan(4096 * 1024);
  expect(ended.stdout.startsWith(line.repeat(4096))).toBe(true);
  expect(ended.stdout.slice(4096 * 1024)).toContain('Usage: secretform');
  expect(ended.seconds).toBeLessThan(30);
});

test('a reader that goes away early ends the binary at once with the closed-output code', async () => {
  const file = join(tempDir('secretform-exit-'), 'preload.js');
  writeFileSync(file, `process.stdout.write('x'.repeat(4 * 1024 * 1024));\nsetTimeout(() => {}, 60_000);\n`);
  const started = performance.now();
  const child = spawn(process.execPath, ['--require', file, BIN, '--help'], { env: { PATH: process.env.PATH, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  // The first chunk read, the reader closes its end: the rest of the 4 MB cannot be written.
  child.stdout.once('data', () => child.stdout.destroy());
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  expect(code).toBe(141);
  expect((performance.now() - started) / 1000).toBeLessThan(30);
});
