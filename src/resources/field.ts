/** A compact way to declare a field: the construct prop name is the camelCase form of the service's name. */
import { RESERVED_AUTH_MOUNT_SEGMENTS, RESERVED_SECRETS_MOUNT_SEGMENTS } from './names';
import type { FieldKind, FieldSpec } from './types';

type FieldFlags = Omit<FieldSpec, 'api' | 'prop' | 'kind' | 'doc'> & { readonly prop?: string };

/**
 * Every key of a FieldSpec, each present (an absent flag is `undefined`): the compiler refuses a key left out, so a
 * flag added to the interface must be added here too.
 */
type EveryKey = { readonly [K in keyof Required<FieldSpec>]: FieldSpec[K] };

/**
 * Every field object has the same keys in the same order, whatever flags it sets: V8 then gives all of them one
 * hidden class, and the code that reads fields for every resource (the checks, normalisation, the diff) stays
 * optimized for it. With only the flags each field sets, the 15 types' fields had dozens of shapes, and each new
 * type reaching that code threw its optimized code away ("wrong map") to be compiled again: ~0.3 s of compile
 * threads in a 10,000-object plan. An absent flag and one set to `undefined` read the same to every reader.
 */
export function field(api: string, kind: FieldKind, doc: string, flags: FieldFlags = {}): FieldSpec {
  const spec: EveryKey = {
    api,
    prop: flags.prop ?? camelCase(api),
    kind,
    doc,
    required: flags.required,
    allowed: flags.allowed,
    format: flags.format,
    emptyAllowed: flags.emptyAllowed,
    minimum: flags.minimum,
    nonEmpty: flags.nonEmpty,
    unique: flags.unique,
    matchesIgnoringCase: flags.matchesIgnoringCase,
    defaultDoc: flags.defaultDoc,
    members: flags.members,
    elementName: flags.elementName,
    setByConstruct: flags.setByConstruct,
    serviceDefault: flags.serviceDefault,
    sensitive: flags.sensitive,
    rootCredential: flags.rootCredential,
    immutable: flags.immutable,
    createOnly: flags.createOnly,
    identity: flags.identity,
    inBody: flags.inBody,
    unordered: flags.unordered,
    caseInsensitive: flags.caseInsensitive,
    elementKeys: flags.elementKeys,
    wire: flags.wire,
    deprecated: flags.deprecated,
    writeOnly: flags.writeOnly,
    computed: flags.computed,
    segment: flags.segment,
    reservedFirstSegments: flags.reservedFirstSegments,
    maxLength: flags.maxLength,
    template: flags.template,
    local: flags.local,
  };
  return spec;
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
