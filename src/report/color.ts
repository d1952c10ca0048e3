/** The part of a stream that decides colour: a terminal or not. */
export interface ColorTarget {
  isTTY?: boolean;
}

export type Environment = Record<string, string | undefined>;

/**
 * Whether a report written to `stream` should be coloured. `FORCE_COLOR` forces colour on (even through a pipe,
 * and over `NO_COLOR`, as Node itself does), except `FORCE_COLOR=0` or `false`, which forces it off; otherwise
 * colour needs a terminal and `NO_COLOR` unset (https://no-color.org). A variable set to the empty string
 * counts as unset, so `NO_COLOR=` keeps colour on.
 */
export function shouldUseColor(stream: ColorTarget, env: Environment): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '') return force !== '0' && force.toLowerCase() !== 'false';
  const noColor = env.NO_COLOR;
  if (noColor !== undefined && noColor !== '') return false;
  return stream.isTTY === true;
}
