// The declarations use Node's types (Buffer, node:net, NodeJS.ProcessEnv): this reference makes a user's
// compiler load them from our @types/node dependency even when its `types` list is empty (TypeScript 7's default).
/// <reference types="node" preserve="true" />
/**
 * `secretform/testing`: unit-test helpers for stacks that use secretform constructs. The framework's
 * `Testing.synth(stack)` drops the `"//"` comment that carries each construct's spec and skips validations, so
 * it cannot show what secretform will apply; these helpers read the stack in memory (no files, no terraform),
 * run every validation `app.synth()` would run on the stack, and expose each construct's resource type, id and
 * spec (service field names, e.g. `token_ttl`; secrets only as references).
 *
 * ```ts
 * import { SecretformTemplate, secretformMatchers } from 'secretform/testing';
 * expect.extend(secretformMatchers);
 * const template = SecretformTemplate.fromStack(stack);      // throws like app.synth() when a validation fails
 * template.resourceCountIs('userpass_user', 2);
 * expect(stack).toHaveSecretformResource('userpass_user', { username: 'ci-bot', token_ttl: '1h' });
 * ```
 */
import { isDeepStrictEqual } from 'node:util';
import type { IConstruct } from 'constructs';
import { isStack } from '../constructs/cdktf-adapter';
import { desiredFromStack } from '../constructs/desired-from-stack';
import { DesiredStateError, type DesiredResource } from '../engine/setup/desired';

export type { DesiredResource } from '../engine/setup/desired';
export { desiredFromStack } from '../constructs/desired-from-stack';

/** Every message the stack's validations report (what `app.synth()` would fail with), in tree order. */
export function validateStack(stack: IConstruct): string[] {
  if (!isStack(stack)) throw new DesiredStateError('validateStack: expected a TerraformStack (of cdktf or cdktn)');
  return stack.node.findAll().flatMap((construct) => construct.node.validate());
}

/** Whether `actual` holds every key of `expected` with a deeply equal value (nested objects: the same rule). */
export function matchesSubset(actual: unknown, expected: unknown): boolean {
  if (typeof expected !== 'object' || expected === null || Array.isArray(expected)) return isDeepStrictEqual(actual, expected);
  if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) return false;
  return Object.entries(expected).every(([key, value]) => matchesSubset((actual as Record<string, unknown>)[key], value));
}

export class SecretformTemplate {
  /** Validates the stack as `app.synth()` would (throws listing every problem), then reads its resources. */
  static fromStack(stack: IConstruct): SecretformTemplate {
    const problems = validateStack(stack);
    if (problems.length > 0) {
      throw new DesiredStateError(`stack ${stack.node.id} is invalid (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n  ${problems.join('\n  ')}`);
    }
    return new SecretformTemplate(desiredFromStack(stack).resources);
  }

  private constructor(readonly all: readonly DesiredResource[]) {}

  /** The resources of a type (e.g. `userpass_user`), or all, in construct order. */
  resources(type?: string): DesiredResource[] {
    return this.all.filter((resource) => type === undefined || resource.type === type);
  }

  /** The resource at a construct path (`prod/ci`); throws naming the addresses there are. */
  resource(address: string): DesiredResource {
    const found = this.all.find((resource) => resource.address === address);
    if (!found) throw new Error(`no secretform resource at ${address}; the stack has ${this.all.map((resource) => resource.address).join(', ') || 'none'}`);
    return found;
  }

  /** Resources of `type` whose spec holds every field of `spec` (service field names). */
  findResources(type: string, spec: Record<string, unknown> = {}): DesiredResource[] {
    return this.resources(type).filter((resource) => matchesSubset(resource.spec, spec));
  }

  hasResource(type: string, spec: Record<string, unknown> = {}): void {
    if (this.findResources(type, spec).length === 0) throw new Error(describeMiss(this, type, spec));
  }

  resourceCountIs(type: string, count: number): void {
    const actual = this.resources(type).length;
    if (actual !== count) throw new Error(`expected ${count} ${type} resource${count === 1 ? '' : 's'}, found ${actual}`);
  }
}

function describeMiss(template: SecretformTemplate, type: string, spec: Record<string, unknown>): string {
  const candidates = template.resources(type);
  const shown = candidates.map((resource) => `  ${resource.address}: ${JSON.stringify(resource.spec)}`).join('\n');
  return `no ${type} resource with spec ${JSON.stringify(spec)}; ${candidates.length === 0 ? `the stack has no ${type}` : `the stack's ${type} resources:\n${shown}`}`;
}

interface MatcherResult {
  pass: boolean;
  message(): string;
}

/**
 * Matchers for `expect.extend(secretformMatchers)` (jest or vitest). `received` is a stack; it is validated first,
 * so a stack that `app.synth()` would refuse fails the matcher with the validation messages.
 */
export const secretformMatchers = {
  toHaveSecretformResource(received: IConstruct, type: string, spec: Record<string, unknown> = {}): MatcherResult {
    let template: SecretformTemplate;
    try {
      template = SecretformTemplate.fromStack(received);
    } catch (error) {
      return { pass: false, message: () => (error as Error).message };
    }
    const pass = template.findResources(type, spec).length > 0;
    return {
      pass,
      message: () => (pass ? `expected no ${type} resource with spec ${JSON.stringify(spec)}, found one` : describeMiss(template, type, spec)),
    };
  },
  toBeValidSecretformStack(received: IConstruct): MatcherResult {
    const problems = validateStack(received);
    return {
      pass: problems.length === 0,
      message: () => (problems.length === 0 ? 'expected validation problems, found none' : `expected no validation problems, found:\n  ${problems.join('\n  ')}`),
    };
  },
};

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace jest {
    interface Matchers<R> {
      /** The stack validates and holds a resource of `type` whose spec has every field of `spec`. */
      toHaveSecretformResource(type: string, spec?: Record<string, unknown>): R;
      /** Every validation `app.synth()` runs on the stack passes. */
      toBeValidSecretformStack(): R;
    }
  }
}
