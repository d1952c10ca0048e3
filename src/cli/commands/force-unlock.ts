/**
 * `secretform force-unlock [--force]`: removes the state lock of a command that is no longer running (on another
 * machine, where secretform cannot tell). Asks first (`--force` skips the question). For PostgreSQL this ends the
 * holder's database session, which releases its lock. A local lock whose holder died on this machine never needs
 * this: the next command takes it over.
 */
import type { Command } from 'commander';
import { forceUnlock, stateLockHolder } from '../../engine';
import { describeHolder } from '../../engine/state/lock-messages';
import { askApproval, isInteractive } from '../run/approval';
import { addStateLocationOptions, ONLY_STACK } from '../run/engine-flags';
import { addEnvironmentHelp, STATE_VARIABLES } from '../run/environment-variables';
import { commandFailure, CommandFailure, usageFailure, type CommandEnd } from '../run/command-failure';
import { processIo, type CliIo } from '../run/io';
import type { CommandOutcome } from '../run/command-outcome';
import { stateOptions, type StateFlags } from '../run/state-options';

export function registerForceUnlockCommand(program: Command, outcome: CommandOutcome): void {
  addStateLocationOptions(addEnvironmentHelp(program.command('force-unlock').description('remove the state lock left by a command that is no longer running'), STATE_VARIABLES), ONLY_STACK)
    .option('--force', 'do not ask for confirmation')
    .action(async (flags: StateFlags) => {
      outcome.end = await runForceUnlock(flags, processIo());
    });
}

export async function runForceUnlock(flags: StateFlags, io: CliIo): Promise<CommandEnd> {
  let options;
  try {
    options = stateOptions(flags, io, 'force-unlock');
  } catch (error) {
    return commandFailure(error);
  }
  const holder = await stateLockHolder(options);
  if (!holder.ok) return commandFailure(holder.error);
  if (!holder.value) {
    io.stdout.write('The state is not locked. Nothing to do.\n');
    return 0;
  }
  io.stdout.write(`The state is locked by ${describeHolder(holder.value)}.\n`);
  if (flags.force !== true) {
    if (!isInteractive(io.stdin)) {
      return usageFailure('force-unlock needs confirmation, but stdin is not interactive; pass --force if that command is no longer running');
    }
    io.stdout.write('Removing the lock while that command still runs lets two commands change the state at once.');
    if (!(await askApproval(io))) return new CommandFailure('cancelled', "force-unlock cancelled: only 'yes' approves; the lock is still held");
  }
  const removed = await forceUnlock(options);
  if (!removed.ok) return commandFailure(removed.error);
  io.stdout.write(removed.value ? `Removed the lock of ${describeHolder(removed.value)}.\n` : 'The lock was released meanwhile. Nothing to do.\n');
  return 0;
}
