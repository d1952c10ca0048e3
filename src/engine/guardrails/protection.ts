/**
 * `protect`: a plan that would delete or replace a protected object is refused as a whole, before any write,
 * naming every such object, why the plan would remove it, and how to let it go (terraform's `prevent_destroy`
 * fails the plan the same way; Pulumi's `protect` fails the update). That holds too for a protected object the
 * plan does not touch itself but that lives in an object it deletes or replaces (a user in its auth mount: see
 * `protected-contents.ts`), even when the code names the container by path or the object is outside --target,
 * and for a retained object (`retainOnDelete`) there, which its container's delete would not leave on the service,
 * and for such objects of another stack on the same service (run/other-stacks.ts).
 */
import { EngineError } from '../errors';
import type { PlanComputation } from '../plan/compute-plan';
import type { ActionReason } from '../plan/plan';
import type { ResourcePlan } from '../plan/resource-plan';
import type { DesiredStack } from '../setup/desired';
import type { RunMode } from '../setup/targets';
import type { StateFile } from '../state/state-file';
import { protectedContents, protectedContentsElsewhere } from './protected-contents';

/** The refusal of a plan that deletes or replaces protected objects, or undefined when it does not. */
export function protectionViolation(
  computation: PlanComputation,
  mode: RunMode,
  stack: { desired: DesiredStack; state: StateFile; others?: readonly { desired: DesiredStack; state: StateFile }[] },
): EngineError | undefined {
  const lines = [...computation.resources.values()]
    .filter((resource) => resource.guardrails?.protect === true && (resource.change.action === 'delete' || resource.change.action === 'replace'))
    .map((resource) => `${resource.address} (${resource.change.id}): ${whyRemoved(resource, mode)}`);
  let retained = 0;
  for (const inside of [...protectedContents(computation, mode, stack.desired, stack.state), ...protectedContentsElsewhere(computation, stack.others ?? [])]) {
    if (inside.keptBy === 'retainOnDelete') retained += 1;
    const { container } = inside;
    const kept = (inside.keptBy === 'protect'
      ? 'it is protected (`protect: true`)'
      : 'it is retained (`retainOnDelete: true`: it must stay on the service when secretform lets go of it)') +
      (inside.stack !== undefined ? ` in stack ${inside.stack}, on the same service` : '');
    lines.push(`${inside.address} (${inside.id}): lives in ${container.address} (${container.resourceType.id(container.deleteIdentity)}), which the plan would ` +
      `${container.change.action === 'replace' ? 'replace' : 'delete'}, taking it with it; ${kept}. ` +
      `Keep ${container.address} (put its construct back, or leave it out of the run), or remove \`${inside.keptBy}\` from ${inside.address}, apply, then make the change`);
  }
  if (lines.length === 0) return undefined;
  // A retained object is not protected: it is named so, and the advice about `protect` is not given for it alone.
  const kept = retained === 0 ? 'protected' : retained === lines.length ? 'retained' : 'protected or retained';
  const noun = lines.length === 1 ? `a ${kept} object` : `${lines.length} ${kept} objects`;
  const advice = retained === lines.length
    ? 'A retained object must stay on the service, and so must what it lives in while it is there (docs/guardrails.md).'
    : 'A protected object stays on the service until `protect` is removed from its construct and that is applied; ' +
      'to let secretform forget it instead, set `retainOnDelete: true` (docs/guardrails.md).';
  return new EngineError('protected', `the plan would delete or replace ${noun}, so nothing was changed:\n  ${lines.join('\n  ')}\n${advice}`);
}

function whyRemoved(resource: ResourcePlan, mode: RunMode): string {
  if (resource.change.action === 'replace') {
    return `would be replaced because ${replaceCause(resource.change.reasons)}; it is protected in code (\`protect: true\`). ` +
      'Keep the field as it is, or remove `protect`, apply, then make the change';
  }
  if (mode === 'destroy') {
    return '`secretform destroy` would delete it; it is protected (`protect: true`). Remove `protect`, apply, then destroy, or leave it out with --target';
  }
  return 'its construct was removed from the code, and the last apply recorded `protect: true`. ' +
    'Put the construct back without `protect` and apply, then remove it; or `secretform state rm` it to stop managing it';
}

function replaceCause(reasons: readonly ActionReason[]): string {
  for (const reason of reasons) {
    if (reason.kind === 'immutable_fields') return `${reason.fields.join(', ')} cannot change on an existing object`;
    if (reason.kind === 'identity_changed') return `its identity changed from ${reason.from} to ${reason.to}`;
    if (reason.kind === 'container_replaced') return `${reason.replaced.join(', ')} ${reason.replaced.length === 1 ? 'is' : 'are'} replaced and it goes with it`;
  }
  return 'the plan replaces it';
}
