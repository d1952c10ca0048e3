/**
 * Which service a stack's state belongs to. The state records the address of the service each apply wrote to
 * (the service API has no endpoint that names a service instance, so the address is its identity), and a run
 * whose connection names another service is refused before any request: planned against the wrong service,
 * every object reads "deleted outside", and an apply would drop them all from state (orphaning them on the
 * service they live on) and create them again where they do not belong. `--migrate-state` moves a stack to
 * another service on purpose.
 */
import { EngineError } from '../errors';
import type { StateFile } from '../state/state-file';

/**
 * The address as the state records it: scheme, host and port in canonical form (lower case, no default
 * port), then the path without its trailing "/", so that two spellings of one address compare equal.
 */
export function serviceIdentity(address: string): string {
  try {
    const url = new URL(address);
    return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    // Checked before (client/config.ts); kept as written if it ever is not a URL.
    return address;
  }
}

/**
 * The refusal of a run whose service is not the one the state records, or undefined: a state that records
 * none (written by an older version, or never applied) is accepted, and the next apply records the service.
 */
export function serviceMismatch(input: {
  stack: string;
  state: StateFile;
  stateLocation: string;
  /** The run's service (`serviceIdentity`) and where its address came from (SERVICE_ADDR, a connection's path). */
  service: string;
  source: string;
  migrateState: boolean;
}): EngineError | undefined {
  const recorded = input.state.service;
  if (recorded === undefined || recorded === input.service || input.migrateState) return undefined;
  return new EngineError(
    'service_mismatch',
    `its state (${input.stateLocation}) was applied to the service at ${recorded}, but this run's connection ` +
      `(${input.source}) names ${input.service}, so nothing was changed. Planned there, every object would read "deleted outside" and apply would ` +
      `forget them, leaving them unmanaged on ${recorded}.\n` +
      `If the address is wrong, point the stack back at ${recorded} (its ServiceConnection, or SERVICE_ADDR). ` +
      `If the stack's objects have moved to ${input.service} on purpose, run \`secretform plan --migrate-state\` to see what that service holds, ` +
      `then \`secretform apply --migrate-state\`: it applies the code there (creating what is missing) and records ${input.service} in the state (docs/state.md).`,
    // "its state": the message is about the stack, in a run of one stack too.
    { stack: input.stack },
  );
}
