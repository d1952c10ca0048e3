/** `secretform generate`: discover the service's objects and write them as a cdktf app (discover, render, format). */
import type { ServiceClient } from '../client';
import { ok, type Result } from '../engine/errors';
import { formatWithPrettier } from '../lazy-packages';
import { discover } from './discover';
import { renderApp, type RenderedApp } from './render';

export { discover } from './discover';
export type { DiscoveredObject, Discovery } from './discover';
export { renderApp } from './render';
export type { RenderedApp, SecretVariable } from './render';

/** The default stack name of generated code (`--stack`). */
export const DEFAULT_GENERATED_STACK = 'imported';

/** Formatting that reads like the project's own code; fixed here so the output does not depend on a user's config. */
const PRETTIER_OPTIONS = { parser: 'typescript', singleQuote: true, printWidth: 120, trailingComma: 'all', semi: true } as const;

/** The app, and what generate warns about on the way (objects listed that then read as not there). */
export interface GeneratedApp extends RenderedApp {
  readonly warnings: readonly string[];
}

export async function generateApp(client: ServiceClient, options: { stack: string; parallelism: number }): Promise<Result<GeneratedApp>> {
  const found = await discover(client, { parallelism: options.parallelism });
  if (!found.ok) return found;
  const rendered = renderApp(found.value, options.stack);
  return ok({ ...rendered, source: await formatSource(rendered.source), warnings: found.value.warnings });
}

export function formatSource(source: string): Promise<string> {
  return formatWithPrettier(source, PRETTIER_OPTIONS);
}
