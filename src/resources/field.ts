/** A compact way to declare a field: the construct prop name is the camelCase form of the service's name. */
import { RESERVED_AUTH_MOUNT_SEGMENTS, RESERVED_SECRETS_MOUNT_SEGMENTS } from './names';
import type { FieldKind, FieldSpec } from './types';

type FieldFlags = Omit<FieldSpec, 'api' | 'prop' | 'kind' | 'doc'> & { readonly prop?: string };

export function field(api: string, kind: FieldKind, doc: string, flags: FieldFlags = {}): FieldSpec {
  const { prop, ...rest } = flags;
  return { api, prop: prop ?? camelCase(api), kind, doc, ...rest };
}

export function camelCase(snake: string): string {
  return snake.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
}

/** Facts of a value that is a mount path: `/`-separated segments, not under the server's own paths. */
export function mountPathFacts(mountKind: 'secrets' | 'auth'): Pick<FieldSpec, 'segment' | 'reservedFirstSegments'> {
  return {
    segment: 'hierarchical',
    reservedFirstSegments: mountKind === 'auth' ? RESERVED_AUTH_MOUNT_SEGMENTS : RESERVED_SECRETS_MOUNT_SEGMENTS,
  };
}

/** The identity field that names the mount a role, user or set lives in (set from the construct's reference). */
export function mountField(doc: string, mountKind: 'secrets' | 'auth' = 'secrets'): FieldSpec {
  return field('mount', 'string', doc, { identity: true, immutable: true, setByConstruct: true, ...mountPathFacts(mountKind) });
}
