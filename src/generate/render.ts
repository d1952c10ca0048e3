/**
 * Writes the discovered objects as a cdktf app in TypeScript, the way a person would: one construct per object,
 * references between constructs, only values that differ from the service's defaults, secrets from environment
 * variables listed in the header. Pure: the same discovery always gives the same text (formatting is separate).
 */
import { compareJson } from '../resources/define';
import type { Attributes, FieldSpec } from '../resources/types';
import type { DiscoveredObject, Discovery } from './discover';
import { constructIdFrom, environmentVariableFor, UniqueNames, variableNameFor } from './names';
import { CONSTRUCT_REFERENCES, ENGINE_BACKENDS, type ConstructReference } from './references';
import { renderLiteral, renderValue, stringLiteral } from './values';

export interface SecretVariable {
  readonly name: string;
  /** What the variable holds, e.g. `private_key of SyncGithubApp ci-app (sys/sync/github-apps/ci-app)`. */
  readonly description: string;
}

export interface RenderedApp {
  readonly source: string;
  readonly variables: readonly SecretVariable[];
  /** Everything the code leaves out: the discovery's list plus what the constructs cannot take. */
  readonly unexpressed: readonly string[];
  readonly constructCount: number;
}

interface PlannedConstruct {
  readonly object: DiscoveredObject;
  readonly constructId: string;
  /** Extra props written before the fields (e.g. `manageMount: false`). */
  readonly extraProps: string[];
}

export function renderApp(discovery: Pick<Discovery, 'objects' | 'unexpressed'>, stackName: string): RenderedApp {
  const unexpressed = [...discovery.unexpressed];
  const byId = new Map(discovery.objects.map((object) => [object.id, object]));
  const absorbed = absorbedMounts(discovery.objects, byId);

  const ids = new UniqueNames([], (name) => name.toLowerCase());
  const planned: PlannedConstruct[] = [];
  const constructIdOf = new Map<string, string>();
  for (const object of discovery.objects) {
    if (absorbed.has(object.id)) continue;
    const base = constructIdFrom(baseName(object), object.resourceType.type.replace(/_/g, '-'));
    const constructId = ids.claim(base, `${base}-${object.resourceType.type.replace(/_/g, '-')}`, (name, n) => `${name}-${n}`);
    constructIdOf.set(object.id, constructId);
    planned.push({ object, constructId, extraProps: [] });
  }

  // Variables for the constructs another one refers to.
  const referenced = new Set<string>();
  for (const { object } of planned) {
    for (const reference of CONSTRUCT_REFERENCES[object.resourceType.type] ?? []) {
      const target = reference.targetId(object.attributes);
      if (target !== undefined && constructIdOf.has(target)) referenced.add(target);
    }
  }
  const variables = new UniqueNames(['app', 'stack', 'App', 'TerraformStack', 'SecretValue', ...planned.map((p) => p.object.resourceType.construct)]);
  const variableOf = new Map<string, string>();
  for (const { object, constructId } of planned) {
    if (!referenced.has(object.id)) continue;
    const name = variableNameFor(constructId);
    variableOf.set(object.id, variables.claim(name, `${name}${object.resourceType.construct}`, (base, n) => `${base}${n}`));
  }

  const envNames = new UniqueNames();
  const secretVariables: SecretVariable[] = [];
  const statements: string[] = [];
  let previousType = '';
  for (const { object, constructId } of planned) {
    const { resourceType, attributes } = object;
    if (resourceType.type !== previousType) {
      statements.push(`\n// ${resourceType.doc}`);
      previousType = resourceType.type;
    }
    const props: string[] = [];
    const setByReference = new Set<string>();
    for (const reference of CONSTRUCT_REFERENCES[resourceType.type] ?? []) {
      reference.fields.forEach((name) => setByReference.add(name));
      const prop = referenceProp(reference, attributes, constructIdOf, variableOf);
      if (prop === 'missing') unexpressed.push(`${object.id}: ${reference.prop} names ${reference.targetId(attributes) ?? '?'}, which was not found`);
      else if (prop !== undefined) props.push(prop);
    }
    const engineType = Object.keys(ENGINE_BACKENDS).find((key) => ENGINE_BACKENDS[key] === resourceType.type);
    if (engineType !== undefined) {
      setByReference.add('path');
      if (attributes.path !== engineType) props.push(`path: ${stringLiteral(String(attributes.path))}`);
      if (!absorbed.has(`sys/mounts/${String(attributes.path)}`)) props.push('manageMount: false');
    }
    for (const field of resourceType.fields) {
      if (field.sensitive) {
        if (!object.secrets.includes(field.api)) continue;
        const name = envNames.claim(environmentVariableFor(constructId, field.api), environmentVariableFor(constructId, `${field.api}_value`), (base, n) => `${base}_${n}`);
        secretVariables.push({ name, description: `${field.api} of ${resourceType.construct} ${constructId} (${object.id})` });
        props.push(`${field.prop}: SecretValue.fromEnv(${stringLiteral(name)})`);
        continue;
      }
      if (field.computed || field.deprecated || setByReference.has(field.api)) continue;
      const value = attributes[field.api];
      if (value === undefined) continue;
      if (field.setByConstruct) {
        unexpressed.push(`${object.id}: field ${field.api} (no construct reference for it)`);
        continue;
      }
      if (!field.identity && isServiceDefault(field, value)) continue;
      // The service reports a string never set as "": code cannot say that where a value may not be empty.
      if (value === '' && !field.emptyAllowed) continue;
      props.push(`${field.prop}: ${renderValue(field, value)}`);
    }
    // Data the generated code does not describe (a KV mount's secrets) must survive a destroy of the adopted
    // stack or a construct removed by mistake: the model says which objects hold it (docs/guardrails.md).
    if (resourceType.holdsUnmanagedData(object.attributes)) props.push('protect: true');
    const variable = variableOf.get(object.id);
    const call = `new ${resourceType.construct}(stack, ${stringLiteral(constructId)}, { ${props.join(', ')} });`;
    statements.push(variable === undefined ? call : `const ${variable} = ${call}`);
  }

  const constructs = [...new Set(planned.map((p) => p.object.resourceType.construct))];
  if (secretVariables.length > 0) constructs.push('SecretValue');
  constructs.sort();
  const source = [
    header(secretVariables, [...new Set(unexpressed)].sort()),
    "import { App, TerraformStack } from 'cdktf';",
    constructs.length > 0 ? `import { ${constructs.join(', ')} } from 'secretform';` : '',
    '',
    'const app = new App();',
    `const stack = new TerraformStack(app, ${stringLiteral(stackName)});`,
    ...statements,
    '',
    'app.synth();',
    '',
  ].join('\n');
  // `stack` is unused when nothing was found; strict settings would refuse the unused variable otherwise.
  return {
    source: planned.length === 0 ? source.replace('const stack = new TerraformStack', 'new TerraformStack') : source,
    variables: secretVariables,
    unexpressed: [...new Set(unexpressed)].sort(),
    constructCount: planned.length + absorbed.size,
  };
}

/**
 * Mounts that their engine's configuration construct creates itself (its `manageMount`, the default): those
 * whose only settings are the path and type. Others get a construct of their own and `manageMount: false`.
 */
function absorbedMounts(objects: readonly DiscoveredObject[], byId: Map<string, DiscoveredObject>): Set<string> {
  const absorbed = new Set<string>();
  for (const object of objects) {
    const engineType = Object.keys(ENGINE_BACKENDS).find((key) => ENGINE_BACKENDS[key] === object.resourceType.type);
    if (engineType === undefined) continue;
    const mountId = `sys/mounts/${String(object.attributes.path)}`;
    const mount = byId.get(mountId);
    if (!mount || mount.attributes.type !== engineType) continue;
    const onlyPathAndType = mount.resourceType.fields.every((field) => {
      const value = mount.attributes[field.api];
      return field.api === 'path' || field.api === 'type' || value === undefined || isServiceDefault(field, value);
    });
    if (onlyPathAndType) absorbed.add(mountId);
  }
  return absorbed;
}

/** The name a construct id is made from: the object's own name (the last identity field), or what it links. */
function baseName(object: DiscoveredObject): string {
  const { attributes, resourceType } = object;
  if (resourceType.type === 'sync_association') return `${String(attributes.secret_name)}-to-${String(attributes.destination_name)}`;
  const identity = resourceType.fields.filter((field) => field.identity && !field.setByConstruct);
  const last = identity[identity.length - 1] as FieldSpec | undefined;
  const own = last ? attributes[last.api] : undefined;
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- identity fields are scalars (names, paths), never objects
  if (own !== undefined) return String(own);
  const path = attributes.path;
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a mount path is a string
  return path !== undefined ? String(path) : resourceType.type.replace(/_/g, '-');
}

function referenceProp(
  reference: ConstructReference,
  attributes: Attributes,
  constructIdOf: Map<string, string>,
  variableOf: Map<string, string>,
): string | undefined /* or 'missing' */ {
  const target = reference.targetId(attributes);
  if (target === undefined) return undefined;
  const variable = variableOf.get(target);
  if (variable !== undefined && constructIdOf.has(target)) return `${reference.prop}: ${variable}`;
  if (!reference.fallback) return 'missing';
  return `${reference.prop}: ${renderLiteral(reference.fallback(attributes))}`;
}

function isServiceDefault(field: FieldSpec, value: unknown): boolean {
  return field.serviceDefault !== undefined && compareJson(field.serviceDefault, value) === 0;
}

function header(variables: readonly SecretVariable[], unexpressed: readonly string[]): string {
  const lines = [
    '/**',
    ' * Generated by `secretform generate` from the objects on the service. Review it before the first apply',
    ' * (docs/adopting.md): run `secretform import --all`, then `secretform plan` should show no change.',
  ];
  if (variables.length > 0) {
    lines.push(' *', ' * Secrets are read from these environment variables when secretform plans and applies:');
    for (const variable of [...variables].sort((a, b) => (a.name < b.name ? -1 : 1))) lines.push(` * - ${variable.name}: ${variable.description}`);
  }
  if (unexpressed.length > 0) {
    lines.push(' *', ' * Found on the service but not expressed here (secretform cannot manage them; they are left as they are):');
    for (const line of unexpressed) lines.push(` * - ${line.replace(/\*\//g, '*\\/')}`);
  }
  lines.push(' */');
  return lines.join('\n');
}

