/**
 * What `require('secretform')` loads (issue 35): an app that imports constructs from the package pays for the
 * constructs, not for the engine, its client or the dev server, which the entry point loads on the first call of
 * a command (api.ts) or of `startDevServer` (start-dev-server.ts). Checked in a real process: the entry point
 * required under tsx, every file it loaded listed; then the lazy exports called, so that they still reach the
 * engine and the server.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tempDir } from '../support/temp-dir';

jest.setTimeout(60_000);

const ROOT = path.resolve(__dirname, '../..');
const TSX = path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');

/** The probe: loads the entry point, lists what it loaded, then uses the lazily loaded exports. */
const PROBE = `
const sf = require(${JSON.stringify(path.join(ROOT, 'src'))});
const loaded = () => Object.keys(require.cache).map((file) => {
  const pkg = /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(file);
  return pkg ? 'package ' + pkg[1] : path.relative(${JSON.stringify(path.join(ROOT, 'src'))}, file).split(path.sep).join('/');
});
const path = require('node:path');
const atImport = [...new Set(loaded())];
(async () => {
  const offered = sf.offeredOperations(sf.getResourceType('ldap_static_role'));
  const server = await sf.startDevServer({ port: 0 });
  const answer = await fetch(server.url + '/v1/sys/mounts', { headers: { 'X-Vault-Token': server.rootToken } });
  await server.close();
  process.stdout.write(JSON.stringify({ atImport, offered, health: answer.status, afterUse: [...new Set(loaded())] }));
})().catch((error) => { process.stderr.write(String(error && error.stack)); process.exit(1); });
`;

let probe: { atImport: string[]; offered: string; health: number; afterUse: string[] };

beforeAll(() => {
  const dir = tempDir('secretform-entry-');
  try {
    fs.writeFileSync(path.join(dir, 'probe.cjs'), PROBE);
    const run = spawnSync(process.execPath, [TSX, path.join(dir, 'probe.cjs')], { cwd: ROOT, encoding: 'utf8', timeout: 50_000 });
    if (run.status !== 0) throw new Error(`the probe exited ${run.status}: ${run.stderr}`);
    probe = JSON.parse(run.stdout) as typeof probe;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** What a constructs-only app must not load. */
const HEAVY = (name: string) =>
  name.startsWith('devserver/') || name === 'engine/index.ts' || /^engine\/(stacks|run|refresh|apply|drift|operations)\//.test(name) ||
  name === 'client/index.ts' || name.startsWith('cli/') || ['package bcryptjs', 'package undici', 'package pg', 'package commander'].includes(name);

test('requiring the package loads the constructs, not the engine, its client or the dev server', () => {
  expect(probe.atImport).toContain('constructs/index.ts');
  expect(probe.atImport).toContain('index.ts');
  expect(probe.atImport.filter(HEAVY)).toEqual([]);
});

test('the lazily loaded exports load what they need on their first call, and work', () => {
  expect(probe.offered).toMatch(/^rotate-role, creds/);
  expect(probe.health).toBeGreaterThanOrEqual(200); // the server answered over its socket
  expect(probe.afterUse).toEqual(expect.arrayContaining(['engine/index.ts', 'devserver/server.ts', 'package bcryptjs']));
});
