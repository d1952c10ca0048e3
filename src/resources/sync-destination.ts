/** What the five sync destination types share: identity, options, read shape and API paths. */
import { consequenceOf, countEntries } from './consequences';
import { defineResourceType, isPlainObject, matchPath, payloadProblem, samePathApi, unwrapData } from './define';
import { field } from './field';
import { SEGMENT_NAME } from './formats';
import { isPlainObject as isObject, keysBesides, listAllNames, readNames } from './discovery';
import { SECRET_NAME_TEMPLATE } from './template';
import { ImportIdError, type Attributes, type FieldSpec, type ListingCall, type ListingRead, type ListingShape, type ResourceType } from './types';
import { CONTENT_NOUNS } from './nouns';

export interface DestinationDefinition {
  /** The service's type identifier, e.g. `cloud1-sm`. */
  readonly destinationType: string;
  readonly type: string;
  readonly construct: string;
  readonly doc: string;
  /** Connection fields (read back under `connection_details`, secrets masked). */
  readonly connection: readonly FieldSpec[];
  readonly defaultGranularity: 'secret-path' | 'secret-key';
  /** The documented default name template, when the document gives one in full. */
  readonly defaultNameTemplate?: string;
  /** `custom_tags` is accepted by the three cloud types only. */
  readonly customTags: boolean;
  readonly dependsOn?: (spec: Record<string, unknown>) => string[];
}

export const GRANULARITIES = ['secret-path', 'secret-key'] as const;
export const DESTINATION_TYPES = ['cloud1-sm', 'cloud2-kv', 'cloud3-sm', 'repohost', 'webhost-project'] as const;
export function defineDestinationType(definition: DestinationDefinition): ResourceType & { readonly destinationType: string } {
  const { destinationType } = definition;
  const optionFields: FieldSpec[] = [
    field('granularity', 'string', 'Level of information synced as one resource at the destination: `secret-path` or `secret-key`.', {
      serviceDefault: definition.defaultGranularity, allowed: GRANULARITIES,
    }),
    field('secret_name_template', 'template', 'Template for the names generated in the external system (fields such as `.MountAccessor`, `.SecretPath`).', {
      serviceDefault: definition.defaultNameTemplate,
      defaultDoc: definition.defaultNameTemplate === undefined ? "the type's default template" : undefined,
      emptyAllowed: true,
      template: SECRET_NAME_TEMPLATE,
    }),
  ];
  if (definition.customTags) {
    optionFields.push(field('custom_tags', 'stringMap', 'Tags or labels set on synced secrets, merged with the built-in ones.', { serviceDefault: {} }));
  }
  const basePath = `sys/sync/destinations/${destinationType}`;
  const resourceType = defineResourceType({
    destinationType,
    type: definition.type,
    construct: definition.construct,
    doc: definition.doc,
    fields: [
      field('name', 'string', 'Destination name.', { identity: true, immutable: true, required: true, format: SEGMENT_NAME, segment: 'single' }),
      ...definition.connection,
      ...optionFields,
    ],
    // The document gives one POST for create and update, without saying it merges: send the whole object.
    writeSemantics: 'replace',
    id: (spec) => `${basePath}/${String(spec.name)}`,
    parseImportId(importId) {
      const match = matchPath(importId, new RegExp(`^sys/sync/destinations/${destinationType}/([^/]+)$`));
      if (!match) throw new ImportIdError(definition.type, importId, `${basePath}/<name>`);
      return { name: match[1] };
    },
    api: (spec) => samePathApi(`${basePath}/${String(spec.name)}`),
    // A destination that still has associations (not ours: ours are removed first) is deleted only with
    // purge, which the service finishes asynchronously; what needed it (its GitHub app) goes after that.
    deleteSteps: (spec) => ({
      call: { method: 'DELETE', path: `${basePath}/${String(spec.name)}` },
      whenOccupied: {
        // The read the plan's count of synced secrets makes, checked against the same shape.
        probe: associationsCall(basePath, spec),
        isOccupied: (answer) => isPlainObject(answer.associated_secrets) && Object.keys(answer.associated_secrets).length > 0,
        call: { method: 'DELETE', path: `${basePath}/${String(spec.name)}`, query: { purge: 'true' } },
        awaitGone: true,
      },
    }),
    dependsOn: definition.dependsOn,
    // Deleting a destination that still has associations purges them: each synced secret is deleted in the
    // external store (a pipeline or an application loses its credential).
    async consequences(identity, _live, read) {
      const counted = await countEntries(read, associationsCall(basePath, identity), 'associated_secrets');
      return consequenceOf(counted, CONTENT_NOUNS.syncedSecrets, `the secrets synced to ${destinationType} destination ${JSON.stringify(identity.name)} by its associations are deleted in the external store`);
    },
    discover: {
      async find(read) {
        const names = await listAllNames(read, basePath, false);
        return { found: names.map((name) => ({ name })), unexpressed: await unknownDestinationTypes(read) };
      },
      // The read masks secrets but shows which are set: the generated code asks for exactly those.
      secretsHeld: (data) => {
        const connection = isObject(data.connection_details) ? data.connection_details : {};
        return definition.connection.filter((spec) => spec.sensitive && connection[spec.api] !== undefined && connection[spec.api] !== '').map((spec) => spec.api);
      },
      unmodelledKeys(data) {
        const connection = isObject(data.connection_details) ? data.connection_details : {};
        const options = isObject(data.options) ? data.options : {};
        return [
          ...keysBesides(connection, definition.connection.map((spec) => spec.api)).map((key) => `connection_details.${key}`),
          ...keysBesides(options, ['granularity_level', 'secret_name_template', 'custom_tags']).map((key) => `options.${key}`),
        ];
      },
    },
    readAnswerShape: (data) => (isPlainObject(data.connection_details) ? undefined : 'an object without "connection_details" where a destination was expected'),
    readAttributes(data) {
      const connection = isPlainObject(data.connection_details) ? data.connection_details : {};
      const options = isPlainObject(data.options) ? data.options : {};
      const attributes: Record<string, unknown> = { ...connection };
      if (options.granularity_level !== undefined) attributes.granularity = options.granularity_level;
      if (options.secret_name_template !== undefined) attributes.secret_name_template = options.secret_name_template;
      if (definition.customTags) attributes.custom_tags = options.custom_tags ?? {};
      return attributes;
    },
  });
  // Made by defineResourceType itself (not a copy with one more key): one shape for every type's object.
  return resourceType as ResourceType & { readonly destinationType: string };
}

/**
 * `GET sys/sync/destinations/:type/:name/associations`: `data.associated_secrets`, an object keyed
 * `<accessor>/<secret_name>` (empty when nothing is associated). Without it, nothing tells how many secrets a
 * purge would unsync, nor whether a delete needs the purge at all.
 */
const DESTINATION_ASSOCIATIONS: ListingShape = {
  expected: 'the associations of a destination the service answers (data.associated_secrets: an object keyed "<accessor>/<secret_name>")',
  problem(body) {
    const problem = payloadProblem(body);
    if (problem !== undefined) return problem;
    return isPlainObject(unwrapData(body)!.associated_secrets) ? undefined : 'an object without "associated_secrets" where the associations of a destination were expected';
  },
};

/** The read of a destination's associations, with the shape its answer must have. */
function associationsCall(basePath: string, identity: Attributes): ListingCall {
  return { method: 'GET', path: `${basePath}/${String(identity.name)}/associations`, answers: DESTINATION_ASSOCIATIONS };
}

/** Destinations of types secretform does not know, from the listing of every type (`LIST sys/sync/destinations`). */
async function unknownDestinationTypes(read: ListingRead): Promise<string[]> {
  const unknown: string[] = [];
  for (const key of await readNames(read, 'sys/sync/destinations')) {
    const destinationType = key.replace(/\/$/, '');
    if ((DESTINATION_TYPES as readonly string[]).includes(destinationType)) continue;
    for (const name of await listAllNames(read, `sys/sync/destinations/${destinationType}`, false)) {
      unknown.push(`sys/sync/destinations/${destinationType}/${name} (destination type ${JSON.stringify(destinationType)} is not one secretform manages)`);
    }
  }
  return unknown;
}
