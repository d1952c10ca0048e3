/** Users of the userpass auth method. */
import { isIP } from 'node:net';
import type { Construct } from 'constructs';
import { z } from 'zod';
import { userpassUser } from '../resources/userpass-user';
import type { SecretValue } from '../secret-value';
import { AuthMount } from './mounts';
import { constructOrPathSchema, resolveMountReference } from './references';
import { SecretformResource } from './resource';
import { bool, durationNotAbove, durationSchema, exactlyOne, nonEmptyString, nonNegativeInt, secretSchema, type PropIssue } from './validation';

export const TOKEN_TYPES = ['service', 'batch', 'default'] as const;

export interface UserpassUserProps {
  /**
   * The userpass auth method: an `AuthMount` of this stack, or its path (without "auth/").
   * @default "userpass"
   */
  readonly mount?: AuthMount | string;
  /**
   * User name: letters, digits, "_", "-", "."; not starting with "-"; not starting or ending with ".".
   * The service lower-cases it.
   */
  readonly username: string;
  /**
   * Password; exactly one of `password` and `passwordHash`. Set on creation; a changed value is sent through
   * the password endpoint.
   * @default - none
   */
  readonly password?: SecretValue;
  /**
   * Pre-hashed password in bcrypt format; exactly one of `password` and `passwordHash`.
   * @default - none
   */
  readonly passwordHash?: SecretValue;
  /**
   * Incremental lifetime of generated tokens; `"1h"`-style string or integer seconds; at most `tokenMaxTtl`.
   * @default 0 (the mount's default)
   */
  readonly tokenTtl?: string | number;
  /**
   * Maximum lifetime of generated tokens.
   * @default 0 (the mount's default)
   */
  readonly tokenMaxTtl?: string | number;
  /**
   * Policies encoded onto generated tokens.
   * @default - none
   */
  readonly tokenPolicies?: readonly string[];
  /**
   * Deprecated: use `tokenPolicies`.
   * @default - none
   */
  readonly policies?: readonly string[];
  /**
   * CIDR blocks (or single addresses) from which authentication succeeds.
   * @default - anywhere
   */
  readonly tokenBoundCidrs?: readonly string[];
  /**
   * Hard cap on the lifetime of generated tokens.
   * @default 0 (none)
   */
  readonly tokenExplicitMaxTtl?: string | number;
  /**
   * Do not add the `default` policy to generated tokens.
   * @default false
   */
  readonly tokenNoDefaultPolicy?: boolean;
  /**
   * Maximum uses of a generated token; 0 is unlimited (and needed to create child tokens).
   * @default 0
   */
  readonly tokenNumUses?: number;
  /**
   * Maximum period of a periodic token.
   * @default 0 (none)
   */
  readonly tokenPeriod?: string | number;
  /**
   * Token type: `service`, `batch` or `default` (the mount's tuned default).
   * @default "default"
   */
  readonly tokenType?: (typeof TOKEN_TYPES)[number];
}

/** The service's rule for user names. */
const usernameSchema = z
  .string()
  .regex(/^[A-Za-z0-9_.-]+$/, { message: 'letters, digits, "_", "-" and "." only' })
  .refine((name) => !name.startsWith('-'), { message: 'must not begin with "-"' })
  .refine((name) => !name.startsWith('.') && !name.endsWith('.'), { message: 'must not begin or end with "."' });

/** An IPv4 or IPv6 address, optionally with a prefix length. */
export function isCidr(value: string): boolean {
  const [address, prefix, ...rest] = value.split('/');
  if (rest.length > 0) return false;
  const version = isIP(address);
  if (version === 0) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (version === 4 ? 32 : 128);
}

const cidrSchema = z.string().refine(isCidr, { message: 'a CIDR block such as "10.0.0.0/8" or "2001:db8::/32", or a single IP address' });

const userSchema = z.strictObject({
  mount: constructOrPathSchema(AuthMount, 'an AuthMount').optional(),
  username: usernameSchema,
  password: secretSchema.optional(),
  passwordHash: secretSchema.optional(),
  tokenTtl: durationSchema.optional(),
  tokenMaxTtl: durationSchema.optional(),
  tokenPolicies: z.array(nonEmptyString).optional(),
  policies: z.array(nonEmptyString).optional(),
  tokenBoundCidrs: z.array(cidrSchema).optional(),
  tokenExplicitMaxTtl: durationSchema.optional(),
  tokenNoDefaultPolicy: bool.optional(),
  tokenNumUses: nonNegativeInt.optional(),
  tokenPeriod: durationSchema.optional(),
  tokenType: z.enum(TOKEN_TYPES).optional(),
});

function userRules(props: Record<string, unknown>): PropIssue[] {
  return [
    ...exactlyOne(props, ['password', 'passwordHash']),
    ...durationNotAbove(props, 'tokenTtl', 'tokenMaxTtl'),
  ];
}

/** A user of the userpass auth method (`auth/<mount>/users/<username>`). */
export class UserpassUser extends SecretformResource {
  constructor(scope: Construct, id: string, props: UserpassUserProps) {
    const { mount, references } = resolveMountReference('mount', props?.mount ?? 'userpass', (target) => (target as AuthMount).path);
    super(scope, id, {
      resourceType: userpassUser,
      props,
      schema: userSchema,
      rules: userRules,
      derived: { mount },
      nonFieldProps: ['mount'],
      references,
    });
  }
}
