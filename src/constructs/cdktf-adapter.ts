/**
 * Everything secretform takes from cdktf and the null provider, in one file: switching to the maintained fork
 * (CDK Terrain, `cdktn`) means changing the imports here and nothing else.
 */
import { App, Aspects, TerraformProvider, TerraformStack, Token, type IAspect } from 'cdktf';
import { NullProvider } from '@cdktf/provider-null/lib/provider';
import { Resource as NullResource } from '@cdktf/provider-null/lib/resource';
import type { IConstruct } from 'constructs';

export { App, TerraformStack, NullResource, NullProvider };

/** The stack a construct belongs to; throws naming the construct when it is not inside one. */
export function stackOf(construct: IConstruct): TerraformStack {
  return TerraformStack.of(construct);
}

export function isStack(construct: IConstruct): construct is TerraformStack {
  return TerraformStack.isStack(construct);
}

/** The output directory of the app a construct belongs to. */
export function appOutdir(construct: IConstruct): string {
  return App.of(construct).outdir;
}

/** Runs `finalise` once per synth of the stack, after every construct exists and before validation. */
export function onStackSynth(stack: TerraformStack, finalise: () => void): void {
  const aspect: IAspect = {
    visit(node: IConstruct) {
      if (node === stack) finalise();
    },
  };
  Aspects.of(stack).add(aspect);
}

/** Adds a validation that cdktf runs at synth, reporting all messages of all constructs together. */
export function addValidation(construct: IConstruct, validate: () => string[]): void {
  construct.node.addValidation({ validate });
}

/** Whether the stack holds a null provider other than `ours` (then ours must go: one default config only). */
export function otherNullProviders(stack: TerraformStack, ours: NullProvider): TerraformProvider[] {
  return stack.node
    .findAll()
    .filter((node): node is TerraformProvider => node instanceof TerraformProvider && node !== ours)
    .filter((provider) => provider.terraformResourceType === 'null' && provider.alias === undefined);
}

/** Whether a value holds an unresolved cdktf token (a terraform reference or variable) anywhere inside. */
export function containsToken(value: unknown): boolean {
  if (typeof value === 'string' || typeof value === 'number') return Token.isUnresolved(value);
  if (Array.isArray(value)) return value.some(containsToken);
  if (typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.values(value).some(containsToken);
  }
  return Token.isUnresolved(value);
}
