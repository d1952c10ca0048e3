// A virtual carrier's logical id (carrier-id.ts) must be the very text cdktf's own scheme gives the element: it is
// the resource's key in cdk.tf.json and the name every `depends_on` uses.
import * as path from 'node:path';
import fc from 'fast-check';
import { logicalIdOf } from '../../src/constructs/carrier-id';

// cdktf's own function (lib/private/unique.js), the one `TerraformStack.allocateLogicalId` calls.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { makeUniqueId } = require(path.join(path.dirname(require.resolve('cdktf')), 'private', 'unique.js')) as { makeUniqueId: (components: string[]) => string };

const cdktfId = (components: string[]): string => {
  try {
    return makeUniqueId(components);
  } catch {
    return 'throws';
  }
};
const ownId = (components: string[]): string => {
  try {
    return logicalIdOf(components);
  } catch {
    return 'throws';
  }
};

test('the same ids as cdktf for the paths secretform meets', () => {
  const cases = [
    ['user-0', 'resource'],
    ['cloud', 'mount', 'resource'],
    ['myresource', 'resource'],
    ['Default', 'resource'],
    ['team', 'Default', 'user', 'resource'],
    ['Resource', 'resource'],
    ['a b/c', 'é', 'resource'],
    ['x'.repeat(300), 'resource'],
    ['y'.repeat(260)],
    ['Default'],
  ];
  for (const components of cases) expect({ components, id: ownId(components) }).toEqual({ components, id: cdktfId(components) });
});

test('the same ids as cdktf for any path', () => {
  const component = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('Default', 'Resource', 'resource', 'source', 'res', '-_', 'a.b'), fc.string({ minLength: 230, maxLength: 270 }));
  fc.assert(
    fc.property(fc.array(component, { maxLength: 5 }), (components) => {
      expect(ownId(components)).toBe(cdktfId(components));
    }),
    { numRuns: 2000 },
  );
});
