/**
 * What `secretform stacks` prints: the app's stacks with their service address, the stacks each depends on, and
 * whether each is changed since its last apply (and why), as a text table, as JSON, or as a GitHub Actions matrix
 * (`{"include":[{"stack":"NAME","wave":N}]}`, wave = how many listed stacks lie beneath it on a dependency chain).
 */
import type { ChangeReason, StackChange } from '../../engine';

export const STACKS_FORMATS = ['text', 'json', 'github-matrix'] as const;
export type StacksFormat = (typeof STACKS_FORMATS)[number];

/** The reason a stack is changed, in words (the same words in every format). */
export function changeReasonWords(reason: ChangeReason): string {
  switch (reason.kind) {
    case 'code_changed':
      return 'code changed since its last apply';
    case 'no_state':
      return 'no state yet (never applied)';
    case 'no_digest':
      return 'no digest recorded (state written by an older version; the next complete apply records one)';
    case 'state_changed':
      return `state written since its last complete apply (serial ${reason.appliedSerial}, now ${reason.serial}: a destroy, an apply that failed or was limited with --target, import or a state command)`;
    case 'service_changed':
      return `service changed: last applied to ${reason.recorded}, now ${reason.current}`;
    case 'dependency_changed':
      return `depends on changed stack ${reason.dependency}`;
  }
}

/** The JSON of one stack: `reason` in words and `reason_code` for scripts (both absent when unchanged). */
export interface StackChangeJson {
  stack: string;
  service: string;
  depends_on: string[];
  changed: boolean;
  reason?: string;
  reason_code?: ChangeReason['kind'];
  wave: number;
}

/** The listing in `format`, ending with a newline. `waves`: by listed stack, its wave (stackWaves). */
export function renderStacksListing(stacks: readonly StackChange[], waves: ReadonlyMap<string, number>, format: StacksFormat): string {
  if (format === 'github-matrix') {
    // One line, as `echo "matrix=$(secretform stacks --changed --format github-matrix)" >> "$GITHUB_OUTPUT"` wants it.
    return `${JSON.stringify({ include: stacks.map((change) => ({ stack: change.stack, wave: waves.get(change.stack) ?? 0 })) })}\n`;
  }
  if (format === 'json') {
    const json: StackChangeJson[] = stacks.map((change) => ({
      stack: change.stack,
      service: change.service,
      depends_on: [...change.dependsOn],
      changed: change.changed,
      ...(change.reason === undefined ? {} : { reason: changeReasonWords(change.reason), reason_code: change.reason.kind }),
      wave: waves.get(change.stack) ?? 0,
    }));
    return `${JSON.stringify({ format_version: '1.0', stacks: json }, null, 2)}\n`;
  }
  return textListing(stacks);
}

/** A table a person reads: one row per stack, then how many are changed. */
function textListing(stacks: readonly StackChange[]): string {
  if (stacks.length === 0) return 'No stack to list.\n';
  const rows = stacks.map((change) => [
    change.stack,
    change.service === '' ? '(no address)' : change.service,
    change.dependsOn.length === 0 ? '-' : change.dependsOn.join(', '),
    change.changed ? `changed: ${changeReasonWords(change.reason!)}` : 'unchanged since its last apply',
  ]);
  const head = ['STACK', 'SERVICE', 'DEPENDS ON', 'STATUS'];
  const widths = head.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
  const line = (cells: string[]) => cells.map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column]))).join('  ');
  const changed = stacks.filter((change) => change.changed).length;
  return `${[line(head), ...rows.map(line)].join('\n')}\n\n${changed} of ${stacks.length} stack${stacks.length === 1 ? '' : 's'} changed.\n`;
}
