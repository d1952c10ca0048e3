/**
 * The base of every secretform construct: validates its props (zod schema plus cross-prop rules), turns them
 * into a spec keyed by the service's field names with secrets kept apart. The stack-level pass (stack.ts) adds,
 * at synth, the entry that carries the spec in the synthesized JSON, its dependencies and the `cdktf deploy`
 * bridge.
 */
import { Construct } from 'constructs';
import { fieldValueProblems } from '../resources/field-rules';
import type { Attributes, FieldSpec, ResourceType } from '../resources/types';
import { reservedReferenceProblem, SecretValue } from '../secret-value';
import type { ResourceLifecycle, SourceLocation } from '../synthesized-spec';
import { addValidation, stackOf, tokenTest } from './cdktf-adapter';
import { captureCreationStack, creationSiteOf, type CreationStack } from './creation-site';
import { lifecycleOfProps, policyWaiversOf } from './resource-options';
import { StackSupport } from './stack';
import type { StackMember } from './stack-member';
import { formatIssue, schemaIssues, type PropIssue, type PropsSchema } from './validation';

/** A construct another one refers to through a prop (its backend, destination, app, mount). */
export interface ResourceReference {
  readonly prop: string;
  readonly target: SecretformResource;
}

export interface ResourceDefinition<Props> {
  readonly resourceType: ResourceType;
  readonly props: Props;
  readonly schema: PropsSchema;
  /** Rules that span props; they get the raw props and must cope with values of the wrong type. */
  readonly rules?: (props: Record<string, unknown>) => PropIssue[];
  /** Spec values the construct derives itself (identity from a referenced construct, defaults). */
  readonly derived?: Attributes;
  /** Props that are not service fields (handled by the construct: backend, destination, manageMount). */
  readonly nonFieldProps?: readonly string[];
  readonly references?: readonly ResourceReference[];
}

export abstract class SecretformResource extends Construct implements StackMember {
  readonly resourceType: ResourceType;
  /** Desired attributes keyed by the service's field names, without secrets. */
  readonly spec: Readonly<Attributes>;
  /** Secret fields by service field name. */
  readonly secrets: Readonly<Record<string, SecretValue>>;
  readonly references: readonly ResourceReference[];
  /** The guardrails set by `protect`, `retainOnDelete` and `ignoreChanges` (ignored fields by service name). */
  readonly lifecycle: ResourceLifecycle;
  /** Policies waived for this construct, by policy id, with the reason (`policyWaivers`). */
  readonly policyWaivers?: Readonly<Record<string, string>>;
  private readonly propIssues: readonly PropIssue[];
  /** The stack of the construct's creation, read once by `source` (undefined when the app turned stack traces off). */
  private readonly creationStack: CreationStack | undefined;
  private creationSite: SourceLocation | null | undefined;
  private objectId: string | undefined;

  protected constructor(scope: Construct, id: string, definition: ResourceDefinition<object>) {
    super(scope, id);
    this.creationStack = captureCreationStack(this, SecretformResource);
    const props = (definition.props ?? {}) as Record<string, unknown>;
    const { resourceType } = definition;
    this.resourceType = resourceType;
    const { spec: fullSpec, secrets } = specFromProps(resourceType.fields, props, definition.nonFieldProps ?? []);
    // The derived values after the props' own (an undefined one is no value), as `{ ...spec, ...derived }` would
    // order them, without the copies: every construct's objects live until the app exits (GC is a fifth of synth).
    const derived = definition.derived ?? {};
    for (const key of Object.keys(derived)) {
      if (derived[key] !== undefined) fullSpec[key] = derived[key];
    }
    const { lifecycle, issues: lifecycleIssues } = lifecycleOfProps(resourceType, props);
    const shapeIssues = joined(
      tokenIssues(props, this),
      schemaIssues(definition.schema, props),
      definition.rules?.(props) ?? [],
      reservedVariableIssues(resourceType.fields, secrets),
      lifecycleIssues,
    );
    const issues = joined(shapeIssues, fieldFactIssues(resourceType.fields, fullSpec, props, definition.nonFieldProps ?? [], shapeIssues));
    // Whichever check raised it, an issue naming a secret prop never shows the value received (a plain string
    // given where a SecretValue belongs is a secret too); a missing one still reads "received nothing".
    this.propIssues = issues.length === 0 ? NO_ISSUES : markSensitive(issues, resourceType.fields);
    this.spec = fullSpec;
    this.secrets = secrets;
    this.references = definition.references ?? [];
    this.lifecycle = lifecycle;
    this.policyWaivers = policyWaiversOf(props);
    const support = StackSupport.of(stackOf(this));
    support.register(this);
    addValidation(this, () => [...this.propProblems(), ...this.synthOnlyProblems()]);
  }

  /** The resource's address: its construct path. */
  get address(): string {
    return this.node.path;
  }

  /**
   * Where the user's code creates this construct (file relative to the working directory, line, column), for
   * the reports' policy results; undefined when unknown (creation-site.ts).
   */
  get source(): SourceLocation | undefined {
    if (this.creationSite === undefined) this.creationSite = creationSiteOf(this.creationStack, process.cwd()) ?? null;
    return this.creationSite ?? undefined;
  }

  get hasPropIssues(): boolean {
    return this.propIssues.length > 0;
  }

  /**
   * The object's identity on the service: its API path without `/v1/` (also its import id), e.g.
   * `ldap/static-role/svc`; a plain string, usable in a `TerraformOutput`. Undefined while the props are invalid.
   */
  get resourceId(): string | undefined {
    if (this.hasPropIssues) return undefined;
    // Made once: the stack-level rules, the synth pass and reports ask for it, and its identity fields are
    // plain values fixed when the construct was made.
    if (this.objectId === undefined) this.objectId = this.resourceType.id(this.spec);
    return this.objectId;
  }

  /** The object's URL path on the service, e.g. `/v1/ldap/static-role/svc`; undefined while the props are invalid. */
  get servicePath(): string | undefined {
    const id = this.resourceId;
    return id === undefined ? undefined : `/v1/${id}`;
  }

  /** Messages for invalid props (reported by synth and by `desiredFromStack`). */
  propProblems(): string[] {
    return this.propIssues.map((issue) => formatIssue(this.address, issue));
  }

  /** Messages only synth reports: plain-text secrets cannot be written to the synthesized JSON. */
  synthOnlyProblems(): string[] {
    // Asked of every construct twice per synth (the stack pass and validation): nothing made when none applies.
    if (!Object.values(this.secrets).some((secret) => secret.isPlainText)) return [];
    return Object.entries(this.secrets)
      .filter(([, secret]) => secret.isPlainText)
      .map(([api]) => formatIssue(this.address, {
        prop: propOf(this.resourceType.fields, api),
        value: undefined,
        sensitive: true,
        allowed: 'SecretValue.unsafePlainText cannot be synthesized (the synthesized JSON must never hold a secret); use SecretValue.fromEnv or SecretValue.fromFile, or pass the stack to the engine API in-process',
      }));
  }
}

/** The issues of valid props, shared: most constructs have none, and each keeps its list until the app exits. */
const NO_ISSUES: readonly PropIssue[] = Object.freeze([]);

/** The lists one after the other; the shared empty list when all are empty (the usual case: nothing copied). */
function joined(...lists: ReadonlyArray<readonly PropIssue[]>): readonly PropIssue[] {
  const nonEmpty = lists.filter((list) => list.length > 0);
  if (nonEmpty.length === 0) return NO_ISSUES;
  return nonEmpty.length === 1 ? nonEmpty[0] : nonEmpty.flat();
}

/** The issues, those that name a sensitive prop and hold a value marked sensitive (never shown). */
function markSensitive(issues: readonly PropIssue[], fields: readonly FieldSpec[]): PropIssue[] {
  const sensitiveProps = new Set(fields.filter((field) => field.sensitive).map((field) => field.prop));
  return issues.map((issue) => (issue.value !== undefined && namesAny(issue.prop, sensitiveProps) ? { ...issue, sensitive: true } : issue));
}

/** A secret read from a variable of secretform's own (SERVICE_TOKEN, SECRETFORM_STATE_KEY) is refused. */
function reservedVariableIssues(fields: readonly FieldSpec[], secrets: Readonly<Record<string, SecretValue>>): PropIssue[] {
  return Object.entries(secrets).flatMap(([api, secret]) => {
    const problem = reservedReferenceProblem(secret.reference);
    return problem === undefined ? [] : [{ prop: propOf(fields, api), value: secret, sensitive: true, allowed: problem }];
  });
}

/** The engine reads plain values from the synthesized JSON: terraform references cannot be resolved there. */
function tokenIssues(props: Record<string, unknown>, scope: Construct): PropIssue[] {
  const containsToken = tokenTest(scope);
  let issues: PropIssue[] | undefined;
  for (const prop of Object.keys(props)) {
    const value = props[prop];
    if (SecretValue.isSecretValue(value) || Construct.isConstruct(value) || !containsToken(value)) continue;
    (issues ??= []).push({
      prop,
      value,
      allowed: 'a plain value: cdktf tokens (terraform references, variables, functions) cannot be resolved by secretform, which reads the synthesized values as they are',
    });
  }
  return issues ?? [];
}

/**
 * Every field's value checked against the facts of the resource model (`fieldValueProblems`), for every
 * construct alike. A value is reported under the prop it came from: the field's own prop, or the non-field
 * prop that held it as a plain value (a role's `backend` given as a mount path). A value taken from another
 * construct (a backend construct's path) is that construct's to report. A prop that already has a problem
 * (wrong type, pattern) is not reported twice.
 */
function fieldFactIssues(
  fields: readonly FieldSpec[],
  spec: Attributes,
  props: Record<string, unknown>,
  nonFieldProps: readonly string[],
  earlier: readonly PropIssue[],
): PropIssue[] {
  const reported = new Set(earlier.map((issue) => issue.prop));
  const issues: PropIssue[] = [];
  for (const field of fields) {
    const value = spec[field.api];
    if (value === undefined || field.sensitive) continue;
    const source = props[field.prop] === value ? field.prop : nonFieldProps.find((prop) => isPlainValue(props[prop]) && props[prop] === value);
    if (source === undefined || reported.has(source)) continue;
    reported.add(source);
    if (typeof value === 'string' && lastCleanText.get(field) === value) continue;
    const problems = fieldValueProblems(field, value);
    for (const allowed of problems) issues.push({ prop: source, value, allowed });
    if (typeof value === 'string' && problems.length === 0) lastCleanText.set(field, value);
  }
  return issues;
}

/**
 * The last text each field took without a problem. The check is a function of the field and the value alone, and
 * an app's constructs often repeat one (the LDIF of every dynamic role, a policy, a mount path), some of which
 * are parsed to be checked (LDIF, templates): a repeated text is not checked again.
 */
const lastCleanText = new WeakMap<FieldSpec, string>();

function isPlainValue(value: unknown): boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

/** Whether a prop label (`clientSecret, identityTokenAudience`, `password | passwordHash`, `a[0].b`) names one of `props`. */
function namesAny(label: string, props: ReadonlySet<string>): boolean {
  return label.split(/[^A-Za-z0-9_]+/).some((name) => props.has(name));
}

function propOf(fields: readonly FieldSpec[], api: string): string {
  return fields.find((field) => field.api === api)?.prop ?? api;
}

/** Maps props to service field names: object-list elements to snake_case keys, SecretValues to `secrets`. */
export function specFromProps(
  fields: readonly FieldSpec[],
  props: Record<string, unknown>,
  nonFieldProps: readonly string[],
): { spec: Attributes; secrets: Record<string, SecretValue> } {
  const spec: Attributes = {};
  const secrets: Record<string, SecretValue> = {};
  for (const field of fields) {
    if (nonFieldProps.includes(field.prop) || field.computed || field.setByConstruct) continue;
    const value = props[field.prop];
    if (value === undefined || value === null) continue;
    if (field.sensitive) {
      if (SecretValue.isSecretValue(value)) secrets[field.api] = value;
      // A sensitive prop given as anything else is a validation error; it is never copied into the spec.
      continue;
    }
    if (SecretValue.isSecretValue(value)) continue;
    spec[field.api] = field.kind === 'objectList' && Array.isArray(value) ? value.map(snakeCaseKeys) : value;
  }
  return { spec, secrets };
}

function snakeCaseKeys(element: unknown): unknown {
  if (typeof element !== 'object' || element === null || Array.isArray(element)) return element;
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(element)) {
    if (value !== undefined) result[key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)] = value;
  }
  return result;
}
