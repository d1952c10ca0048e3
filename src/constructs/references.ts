/** Props that refer to another construct or name it by path (a role's backend, an association's mount). */
import { MOUNT_PATH } from '../resources/formats';
import { customProp, type PropDeclaration } from './prop-declaration';
import type { ResourceReference, SecretformResource } from './resource';


type ConstructClass<T> = abstract new (...args: never[]) => T;

/** A prop that takes a construct of `cls` or a mount path string. */
export function constructOrPathProp<T>(cls: ConstructClass<T>, what: string): PropDeclaration {
  return customProp(
    (value) => (typeof value === 'string' ? MOUNT_PATH.every((rule) => rule.test(value)) : value instanceof cls),
    `${what} construct, or its mount path as a string (letters, digits, "_", "-", "." in "/"-separated segments)`,
  );
}

/** The mount path a `construct or path` prop stands for, and the reference when it is a construct. */
export function resolveMountReference(
  prop: string,
  value: unknown,
  pathOf: (target: SecretformResource) => unknown,
): { mount: unknown; references: ResourceReference[] } {
  if (typeof value === 'object' && value !== null && 'resourceType' in value) {
    const target = value as SecretformResource;
    return { mount: pathOf(target), references: [{ prop, target }] };
  }
  return { mount: value, references: [] };
}
