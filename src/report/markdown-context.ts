/**
 * The context line under the comment's status line: which commit, which CI run, when, and how a saved plan
 * will be applied. The CLI reads it from the CI environment (see src/cli/ci-context.ts); the report only lays it
 * out, so a test can give any commit, link and time.
 */
import { escapeInline, inlineCode } from './markdown-escape';

export interface CommentContext {
  /** The commit the plan was made for, shortened to 7 characters when longer. */
  readonly commit?: string;
  /** Links to the CI run, each with its words (`run 1234`, `pipeline`, `job`). */
  readonly links?: readonly { readonly text: string; readonly url: string }[];
  /** When the plan was made. Shown only with a commit, a link or a saved plan (a local plan needs no time stamp). */
  readonly time?: Date;
  /** For a saved plan, the command that applies it (`secretform apply plan.out`). */
  readonly applyCommand?: string;
}

const SHORT_SHA = 7;

/** `Commit `abc1234` · [run 42](url) · 2026-11-25 20:55 UTC · applies on merge with `secretform apply plan.out``. */
export function contextLine(context: CommentContext | undefined): string | undefined {
  if (context === undefined) return undefined;
  const parts: string[] = [];
  if (context.commit) parts.push(`Commit ${inlineCode(context.commit.slice(0, SHORT_SHA))}`);
  for (const link of context.links ?? []) parts.push(`[${escapeInline(link.text)}](${linkTarget(link.url)})`);
  const saved = context.applyCommand ? `applies on merge with ${inlineCode(context.applyCommand)}` : undefined;
  if (parts.length === 0 && saved === undefined) return undefined;
  if (context.time) parts.push(utcMinute(context.time));
  if (saved) parts.push(saved);
  return `<sub>${parts.join(' · ')}</sub>`;
}

/** `2026-11-25 20:55 UTC`: minutes are enough to tell runs apart, and UTC reads the same for every reviewer. */
function utcMinute(time: Date): string {
  return `${time.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** A URL as a link destination: `<...>` form when it holds spaces or parentheses, which would end a plain one. */
function linkTarget(url: string): string {
  const clean = url.replace(/[\r\n<>]/g, encodeURIComponent);
  return /[\s()]/.test(clean) ? `<${clean}>` : clean;
}
