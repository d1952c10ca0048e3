/**
 * The `cdktf deploy` bridge (also `cdktn deploy`): what secretform adds to each stack so that terraform, run
 * in `cdktf.out/stacks/<stack>`, converges the service through `secretform` and destroys through it.
 *
 * - One stack-level step (`terraform_data.secretform`, or `null_resource.secretform` on request) whose trigger
 *   is `timestamp()`, so every deploy replaces it. Its create-time `local-exec` runs `secretform apply
 *   --auto-approve` for the whole stack: a full plan against state and the live service, so creates, updates,
 *   replacements, removed constructs, drift and changed secret values all converge, and nothing else in the
 *   stack runs secretform, so terraform's parallelism can never make two steps collide on the state lock.
 * - `create_before_destroy` on the step: terraform never runs the destroy-time provisioner of a deposed
 *   create_before_destroy object, so the replacement on each deploy destroys nothing on the service; `cdktf
 *   destroy` destroys the current object, whose destroy-time provisioner runs `secretform destroy` for the
 *   stack. A destroy-time provisioner may read only `self`, so both commands are stored in the step's own
 *   attributes.
 * - Per construct, one plain entry (`terraform_data` with `input`, or `null_resource` with `triggers`) holding
 *   address, type, id and digest, without provisioners: `terraform plan` shows what is managed and what changed;
 *   its `"//".secretform` comment holds the synthesized spec the engine reads.
 */
import { hash } from 'node:crypto';
import type { Attributes } from '../resources/types';

/** The terraform resource type the bridge uses. */
export type BridgeResourceType = 'terraform_data' | 'null_resource';
export const BRIDGE_RESOURCE_TYPES: readonly BridgeResourceType[] = ['terraform_data', 'null_resource'];

export interface DeployBridgeOptions {
  /**
   * `terraform_data` (built into terraform >= 1.4: no provider download, works offline and under cdktn) or
   * `null_resource` (terraform downloads the `hashicorp/null` provider at `init`).
   * @default 'terraform_data' (or the `secretform:bridge` context value)
   */
  readonly resource?: BridgeResourceType;
  /**
   * The command that runs secretform, in the project directory (where synth ran).
   * @default 'npx --no-install secretform' (or the `secretform:command` context value)
   */
  readonly command?: string;
}

export const DEFAULT_BRIDGE_COMMAND = 'npx --no-install secretform';

export interface BridgeStepInput {
  readonly stack: string;
  /** The project directory (where synth ran) relative to `cdktf.out/stacks/<stack>`. */
  readonly workdir: string;
  /** The synth output directory relative to the project directory. */
  readonly output: string;
  readonly command: string;
}

export interface LocalExecProvisioner {
  readonly 'local-exec': { readonly command: string; readonly working_dir: string; readonly when?: 'destroy' };
}

/** The stack-level step: its stored attributes (read through `self` by both provisioners) and provisioners. */
export function bridgeStep(input: BridgeStepInput, attribute: 'input' | 'triggers'): { stored: Record<string, string>; provisioners: LocalExecProvisioner[] } {
  const common = `--no-synth --output ${quote(input.output)} --stack ${quote(input.stack)} --auto-approve`;
  const stored = {
    stack: literal(input.stack),
    workdir: literal(input.workdir),
    apply: literal(`${input.command} apply ${common}`),
    destroy: literal(`${input.command} destroy ${common}`),
  };
  const self = (key: string) => `\${self.${attribute}.${key}}`;
  return {
    stored,
    provisioners: [
      { 'local-exec': { command: self('apply'), working_dir: self('workdir') } },
      { 'local-exec': { when: 'destroy', command: self('destroy'), working_dir: self('workdir') } },
    ],
  };
}

/** sha256 over the canonical JSON of what decides the object's desired state. */
export function specDigest(type: string, id: string, desired: Attributes, secretSources: Attributes): string {
  const canonical = stableJson({ type, id, desired, secrets: secretSources });
  // The one-shot hash: no Hash object per construct.
  return `sha256:${hash('sha256', canonical, 'hex')}`;
}

/**
 * JSON with object keys sorted at every level; properties whose value is undefined are left out, and an array
 * element that JSON cannot encode (undefined, a function) is written as nothing, as `join` writes it. Built as
 * one string, without the arrays of parts per level it was made of before (it runs over every construct's spec).
 */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) {
    let text = '[';
    for (let index = 0; index < value.length; index++) {
      if (index > 0) text += ',';
      text += (stableJson(value[index]) as string | undefined) ?? '';
    }
    return `${text}]`;
  }
  if (typeof value === 'object' && value !== null) {
    let text = '{';
    // A spec's keys usually come in sorted order already (the model's canonical form): sorting them again made
    // an array per object and was the largest item of the synth pass's own time at 10,000 constructs.
    const keys = Object.keys(value);
    if (!isSorted(keys)) keys.sort();
    for (const key of keys) {
      const item = (value as Record<string, unknown>)[key];
      if (item === undefined) continue;
      if (text.length > 1) text += ',';
      text += `${JSON.stringify(key)}:${stableJson(item)}`;
    }
    return `${text}}`;
  }
  return JSON.stringify(value);
}

/** Whether `keys` are in the order `sort()` gives (UTF-16 code units; keys of one object are never equal). */
function isSorted(keys: readonly string[]): boolean {
  for (let index = 1; index < keys.length; index++) if (keys[index - 1] > keys[index]) return false;
  return true;
}

/** Single-quotes a shell argument. */
export function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Escapes terraform's template sequences in a literal string (terraform would interpolate them). */
export function literal(text: string): string {
  // Most texts (every construct's address and id) hold no `{`: two regular expressions each were measurable.
  if (!text.includes('{')) return text;
  return text.replace(/\$\{/g, '$${').replace(/%\{/g, '%%{');
}
