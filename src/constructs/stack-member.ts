/**
 * What the stack-level pass (stack.ts) reads of each secretform construct. The base class (resource.ts)
 * registers every construct with its stack, so the stack names this shape instead of the class: the class
 * imports the stack, never the other way round.
 */
import type { IConstruct } from 'constructs';
import type { Attributes, ResourceType } from '../resources/types';
import type { SecretValue } from '../secret-value';
import type { ResourceLifecycle, SourceLocation } from '../synthesized-spec';

export interface StackMember extends IConstruct {
  /** Its construct path. */
  readonly address: string;
  readonly resourceType: ResourceType;
  readonly spec: Readonly<Attributes>;
  readonly secrets: Readonly<Record<string, SecretValue>>;
  /** The constructs it refers to through a prop (its backend, destination, app, mount). */
  readonly references: readonly { readonly prop: string; readonly target: StackMember }[];
  readonly lifecycle: ResourceLifecycle;
  readonly policyWaivers?: Readonly<Record<string, string>>;
  /** Where the user's code creates it, when known. */
  readonly source?: SourceLocation;
  readonly hasPropIssues: boolean;
  /** Undefined while the props are invalid. */
  readonly resourceId: string | undefined;
  propProblems(): string[];
  synthOnlyProblems(): string[];
}
