/**
 * The service connection comes from the environment only (SERVICE_ADDR, SERVICE_TOKEN, SERVICE_CACERT,
 * SERVICE_CLIENT_CERT, SERVICE_CLIENT_KEY, SERVICE_SKIP_VERIFY). Checked before a command that talks to the
 * service does any work, so a missing token fails at once with the fix instead of as a 403 halfway through.
 */
import { loadClientConfig } from '../client/config';
import { writeWarning, type CliIo } from './io';

/** Returns the problem with the service environment (never quoting the token), or undefined when it is usable. */
export function checkServiceEnvironment(io: CliIo): string | undefined {
  const loaded = loadClientConfig(io.env);
  if (!loaded.ok) return loaded.error.message;
  if (loaded.config.token === undefined) {
    return 'SERVICE_TOKEN is not set: export the service token as SERVICE_TOKEN (secretform never takes it on the command line)';
  }
  for (const warning of loaded.config.warnings) writeWarning(io, warning);
  return undefined;
}
