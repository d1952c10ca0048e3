/** `npm run generate:constructs`: writes the constructs' field props from the resource model. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { GENERATED_FIELDS_PATH, generatedFieldsSource } from '../src/constructs/codegen/fields-source';
import { RESOURCE_TYPES } from '../src/resources/registry';

function main(): void {
  const target = path.resolve(__dirname, '..', GENERATED_FIELDS_PATH);
  fs.writeFileSync(target, generatedFieldsSource(RESOURCE_TYPES));
  process.stdout.write(`wrote ${GENERATED_FIELDS_PATH}\n`);
}

try {
  main();
} catch (error: unknown) {
  process.stderr.write(`generate:constructs: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
