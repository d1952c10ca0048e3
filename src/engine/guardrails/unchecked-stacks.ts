/**
 * Protection across stacks fails closed (issue 34): a plan that deletes or replaces something is refused when
 * another stack that may live on the same service cannot be checked, since that stack may keep a protected or
 * retained object inside what the plan removes, and the service would delete it with its container. The refusal
 * comes before any write, names each such stack, why it could not be checked, and how to proceed.
 */
import { EngineError } from '../errors';
import type { PlanComputation } from '../plan/compute-plan';

/** Another stack of the synth output the protection check could not see (run/other-stacks.ts). */
export interface UncheckedStack {
  readonly stack: string;
  /**
   * `unreadable`: its state is damaged, unreadable, or its backend failed; `one_state_file`: one `--state FILE`
   * (no `{stack}`) serves every stack, so its state cannot be found; `synth_output`: its synth output cannot be read.
   */
  readonly kind: 'unreadable' | 'one_state_file' | 'synth_output';
  readonly reason: string;
}

/** The refusal of a plan that removes something while other stacks could not be checked, or undefined. */
export function uncheckedStacksRefusal(computation: PlanComputation, unchecked: readonly UncheckedStack[]): EngineError | undefined {
  const removed = [...computation.resources.values()]
    .filter((resource) => resource.change.action === 'delete' || resource.change.action === 'replace')
    .map((resource) => `${resource.address} (${resource.resourceType.id(resource.deleteIdentity)})`);
  if (removed.length === 0 || unchecked.length === 0) return undefined;
  const lines = unchecked.map((stack) => `${stack.stack}: ${stack.reason}. ${howToProceed(stack)}`);
  const shown = removed.length <= 5 ? removed.join(', ') : `${removed.slice(0, 5).join(', ')} and ${removed.length - 5} more`;
  return new EngineError(
    'protected',
    `the plan would delete or replace ${shown}, and whether that takes with it a protected or retained object of ` +
      `another stack on the same service cannot be checked, so nothing was changed:\n  ${lines.join('\n  ')}\n` +
      'Every other stack of the synth output on this service is checked before a delete (docs/guardrails.md, "protect").',
  );
}

function howToProceed(stack: UncheckedStack): string {
  switch (stack.kind) {
    case 'one_state_file':
      return "Give each stack its own state: put {stack} in the path (--state 'state/{stack}.json', or SECRETFORM_STATE), " +
        'or keep the states in PostgreSQL (--state postgres://...), so that every stack\'s state can be read';
    case 'synth_output':
      return 'Run `secretform synth` again (or drop --no-synth), then run again';
    case 'unreadable':
      return `Make its state readable (a run of that stack alone, \`secretform plan --stack ${stack.stack}\`, says the same), then run again`;
  }
}
