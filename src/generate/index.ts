/** `secretform generate`: discover the service's objects and write them as a cdktf app (discover, render, format). */
import { format } from 'prettier';
import type { ServiceClient } from '../client';
import { ok, type Result } from '../engine/errors';
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

export async function generateApp(client: ServiceClient, options: { stack: string; parallelism: number }): Promise<Result<RenderedApp>> {
  const found = await discover(client, { parallelism: options.parallelism });
  if (!found.ok) return found;
  const rendered = renderApp(found.value, options.stack);
  return ok({ ...rendered, source: await formatSource(rendered.source) });
}

export function formatSource(source: string): Promise<string> {
  return format(source, PRETTIER_OPTIONS);
}
