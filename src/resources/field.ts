/** A compact way to declare a field: the construct prop name is the camelCase form of the service's name. */
import type { FieldKind, FieldSpec } from './types';

type FieldFlags = Omit<FieldSpec, 'api' | 'prop' | 'kind' | 'doc'> & { readonly prop?: string };

export function field(api: string, kind: FieldKind, doc: string, flags: FieldFlags = {}): FieldSpec {
  const { prop, ...rest } = flags;
  return { api, prop: prop ?? camelCase(api), kind, doc, ...rest };
}

export function camelCase(snake: string): string {
  return snake.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
}

/** The identity field that names the mount a role, user or set lives in (set from the construct's reference). */
export function mountField(doc: string): FieldSpec {
  return field('mount', 'string', doc, { identity: true, immutable: true, setByConstruct: true });
}
