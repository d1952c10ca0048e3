/**
 * `secretform exec ADDRESS [--ttl D] [stack options] -- COMMAND [ARG...]`: runs COMMAND with credentials of the
 * object in its environment (creds of a role, a checked-out library account, a userpass login token), and exits
 * with COMMAND's exit code. A checked-out account is checked back in when COMMAND ends, whatever its exit code
 * and also after Ctrl-C, which is passed on to COMMAND. COMMAND gets none of secretform's own settings
 * (SERVICE_*, SECRETFORM_*) nor the variables that hold the stack's secrets.
 */
import { spawn } from 'node:child_process';
import { constants as osConstants } from 'node:os';
import type { Command } from 'commander';
import { runOperation, stateShow, type OperationAnswer } from '../../engine';
import type { EngineOptions } from '../../engine/setup/engine-options';
import { isDenied, secretVariablesOfOutput } from '../../synth-environment';
import { findResourceType } from '../../resources/registry';
import type { OperationName } from '../../resources/types';
import { ADDRESS_STACK, addStateLocationOptions, addSynthOptions, nonEmptyFlag, parseEngineFlags, type StateFlags } from '../run/engine-flags';
import { commandFailure, CommandFailure, type CommandEnd } from '../run/command-failure';
import { processIo, writeError, type CliIo } from '../run/io';
import type { CommandOutcome } from '../run/command-outcome';
import { oneStackOf, prepareOneStackRun } from '../run/stack-choice';
import { credentialEnvironment } from '../views/operation-output';
import { describeEngineError } from '../../report/engine-error';
import { UsageError } from '../run/usage-error';
import { addEnvironmentHelp, SERVICE_VARIABLES, STATE_VARIABLES, SYNTH_VARIABLES } from '../run/environment-variables';

/** The operation exec runs for a type: the first of these the type offers. */
export const EXEC_OPERATIONS: readonly OperationName[] = ['check-out', 'creds', 'login'];

/** What `exec` exits with when COMMAND cannot be started (as shells do). */
export const COMMAND_NOT_STARTED_EXIT_CODE = 127;

export interface ExecFlags extends StateFlags {
  ttl?: string;
}

type Forwarded = 'SIGINT' | 'SIGTERM' | 'SIGHUP';
const FORWARDED_SIGNALS: readonly Forwarded[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

export function registerExecCommand(program: Command, outcome: CommandOutcome): void {
  addSynthOptions(
    addStateLocationOptions(
      addEnvironmentHelp(program.command('exec'), [...SERVICE_VARIABLES, ...STATE_VARIABLES, ...SYNTH_VARIABLES])
        .description('run a command with credentials of a managed object in its environment (a library account is checked in afterwards); it reads the state without locking it, so it has no --lock-timeout')
        .argument('<address>', 'resource address in the code (a role, a library set or a userpass user)')
        .argument('<command...>', 'the command and its arguments, after --'),
      ADDRESS_STACK,
    ).option('--ttl <duration>', 'library set: how long the check-out lasts (capped by the set\'s ttl)'),
  )
    .action(async (address: string, command: string[], flags: ExecFlags) => {
      outcome.end = await runExec(address, command, flags, processIo());
    });
}

export async function runExec(address: string, command: string[], flags: ExecFlags, io: CliIo): Promise<CommandEnd> {
  let settings;
  try {
    nonEmptyFlag('ADDRESS', address);
    if (command.length === 0 || command[0] === '') throw new UsageError('exec needs a command after --, e.g. `secretform exec prod/ldap/pool -- ./job.sh`');
    // Without --stack, the address names its stack (its first segment), and so which connection to use.
    const parsed = parseEngineFlags(flags);
    settings = { ...parsed, stack: oneStackOf(parsed, 'exec', address) };
  } catch (error) {
    return commandFailure(error);
  }
  const prepared = await prepareOneStackRun(settings, 'exec', io);
  if (prepared instanceof CommandFailure) return prepared;
  const operation = await execOperation(prepared, address);
  if (operation instanceof CommandFailure) return operation;
  const answered = await runOperation(prepared, { address, operation, ttl: flags.ttl });
  if (!answered.ok) return commandFailure(answered.error);
  for (const note of answered.value.notes) io.stderr.write(`Note: ${note}\n`);

  const secretVariables = prepared.desired.kind === 'synth-output' ? secretVariablesOfOutput(prepared.desired.outdir) : new Set<string>();
  const exitCode = await runChild(command, childEnvironment(io.env, secretVariables, answered.value), io);
  if (operation !== 'check-out') return exitCode;
  return checkBackIn(prepared, address, answered.value, exitCode, io);
}

/** The operation exec runs for the object at `address`, from its type in state. */
async function execOperation(options: EngineOptions, address: string): Promise<OperationName | CommandFailure> {
  const entry = await stateShow(options, address);
  if (!entry.ok) return new CommandFailure(entry.error.code, `${entry.error.message}; nothing was sent`, entry.error.subject);
  const resourceType = findResourceType(entry.value.type);
  const offered = resourceType?.operations.map((candidate) => candidate.name) ?? [];
  const operation = EXEC_OPERATIONS.find((name) => offered.includes(name));
  if (!operation) {
    return new CommandFailure(
      'operation_unsupported',
      `${address} is a ${resourceType?.construct ?? entry.value.type}, which returns no credentials (it offers: ${offered.join(', ') || 'none'}); exec needs a type that offers ${EXEC_OPERATIONS.join(', ')}; nothing was sent`,
    );
  }
  return operation;
}

/** The child needs the credentials exec gives it, never secretform's own settings or the stack's secrets. */
function childEnvironment(env: NodeJS.ProcessEnv, secretVariables: ReadonlySet<string>, answer: OperationAnswer): NodeJS.ProcessEnv {
  const child = Object.fromEntries(Object.entries(env).filter(([name]) => !isDenied(name, secretVariables)));
  return { ...child, ...credentialEnvironment(answer) };
}

/** Runs COMMAND with this process's stdio; signals this process gets while it runs are passed on to it. */
function runChild(command: string[], env: NodeJS.ProcessEnv, io: CliIo): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command[0], command.slice(1), { env, stdio: 'inherit' });
    const forwarders = FORWARDED_SIGNALS.map((signal) => {
      const forward = () => {
        if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      };
      process.on(signal, forward);
      return () => process.off(signal, forward);
    });
    const done = (code: number) => {
      forwarders.forEach((stop) => stop());
      resolve(code);
    };
    child.once('error', (error) => {
      writeError(io, `cannot run ${command[0]}: ${error.message}`);
      done(COMMAND_NOT_STARTED_EXIT_CODE);
    });
    child.once('exit', (code, signal) => {
      // A command killed by a signal exits as shells report it: 128 + the signal number.
      done(code ?? (signal ? 128 + (osConstants.signals[signal] ?? 0) : 1));
    });
  });
}

/** Checks the account back in; COMMAND's exit code stands unless that fails (then 1 if COMMAND succeeded). */
async function checkBackIn(options: EngineOptions, address: string, answer: OperationAnswer, exitCode: number, io: CliIo): Promise<CommandEnd> {
  const account = typeof answer.fields.service_account_name === 'string' ? answer.fields.service_account_name : undefined;
  const checkedIn = await runOperation(options, { address, operation: 'check-in', accounts: account ? [account] : undefined });
  if (!checkedIn.ok) {
    return new CommandFailure(
      checkedIn.error.code,
      `the command ended, but checking ${account ?? 'the account'} back in failed: ${describeEngineError(checkedIn.error)}. Check it in with \`secretform action check-in ${address}${account ? ` --account ${account}` : ''}\`; otherwise it returns when its check-out expires.`,
      {},
      // COMMAND's own exit code stands; a command that succeeded fails.
      exitCode === 0 ? 1 : exitCode,
    );
  }
  io.stderr.write(`Checked ${account ?? 'the account'} back in to ${address}.\n`);
  return exitCode;
}
