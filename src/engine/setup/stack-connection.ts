/**
 * Which service a stack's run talks to, and with which token: the stack's ServiceConnection when it has one
 * (its address, the variable its `tokenEnv` names, its PEM files), else the `SERVICE_*` environment. Checked
 * without any request, so a missing token variable or an unreadable file fails the stack before anything is sent.
 */
import * as path from 'node:path';
import { clientConfigFrom, loadClientConfig, type ClientConfig, type SettingNames } from '../../client/config';
import type { DesiredConnection } from './desired';
import { EngineError, fail, ok, type Result } from '../errors';

/** The token's variable of a stack without a connection. */
export const ENVIRONMENT_TOKEN_VARIABLE = 'SERVICE_TOKEN';

export interface StackConnectionInput {
  stack: string;
  /** The stack's connection (from its desired state), if any. */
  connection?: DesiredConnection;
  env: NodeJS.ProcessEnv;
  /** The project directory: a connection's relative file paths are resolved against it. */
  cwd: string;
}

export interface CheckedConnection {
  config: ClientConfig;
  /** The variable the token came from (`SERVICE_TOKEN`, or the connection's `tokenEnv`). */
  tokenVariable: string;
  /** Where the settings came from, for messages: `SERVICE_ADDR` or the connection's construct path. */
  source: string;
}

/**
 * The client settings of one stack's run, checked without any request: the address is valid, the files are
 * readable PEM, and (unless `requireToken` is false) the token's variable is set. Errors name the stack, and the
 * variable or the connection's prop at fault; never the token.
 */
export function checkStackConnection(input: StackConnectionInput, requireToken = true): Result<CheckedConnection> {
  const { stack, connection } = input;
  if (!connection) {
    const loaded = loadClientConfig(input.env);
    if (!loaded.ok) return fail(new EngineError('service_config', `${loaded.error.variable}: ${loaded.error.message}`));
    if (requireToken && loaded.config.token === undefined) {
      return fail(new EngineError('service_config', `${ENVIRONMENT_TOKEN_VARIABLE} is not set: export the service token as ${ENVIRONMENT_TOKEN_VARIABLE} (secretform never takes it on the command line)`));
    }
    return ok({ config: loaded.config, tokenVariable: ENVIRONMENT_TOKEN_VARIABLE, source: 'SERVICE_ADDR' });
  }
  const where = connection.construct;
  const names: SettingNames = {
    address: `${where}: address`,
    caCertFile: `${where}: caCertFile`,
    clientCertFile: `${where}: clientCertFile`,
    clientKeyFile: `${where}: clientKeyFile`,
    tls: `caCertFile, clientCertFile, clientKeyFile, skipVerify of ${where}`,
  };
  const file = (value: string | undefined) => (value === undefined ? undefined : path.resolve(input.cwd, value));
  const loaded = clientConfigFrom({
    address: connection.address,
    token: input.env[connection.tokenEnv],
    caCertFile: file(connection.caCertFile),
    clientCertFile: file(connection.clientCertFile),
    clientKeyFile: file(connection.clientKeyFile),
    skipVerify: connection.skipVerify,
  }, names);
  // The stack's own connection: its errors name the stack, in a run of one stack too.
  if (!loaded.ok) return fail(new EngineError('service_config', loaded.error.message, { stack }));
  if (requireToken && loaded.config.token === undefined) {
    return fail(new EngineError('service_config',
      `${connection.tokenEnv} is not set: the stack's ServiceConnection ${where} reads the token for ${loaded.config.address} from ` +
        `${connection.tokenEnv} (tokenEnv); export the token as ${connection.tokenEnv} (secretform never takes it on the command line). Nothing was sent.`, { stack }));
  }
  // The client's hints (a refused token, an unreachable address, a TLS failure) name what this stack really uses.
  const settingNames = {
    SERVICE_ADDR: `the address of ${where}`,
    SERVICE_TOKEN: connection.tokenEnv,
    SERVICE_CACERT: `caCertFile of ${where}`,
    SERVICE_CLIENT_CERT: `clientCertFile of ${where}`,
    SERVICE_CLIENT_KEY: `clientKeyFile of ${where}`,
    'SERVICE_SKIP_VERIFY=true': `skipVerify: true on ${where}`,
  };
  return ok({ config: { ...loaded.config, settingNames }, tokenVariable: connection.tokenEnv, source: where });
}
