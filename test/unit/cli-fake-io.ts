/** A CliIo over strings, for unit tests of the CLI helpers and commands. */
import { PassThrough } from 'node:stream';
import type { CliIo, InputStream, OutputStream } from '../../src/cli/run/io';
import { tempDir } from '../support/temp-dir';

export interface CapturedStream extends OutputStream {
  text: string;
}

export function capture(isTTY = false): CapturedStream {
  const stream: CapturedStream = {
    text: '',
    isTTY,
    write(chunk: string) {
      stream.text += chunk;
      return true;
    },
  };
  return stream;
}

export interface FakeIo extends CliIo {
  stdout: CapturedStream;
  stderr: CapturedStream;
  stdin: PassThrough & InputStream;
}

export function fakeIo(options: { tty?: boolean; env?: NodeJS.ProcessEnv; cwd?: string } = {}): FakeIo {
  const stdin = new PassThrough() as PassThrough & InputStream;
  stdin.isTTY = options.tty === true;
  return {
    stdout: capture(options.tty === true),
    stderr: capture(options.tty === true),
    stdin,
    env: options.env ?? {},
    cwd: options.cwd ?? tempDir('cli-unit-'),
  };
}
