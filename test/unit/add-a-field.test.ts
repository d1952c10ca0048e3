/**
 * Adding a field to a type is a change to its module only: every layer reads the declaration. A scratch copy of
 * the library set type with one more field shows it in the generated props, props validation, the synthesized
 * spec, the diff and the report.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { App, TerraformStack } from 'cdktf';
import type { Construct } from 'constructs';
import { generatedFieldsSource } from '../../src/constructs/codegen/fields-source';
import { propsSchema } from '../../src/constructs/props-schema';
import { SecretformResource } from '../../src/constructs/resource';
import { diffResource } from '../../src/engine/plan/resource-diff';
import { FingerprintKey } from '../../src/engine/state/fingerprint';
import { renderText, stackReport } from '../../src/report';
import { withExtraFields } from '../../src/resources/define';
import { field } from '../../src/resources/field';
import { getResourceType } from '../../src/resources/registry';
import { readSynthesizedSpecs } from '../../src/synthesized-spec';
import { tempDir } from '../support/temp-dir';

const scratch = withExtraFields(getResourceType('ldap_library_set'), [
  field('checkout_policy', 'string', 'Which free account a check-out gets.', { allowed: ['first', 'random'], serviceDefault: 'first' }),
]);

class ScratchSet extends SecretformResource {
  constructor(scope: Construct, id: string, props: Record<string, unknown>) {
    super(scope, id, { resourceType: scratch, props, schema: propsSchema(scratch), derived: { mount: 'ldap' } });
  }
}

const outdirs: string[] = [];
afterAll(() => outdirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

function synth(props: Record<string, unknown>): { specs: ReturnType<typeof readSynthesizedSpecs>; error?: string } {
  const outdir = tempDir('secretform-scratch-');
  outdirs.push(outdir);
  const app = new App({ outdir });
  new ScratchSet(new TerraformStack(app, 'prod'), 'pool', props);
  try {
    app.synth();
  } catch (error) {
    return { specs: [], error: (error as Error).message };
  }
  const config = JSON.parse(fs.readFileSync(path.join(outdir, 'stacks', 'prod', 'cdk.tf.json'), 'utf8'));
  return { specs: readSynthesizedSpecs(config, 'cdk.tf.json') };
}

test('the new field is a documented prop of the generated interface', () => {
  const source = generatedFieldsSource([scratch]);
  expect(source).toContain('Which free account a check-out gets.');
  expect(source).toContain("readonly checkoutPolicy?: 'first' | 'random';");
  expect(source).toContain('@default "first"');
});

test('props validation checks it against its allowed values', () => {
  const { error } = synth({ name: 'pool', serviceAccountNames: ['svc-1'], checkoutPolicy: 'last' });
  expect(error).toContain('prod/pool: checkoutPolicy: received "last"; allowed values: "first", "random"');
});

test('it is synthesized, diffed and reported', () => {
  const { specs, error } = synth({ name: 'pool', serviceAccountNames: ['svc-1'], checkoutPolicy: 'random' });
  expect(error).toBeUndefined();
  expect(specs[0].spec).toMatchObject({ checkout_policy: 'random' });

  const applied = { mount: 'ldap', name: 'pool', service_account_names: ['svc-1'], checkout_policy: 'first' };
  const diff = diffResource({
    address: 'prod/pool',
    resourceType: scratch,
    desired: { ...specs[0], secrets: {} },
    stateEntry: { type: scratch.type, id: specs[0].id, attributes: applied, secrets: {}, dependencies: [], applied_at: '2026-01-01T00:00:00Z' },
    live: { attributes: { ...applied, ttl: 86400, max_ttl: 86400, disable_check_in_enforcement: false }, data: null },
    secrets: {},
    fingerprintKey: FingerprintKey.none('test'),
    refreshOnly: false,
  });
  expect(diff.plan.change.action).toBe('update');
  expect(diff.plan.change.fieldChanges).toEqual([{ field: 'checkout_policy', from: 'first', to: 'random', forcesReplacement: false }]);
  const text = renderText([stackReport({ stack: 'prod', refreshOnly: false, changes: [diff.plan.change], drift: [], warnings: [] })], { color: false });
  expect(text).toContain('~ checkout_policy = "first" -> "random"');
});
