/**
 * Policy results as SARIF 2.1.0 (`--sarif PATH`), for code scanning: one run of the `secretform` tool, a rule
 * per policy evaluated (id, description, default level from its enforcement), a result per failed or waived
 * policy and resource (waived ones carry a suppression with the waiver's reason), located logically at the
 * construct address and physically at the line that creates the construct (its creation site, carried by the
 * plan), so code scanning annotates that line. Without one (`new App({ stackTraces: false })`, or synth output of
 * an older version), line 1 of the app's source file, when the caller knows it.
 */
import type { Plan } from '../engine/plan/plan';
import type { PolicyEnforcement } from '../policy/policy';
import type { PolicyResult, PolicyRule } from '../policy/evaluation';
import type { SourceLocation } from '../synthesized-spec';
import { sourcesByAddress } from './source-locations';

export const SARIF_SCHEMA_URI = 'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json';

export interface SarifOptions {
  /** secretform's version, for the tool's driver. */
  readonly toolVersion: string;
  /** The app's source file (relative to the directory the command ran in): line 1 of it locates a result whose resource has no creation site. */
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
  const results = plans.flatMap((plan) => {
    const sources = sourcesByAddress(plan);
    return (plan.policy?.results ?? [])
      .filter((result) => result.status !== 'passed')
      .map((result) => sarifResult(result, index.get(result.policy) ?? -1, physicalLocation(sources.get(result.address), options)));
  });
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

/** The construct's creation site; else line 1 of the app's source file; else none. */
function physicalLocation(source: SourceLocation | undefined, options: SarifOptions): Record<string, unknown> | undefined {
  if (source !== undefined) {
    return { artifactLocation: { uri: toUri(source.file) }, region: { startLine: source.line, startColumn: source.column } };
  }
  if (options.sourceFile !== undefined) return { artifactLocation: { uri: toUri(options.sourceFile) }, region: { startLine: 1 } };
  return undefined;
}

function sarifResult(result: PolicyResult, ruleIndex: number, physical: Record<string, unknown> | undefined): Record<string, unknown> {
  const location: Record<string, unknown> = {
    logicalLocations: [{ fullyQualifiedName: result.address, kind: 'resource' }],
  };
  if (physical !== undefined) location.physicalLocation = physical;
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
