import { randomInt } from 'node:crypto';
import { multiError } from '../respond';
import type { LdapConfig, LdapEngine } from './state';

const DEFAULT_LENGTH = 64;
const LETTERS_AND_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function randomString(charset: string, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += charset[randomInt(charset.length)];
  return out;
}

/**
 * A new password by the configuration's rules: the named password policy, else `length` (default 64)
 * letters and digits. The policy is looked up only now, as on the service (saving the config does not check it).
 */
export function generatePassword(engine: LdapEngine, config: LdapConfig): string {
  if (config.passwordPolicy !== undefined) {
    const policy = engine.ctx.passwordPolicies.get(config.passwordPolicy);
    if (!policy) {
      throw multiError(`unable to generate password: password policy "${config.passwordPolicy}" does not exist`);
    }
    return randomString(policy.charset, policy.length);
  }
  return randomString(LETTERS_AND_DIGITS, config.length ?? DEFAULT_LENGTH);
}
