/** Users of the userpass auth method. */
import type { Construct } from 'constructs';
import { userpassUser } from '../resources/userpass-user';
import type { UserpassUserFields } from './generated/fields';
import { AuthMount } from './mounts';
import { propsSchema } from './props-schema';
import { optionalProp } from './prop-declaration';
import { constructOrPathProp, resolveMountReference } from './references';
import { SecretformResource } from './resource';
import { durationNotAbove, exactlyOne, type PropIssue } from './validation';

export { TOKEN_TYPES } from '../resources/userpass-user';
export { isCidr } from '../resources/formats';

export interface UserpassUserProps extends UserpassUserFields {
  /**
   * The userpass auth method: an `AuthMount` of this stack, or its path (without "auth/").
   * @default "userpass"
   */
  readonly mount?: AuthMount | string;
}

const userSchema = propsSchema(userpassUser, { mount: optionalProp(constructOrPathProp(AuthMount, 'an AuthMount')) });

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
