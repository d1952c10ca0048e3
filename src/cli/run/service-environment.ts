/**
 * The service connection of a stack: its ServiceConnection (address, the variable that holds the token, PEM
 * files), else the environment (SERVICE_ADDR, SERVICE_TOKEN, SERVICE_CACERT, SERVICE_CLIENT_CERT,
 * SERVICE_CLIENT_KEY, SERVICE_SKIP_VERIFY). Checked before a command that talks to the service sends anything,
 * so a missing token fails at once with the fix instead of as a 403 halfway through.
 */
import { checkStackConnection, type SavedPlan } from '../../engine';
import { connectionOfObject } from '../../engine/setup/desired';
import { commandFailure, CommandFailure } from './command-failure';
import { writeWarning, type CliIo } from './io';

/** The problem with the service environment (never quoting the token), or undefined when it is usable. */
export function checkServiceEnvironment(io: CliIo): CommandFailure | undefined {
  return checkSavedPlanConnection(undefined, io);
}

/** The problem with the connection a saved plan's stack uses (its own, else the environment), or undefined. */
export function checkSavedPlanConnection(saved: Pick<SavedPlan, 'stack' | 'connection'> | undefined, io: CliIo): CommandFailure | undefined {
  let connection;
  try {
    connection = saved?.connection === undefined ? undefined : connectionOfObject(saved.connection, 'saved plan');
  } catch (error) {
    return new CommandFailure('plan_file', (error as Error).message);
  }
  const checked = checkStackConnection({ stack: saved?.stack ?? '', connection, env: io.env, cwd: io.cwd });
  if (!checked.ok) return commandFailure(checked.error);
  for (const warning of checked.value.config.warnings) writeWarning(io, warning);
  return undefined;
}
