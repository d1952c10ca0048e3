/**
 * The streams and environment a command runs with. Commands take them as a value (default: this process) so
 * tests can drive a command with a fake terminal, and so no command reaches for `process` on its own.
 */
export interface OutputStream {
  write(chunk: string): unknown;
  /** Set on a terminal; decides colour, progress lines and the approval prompt. */
  isTTY?: boolean;
}

export interface InputStream extends NodeJS.ReadableStream {
  isTTY?: boolean;
}

export interface CliIo {
  stdout: OutputStream;
  stderr: OutputStream;
  stdin: InputStream;
  env: NodeJS.ProcessEnv;
  /** The project directory: cdktf.json, cdktf.out and the default state live here. */
  cwd: string;
}

export function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, cwd: process.cwd() };
}

/** Errors go to stderr as `Error: <message>`; the engine's messages already say how to fix the problem. */
export function writeError(io: Pick<CliIo, 'stderr'>, message: string): void {
  io.stderr.write(`Error: ${message}\n`);
}

export function writeWarning(io: CliIo, message: string): void {
  io.stderr.write(`Warning: ${message}\n`);
}
