/**
 * The `cdktf deploy` bridge: what each null_resource carries so that terraform, running in
 * `cdktf.out/stacks/<stack>`, applies and destroys through `secretform`.
 *
 * - `triggers` = { address, digest, stack, workdir }. The digest covers the canonical non-secret spec and the
 *   secret references (never secret values: triggers are stored in terraform state). A changed spec changes
 *   the digest, so terraform replaces the null_resource and its create-time provisioner applies the change.
 * - create-time `local-exec`: `npx secretform apply --no-synth --target <address>` in the project directory.
 * - destroy-time `local-exec` (it may read only `self.triggers`): `npx secretform destroy --no-synth --target
 *   <address> --if-digest <digest>`. With `create_before_destroy`, a trigger change first creates the new
 *   instance, whose apply records the new digest for the address in secretform's state; the old instance's
 *   destroy then sees a digest different from the one it carries and leaves the real object alone. `cdktf
 *   destroy` runs it with the digest last applied, so the object is deleted. Terraform runs a destroy-time
 *   provisioner only while its block is still in the configuration: when a construct is removed from the code,
 *   `cdktf deploy` drops the null_resource without running it, and `secretform apply` (which compares state
 *   with the code) is what deletes the object.
 */
import { createHash } from 'node:crypto';
import type { Attributes } from '../resources/types';

export interface BridgeInput {
  readonly address: string;
  readonly digest: string;
  readonly stack: string;
  /** The project directory (where synth ran) relative to `cdktf.out/stacks/<stack>`. */
  readonly workdir: string;
  /** The synth output directory relative to the project directory. */
  readonly output: string;
}

export interface LocalExecProvisioner {
  readonly 'local-exec': { readonly command: string; readonly working_dir: string; readonly when?: 'destroy' };
}

export function bridgeAttributes(input: BridgeInput): { triggers: Record<string, string>; provisioners: LocalExecProvisioner[] } {
  const triggers = { address: input.address, digest: input.digest, stack: input.stack, workdir: input.workdir };
  const output = quote(literal(input.output));
  const apply = `npx secretform apply --no-synth --output ${output} --stack ${quote(literal(input.stack))} --target ${quote(literal(input.address))} --auto-approve`;
  const destroy =
    `npx secretform destroy --no-synth --output ${output} --stack ${quote('${self.triggers.stack}')}` +
    ` --target ${quote('${self.triggers.address}')} --if-digest ${quote('${self.triggers.digest}')} --auto-approve`;
  return {
    triggers,
    provisioners: [
      { 'local-exec': { command: apply, working_dir: literal(input.workdir) } },
      { 'local-exec': { when: 'destroy', command: destroy, working_dir: '${self.triggers.workdir}' } },
    ],
  };
}

/** sha256 over the canonical JSON of what decides the object's desired state. */
export function specDigest(type: string, id: string, desired: Attributes, secretSources: Attributes): string {
  const canonical = stableJson({ type, id, desired, secrets: secretSources });
  return `sha256:${createHash('sha256').update(canonical).digest('hex')}`;
}

/** JSON with object keys sorted at every level. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${stableJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Single-quotes a shell argument. */
function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Escapes terraform's template sequences in a literal string (terraform would interpolate them). */
function literal(text: string): string {
  return text.replace(/\$\{/g, '$${').replace(/%\{/g, '%%{');
}
