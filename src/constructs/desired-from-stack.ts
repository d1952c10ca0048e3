/**
 * The desired state of an in-memory stack, without synthesizing: what the engine API takes as already-loaded
 * desired state. Plain-text secrets are kept (for tests and the in-process engine API: the only way
 * `SecretValue.unsafePlainText` values reach the engine).
 */
import { DesiredStateError, type DesiredStack } from '../engine/setup/desired';
import type { IConstruct } from 'constructs';
import { isStack } from './cdktf-adapter';
import { lifecycleJson } from '../synthesized-spec';
import { ServiceConnection } from './service-connection';
import { analyseStack, StackSupport } from './stack';

/** Invalid props and stack-level problems throw one DesiredStateError listing them all. */
export function desiredFromStack(stack: IConstruct): DesiredStack {
  if (!isStack(stack)) throw new DesiredStateError('desiredFromStack: expected a TerraformStack');
  const all = StackSupport.existing(stack)?.resources() ?? [];
  const analysis = analyseStack(stack, all);
  const connection = ServiceConnection.of(stack);
  const problems = [...all.flatMap((resource) => resource.propProblems()), ...analysis.problems, ...(connection?.problems() ?? [])];
  if (problems.length > 0) {
    throw new DesiredStateError(`stack ${stack.node.id} is invalid (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n  ${problems.join('\n  ')}`);
  }
  return {
    stack: stack.node.id,
    ...(connection ? { connection: connection.synthesized() } : {}),
    resources: analysis.resources.map((entry) => ({
      address: entry.resource.address,
      type: entry.resource.resourceType.type,
      id: entry.id,
      spec: entry.resource.spec,
      secrets: entry.resource.secrets,
      dependsOn: entry.dependsOn.map((target) => target.address),
      digest: entry.digest,
      ...lifecycleJson(entry.resource.lifecycle),
      ...(entry.resource.policyWaivers !== undefined ? { policyWaivers: entry.resource.policyWaivers } : {}),
      ...(entry.resource.source !== undefined ? { source: entry.resource.source } : {}),
    })),
  };
}
