/**
 * The approval step of apply and destroy. Only an interactive stdin can approve; in CI (a pipe, /dev/null) the
 * command must be told with --auto-approve, so a forgotten flag never waits forever or applies by accident.
 */
import * as readline from 'node:readline';
import type { CliIo, InputStream } from './io';
import { rerunCommand, WHOLE_RUN, type RunSelection } from '../views/rerun-command';

export const APPROVAL_QUESTION = "Do you want to perform these actions? Only 'yes' will be accepted: ";

export function isInteractive(stdin: InputStream): boolean {
  return stdin.isTTY === true;
}

/**
 * The message for a run that needs approval but cannot ask for it. Its commands repeat the run's `--stack` and
 * `--target` flags (`selection`, as given): pasted without them, an apply of one stack of several is refused and
 * one after `--target` would change everything.
 */
export function approvalRefusal(command: 'apply' | 'destroy', selection: RunSelection = WHOLE_RUN): string {
  return (
    `${command} needs approval, but stdin is not interactive, so secretform cannot ask for it. ` +
    `Review the plan (${rerunCommand('plan', selection)}) and run \`${rerunCommand(command, selection)} --auto-approve\` to ${command} without asking.`
  );
}

/** Asks on stdout and reads one line from stdin: true only for exactly "yes" (surrounding blanks ignored). */
export function askApproval(io: CliIo): Promise<boolean> {
  io.stdout.write(`\n${APPROVAL_QUESTION}`);
  return new Promise((resolve) => {
    const lines = readline.createInterface({ input: io.stdin, terminal: false });
    let answered = false;
    lines.once('line', (line) => {
      answered = true;
      lines.close();
      resolve(line.trim() === 'yes');
    });
    // End of input without an answer is a refusal.
    lines.once('close', () => {
      if (!answered) resolve(false);
    });
  });
}
