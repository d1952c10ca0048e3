/**
 * Policy results as SARIF 2.1.0 (`--sarif PATH`), for code scanning: one run of the `secretform` tool, a rule
 * per policy evaluated (id, description, default level from its enforcement), a result per failed or waived
 * policy and resource (waived ones carry a suppression with the waiver's reason), located logically at the
 * construct address and, when the caller knows the app's source file, physically there.
 */
import type { Plan } from '../engine/plan/plan';
import type { PolicyEnforcement } from '../policy/policy';
import type { PolicyResult, PolicyRule } from '../policy/evaluation';

export const SARIF_SCHEMA_URI = 'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json';

export interface SarifOptions {
  /** secretform's version, for the tool's driver. */
  readonly toolVersion: string;
  /** The app's source file (relative to the directory the command ran in), the physical location of every result. */
  readonly sourceFile?: string;
}

const LEVEL: Readonly<Record<PolicyEnforcement, 'error' | 'warning'>> = { mandatory: 'error', advisory: 'warning' };

/** The SARIF log of the policy results of every plan given (one per stack), as indented JSON ending with a newline. */
export function renderSarif(plans: readonly Plan[], options: SarifOptions): string {
  return `${JSON.stringify(sarifLog(plans, options), null, 2)}\n`;
}

export function sarifLog(plans: readonly Plan[], options: SarifOptions): Record<string, unknown> {
  const rules = uniqueRules(plans);
  const index = new Map(rules.map((rule, position) => [rule.id, position]));
  const results = plans.flatMap((plan) => (plan.policy?.results ?? [])
    .filter((result) => result.status !== 'passed')
    .map((result) => sarifResult(result, index.get(result.policy) ?? -1, options)));
  return {
    $schema: SARIF_SCHEMA_URI,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'secretform',
            version: options.toolVersion,
            informationUri: 'https://www.npmjs.com/package/secretform',
            rules: rules.map(sarifRule),
          },
        },
        results,
      },
    ],
  };
}

/** Each policy once, in the order the packs were loaded (the same pack over several stacks gives the same rules). */
function uniqueRules(plans: readonly Plan[]): PolicyRule[] {
  const rules = new Map<string, PolicyRule>();
  for (const plan of plans) for (const rule of plan.policy?.rules ?? []) if (!rules.has(rule.id)) rules.set(rule.id, rule);
  return [...rules.values()];
}

function sarifRule(rule: PolicyRule): Record<string, unknown> {
  return {
    id: rule.id,
    shortDescription: { text: rule.description },
    fullDescription: { text: rule.description },
    defaultConfiguration: { level: LEVEL[rule.enforcement] },
    properties: { enforcement: rule.enforcement, pack: rule.pack },
  };
}

function sarifResult(result: PolicyResult, ruleIndex: number, options: SarifOptions): Record<string, unknown> {
  const location: Record<string, unknown> = {
    logicalLocations: [{ fullyQualifiedName: result.address, kind: 'resource' }],
  };
  if (options.sourceFile !== undefined) location.physicalLocation = { artifactLocation: { uri: toUri(options.sourceFile) }, region: { startLine: 1 } };
  return {
    ruleId: result.policy,
    ...(ruleIndex >= 0 ? { ruleIndex } : {}),
    level: LEVEL[result.enforcement],
    message: { text: `${result.address}: ${result.message}` },
    locations: [location],
    // The address and policy identify a finding across runs (code scanning matches alerts by these).
    partialFingerprints: { 'secretformAddress/v1': `${result.policy}:${result.address}` },
    ...(result.status === 'waived' ? { suppressions: [{ kind: 'inSource', justification: result.waiverReason ?? '' }] } : {}),
    properties: { enforcement: result.enforcement, status: result.status, fields: [...result.fields] },
  };
}

/** A relative path as a URI reference: forward slashes, each segment percent-encoded. */
function toUri(file: string): string {
  return file.split(/[\\/]/).map(encodeURIComponent).join('/');
}
