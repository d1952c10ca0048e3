/**
 * The policy API users write packs with: `definePolicy({ id, description, enforcement, resourceTypes?, check })`.
 * A policy sees one resource of the plan at a time, as `PolicyResource`, and returns its violations. It never
 * sees a secret value: secret fields read as the string `(sensitive)`.
 */

/** `mandatory` failures stop `plan` (after its reports) and `apply` (before any write); `advisory` ones only report. */
export const POLICY_ENFORCEMENTS = ['advisory', 'mandatory'] as const;
export type PolicyEnforcement = (typeof POLICY_ENFORCEMENTS)[number];

/** What a policy's `desired` and `live` show instead of a secret field's value. */
export const SENSITIVE_PLACEHOLDER = '(sensitive)';

/** Attributes by the service's field names; secret fields read `(sensitive)`, absent fields are missing or null. */
export type PolicyAttributes = Readonly<Record<string, unknown>>;

/** The drift of a resource as the plan JSON's `resource_drift` entry shows it. */
export interface PolicyDrift {
  readonly kind: string;
  readonly before: PolicyAttributes | null;
  readonly after: PolicyAttributes | null;
}

/** One resource of the plan, as `check` gets it (no-ops included). */
export interface PolicyResource {
  /** The construct path, e.g. `prod/ldap/svc-role`. */
  readonly address: string;
  readonly stack: string;
  /** The resource type, e.g. `ldap_static_role`. */
  readonly type: string;
  /** The actions as the plan JSON lists them: `["create"]`, `["update"]`, `["delete", "create"]`, `["delete"]`, `["no-op"]`. */
  readonly action: readonly string[];
  /** What the code asks for (null when the construct was removed or on destroy). */
  readonly desired: PolicyAttributes | null;
  /** The object on the service as read by this plan (null when it does not exist). */
  readonly live: PolicyAttributes | null;
  /** The drift entry of the resource, or null. */
  readonly drift: PolicyDrift | null;
}

/** One thing wrong with a resource; `field` is the service's field name when one field is to blame. */
export interface PolicyViolation {
  readonly message: string;
  readonly field?: string;
}

/** What `check` returns: the violations (an empty array, or nothing, when the resource passes). */
export type PolicyCheckOutcome = readonly PolicyViolation[] | void | undefined | null;

export interface PolicyDefinition {
  /** Stable id, used in reports, SARIF rule ids and `policyWaivers` (letters, digits, `-`, `_`, `.`, `/`). */
  readonly id: string;
  /** One line: what the policy asks for and why. */
  readonly description: string;
  readonly enforcement: PolicyEnforcement;
  /** The resource types the policy looks at (all when omitted). */
  readonly resourceTypes?: readonly string[];
  /** The violations of one resource: an array (empty when it passes), or nothing. */
  readonly check: (resource: PolicyResource) => PolicyCheckOutcome | Promise<PolicyCheckOutcome>;
}

/** A policy as `definePolicy` returns it: checked, frozen and marked, so a pack loader can tell it from anything else. */
export interface Policy extends PolicyDefinition {
  readonly [POLICY_MARKER]: true;
}

/** Global, so a pack built against another copy of the package (its own node_modules) is still recognised. */
export const POLICY_MARKER: unique symbol = Symbol.for('secretform/policy') as never;

export const POLICY_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.\-/]*$/;

export class PolicyDefinitionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PolicyDefinitionError';
  }
}

/**
 * Checks a policy definition and returns the policy. Throws a PolicyDefinitionError naming the policy and the
 * property that is wrong, so a pack with a mistake fails when it is loaded, not halfway through a plan.
 */
export function definePolicy(definition: PolicyDefinition): Policy {
  const problems = policyDefinitionProblems(definition);
  if (problems.length > 0) {
    const id = typeof (definition as { id?: unknown } | null)?.id === 'string' ? `policy "${definition.id}"` : 'a policy';
    throw new PolicyDefinitionError(`${id}: ${problems.join('; ')}`);
  }
  return Object.freeze({
    id: definition.id,
    description: definition.description,
    enforcement: definition.enforcement,
    ...(definition.resourceTypes !== undefined ? { resourceTypes: Object.freeze([...definition.resourceTypes]) } : {}),
    check: definition.check,
    [POLICY_MARKER]: true as const,
  });
}

/** What is wrong with a policy definition (empty when nothing). */
export function policyDefinitionProblems(value: unknown): string[] {
  if (typeof value !== 'object' || value === null) return [`expected an object made with definePolicy, got ${describe(value)}`];
  const definition = value as Record<string, unknown>;
  const problems: string[] = [];
  if (typeof definition.id !== 'string' || !POLICY_ID_PATTERN.test(definition.id)) {
    problems.push(`id: received ${describe(definition.id)}; a non-empty string of letters, digits, "-", "_", "." and "/"`);
  }
  if (typeof definition.description !== 'string' || definition.description.trim() === '') {
    problems.push(`description: received ${describe(definition.description)}; a non-empty string`);
  }
  if (!POLICY_ENFORCEMENTS.includes(definition.enforcement as PolicyEnforcement)) {
    problems.push(`enforcement: received ${describe(definition.enforcement)}; "advisory" or "mandatory"`);
  }
  const types = definition.resourceTypes;
  if (types !== undefined && (!Array.isArray(types) || types.some((type) => typeof type !== 'string'))) {
    problems.push(`resourceTypes: received ${describe(types)}; an array of resource type names (e.g. ["userpass_user"])`);
  }
  if (typeof definition.check !== 'function') problems.push(`check: received ${describe(definition.check)}; a function (resource) => violations`);
  return problems;
}

function describe(value: unknown): string {
  if (typeof value === 'function') return 'a function';
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value) ?? typeof value;
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
