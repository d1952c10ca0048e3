import { noContent } from '../respond';
import type { DevResponse } from '../types';
import { requireConfig } from './config';
import { generatePassword } from './passwords';
import type { LdapConfig, LdapEngine } from './state';

/**
 * Binds as the configured binddn before touching the directory, as the engine does on each operation.
 * A wrong bindpass (e.g. one written back after rotate-root) or a binddn missing from the directory fails
 * with the directory's error (500, LDAP result code 49).
 */
export function bindAsConfigured(engine: LdapEngine): LdapConfig {
  const config = requireConfig(engine);
  engine.ctx.directory.bind(config.binddn, config.bindpass);
  return config;
}

/** `POST rotate-root`: a new bind password, set on the binddn entry and kept only by the engine. */
export function rotateRoot(engine: LdapEngine): DevResponse {
  const config = bindAsConfigured(engine);
  const password = generatePassword(engine, config);
  engine.ctx.directory.setPassword(config.binddn, password);
  config.bindpass = password;
  return noContent();
}
