/** utf8Text reads bytes exactly as `fs.readFileSync(path, 'utf8')` does: ASCII, other UTF-8, a BOM, broken bytes. */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { utf8Text } from '../../src/utf8-text';
import { tempDir } from '../support/temp-dir';

let dir: string;
beforeAll(() => {
  dir = tempDir('secretform-utf8-text-');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function readBoth(bytes: Uint8Array): [string, string] {
  const file = join(dir, 'text');
  writeFileSync(file, bytes);
  return [utf8Text(readFileSync(file)), readFileSync(file, 'utf8')];
}

test('reads every kind of byte sequence as readFileSync does', () => {
  const samples = ['{"a": 1}', 'rôle/é ✓ 𝄞', '\uFEFF{"bom": true}', ''].map((text) => Buffer.from(text));
  samples.push(Buffer.from([0x7b, 0xff, 0xfe, 0x80, 0x7d]), Buffer.from([0xe2, 0x82]), Buffer.from([0x41, 0xc3]));
  for (const bytes of samples) {
    const [fast, usual] = readBoth(bytes);
    expect(fast).toBe(usual);
  }
  fc.assert(fc.property(fc.oneof(fc.uint8Array({ max: 0x7f, maxLength: 64 }), fc.uint8Array({ maxLength: 64 })), (bytes) => {
    const [fast, usual] = readBoth(bytes);
    expect(fast).toBe(usual);
  }), { seed: 20261126, numRuns: 300 });
});
