/**
 * The props every construct takes besides its fields: the guardrails (docs/guardrails.md) and policy waivers
 * (docs/policies.md). Declared once here; the generated `<Construct>Fields` interfaces extend `ResourceOptions`
 * and `propsSchema` adds their schema, so no construct lists them. They become the synthesized spec's
 * `lifecycle` and `policyWaivers` (synthesized-spec.ts).
 */
import { POLICY_ID_PATTERN } from '../policy/policy';
import type { FieldSpec, ResourceType } from '../resources/types';
import type { ResourceLifecycle } from '../synthesized-spec';
import { boolProp, optionalProp, stringListProp, zodOnlyProp, type PropDeclaration } from './prop-declaration';
import type { PropIssue } from './validation';

export interface ResourceOptions {
  /**
   * A plan that would delete or replace the object fails before any write, naming it (like terraform's
   * `prevent_destroy` and Pulumi's `protect`). Remove it and apply to let the object go.
   * @default false
   */
  readonly protect?: boolean;
  /**
   * When the construct is removed from the code, or on `secretform destroy`, the object is forgotten by the
   * state and left on the service (the plan's `forget` action), never deleted.
   * @default false
   */
  readonly retainOnDelete?: boolean;
  /**
   * Props (camelCase, as in this construct) that are sent when the object is created and never compared
   * afterwards: changes on the service are not drift, changes in code are not sent. `['*']`: every prop.
   * @default - none
   */
  readonly ignoreChanges?: readonly string[];
  /**
   * Policies this construct is exempt from, by policy id, each with the reason: a waived violation is reported
   * as `waived` with that reason, and never fails a plan (`{ 'userpass-token-bound-cidrs': 'CI runners have no
   * fixed addresses' }`).
   * @default - none
   */
  readonly policyWaivers?: Readonly<Record<string, string>>;
}

/**
 * The props of `ResourceOptions`, added to every construct's props schema. A policy waiver's id and reason have
 * checks the plain check does not repeat: zod reads them when a construct sets any.
 * @internal (zod's types stay out of the public declarations)
 */
export const resourceOptionDeclarations: Readonly<Record<string, PropDeclaration>> = {
  protect: optionalProp(boolProp),
  retainOnDelete: optionalProp(boolProp),
  ignoreChanges: optionalProp(stringListProp),
  policyWaivers: optionalProp(zodOnlyProp((z) => z.record(
    z.string().regex(POLICY_ID_PATTERN, 'a policy id (letters, digits, "-", "_", ".", "/")'),
    z.string().trim().min(1, 'a reason: say why the policy does not apply here'),
  ))),
};

/** The policy waivers as the synthesized spec carries them (absent when none). */
export function policyWaiversOf(props: Record<string, unknown>): Readonly<Record<string, string>> | undefined {
  const waivers = props.policyWaivers;
  if (typeof waivers !== 'object' || waivers === null || Object.keys(waivers).length === 0) return undefined;
  return Object.freeze({ ...(waivers as Record<string, string>) });
}

/** Every field, `ignoreChanges: ['*']` says. */
export const ALL_FIELDS = '*';

/** The props `ignoreChanges` may name: fields the code sets and the engine compares (not the object's identity). */
export function ignorableFields(resourceType: ResourceType): FieldSpec[] {
  return resourceType.fields.filter((field) => !field.identity && !field.computed && !field.local && !field.setByConstruct);
}

/**
 * The lifecycle of a construct's props, and the problems of `ignoreChanges` names (an unknown name is refused
 * naming the value and the names allowed). Shapes (a boolean, a list of strings) are the schema's to check.
 */
export function lifecycleOfProps(resourceType: ResourceType, props: Record<string, unknown>): { lifecycle: ResourceLifecycle; issues: PropIssue[] } {
  const issues: PropIssue[] = [];
  const lifecycle: { protect?: boolean; retainOnDelete?: boolean; ignoreChanges?: string[] } = {};
  if (props.protect === true) lifecycle.protect = true;
  if (props.retainOnDelete === true) lifecycle.retainOnDelete = true;
  const names = props.ignoreChanges;
  if (Array.isArray(names) && names.every((name) => typeof name === 'string')) {
    const fields = ignorableFields(resourceType);
    const allowed = `${JSON.stringify(ALL_FIELDS)} alone, or props of ${resourceType.construct}: ${fields.map((field) => field.prop).join(', ')}`;
    if (names.includes(ALL_FIELDS)) {
      if (names.length > 1) issues.push({ prop: 'ignoreChanges', value: names, allowed: `${JSON.stringify(ALL_FIELDS)} means every prop and stands alone; ${allowed}` });
      else lifecycle.ignoreChanges = [ALL_FIELDS];
    } else {
      const ignored: string[] = [];
      names.forEach((name, index) => {
        const field = fields.find((candidate) => candidate.prop === name);
        if (field) ignored.push(field.api);
        else issues.push({ prop: `ignoreChanges[${index}]`, value: name, allowed });
      });
      if (ignored.length > 0) lifecycle.ignoreChanges = [...new Set(ignored)];
    }
  }
  return { lifecycle, issues };
}
