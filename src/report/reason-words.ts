/** The words of every action reason the engine gives (the engine says which case it is, never how to say it). */
import type { ActionReason } from '../engine/plan/plan';

export function reasonText(reason: ActionReason): string {
  switch (reason.kind) {
    case 'deleted_outside':
      return 'deleted outside secretform';
    case 'identity_changed':
      return `its identity changed from ${reason.from} to ${reason.to}`;
    case 'immutable_fields':
      return `${reason.fields.join(', ')} cannot change on an existing object`;
    case 'container_replaced':
      return `${reason.replaced.join(', ')} ${reason.replaced.length === 1 ? 'is' : 'are'} replaced, and this object goes with it`;
    case 'changed_outside':
      return 'changed outside secretform';
    case 'secret_differs':
      return `${reason.fields.join(', ')} differs on the service`;
    case 'unhealthy':
      return `${reason.label} is ${reason.status}: set it again`;
    case 'root_credential_changed':
      return `${reason.fields.join(', ')}, rotated by the service, changed in code: the new value is sent and the code manages it again`;
    case 'adopt':
      return 'exists on the service but not in state: apply adopts it';
    case 'forget_deleted':
      return 'already deleted outside secretform; apply removes it from state';
  }
}

/** All reasons of a change in one phrase (`a; b`), or undefined when there is none. */
export function reasonsText(reasons: readonly ActionReason[]): string | undefined {
  return reasons.length === 0 ? undefined : reasons.map(reasonText).join('; ');
}
