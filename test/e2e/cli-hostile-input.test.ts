/**
 * Input an attacker can shape (issue 34): a construct id or a server answer holding terminal control sequences,
 * and addresses that plain objects take for what they inherit (`constructor`, `__proto__`). The real binary
 * against the dev server, or a proxy in front of it that answers one request with hostile text: nothing that came
 * from input may drive the terminal, and no such name crashes a command.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { startServiceProxy } from '../support/service-proxy';
import { cliEnv, createProject, ROOT, runCli, type CliResult } from './cli-harness';
import type { RawServer } from './client-raw-server';

jest.setTimeout(120_000);

let server: DevServer;
const proxies: RawServer[] = [];

beforeAll(async () => {
  server = await startDevServer({ port: 0, rootToken: 'hostile-input-root' });
});

afterAll(async () => {
  await Promise.all(proxies.map((proxy) => proxy.close()));
  await server?.close();
});

/** Every C0 character but newline and tab, DEL and the C1 characters: what a terminal would obey. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
/** The colour codes of the text report, the only control sequences the CLI writes to stdout with colour on. */
// eslint-disable-next-line no-control-regex
const OWN_COLOURS = /\x1b\[(?:1|2|22|31|32|33|39)m/g;
/** Sets the terminal's title, erases the line, and writes over it. */
const HOSTILE = '\u001b]0;owned\u0007\u001b[2K\rApply complete!\u009b2J';

function expectNoControls(result: CliResult): void {
  expect(result.stdout).not.toMatch(CONTROL);
  expect(result.stderr).not.toMatch(CONTROL);
}

/** A project whose app has a userpass mount and a user for each construct id given. */
function project(ids: readonly string[]): string {
  const dir = createProject();
  writeFileSync(join(dir, 'main.js'), [
    `const { App, TerraformStack } = require(${JSON.stringify(join(ROOT, 'node_modules', 'cdktf'))});`,
    `const sf = require(${JSON.stringify(join(ROOT, 'dist'))});`,
    'const app = new App();',
    "const stack = new TerraformStack(app, 'e2e');",
    "const userpass = new sf.AuthMount(stack, 'userpass', { path: 'hostile-userpass', type: 'userpass' });",
    `for (const [index, id] of ${JSON.stringify(ids)}.entries()) {`,
    "  new sf.UserpassUser(stack, id, { mount: userpass, username: `user-${index}`, password: sf.SecretValue.fromEnv('SF_E2E_ALICE_PASSWORD'), tokenTtl: '1h' });",
    '}',
    'app.synth();',
  ].join('\n'));
  return dir;
}

const synthOutput = (dir: string) => join(dir, 'cdktf.out', 'stacks', 'e2e', 'cdk.tf.json');
const stateFile = (dir: string) => join(dir, '.secretform', 'e2e.state.json');

/** The synth output with each address renamed as `renames` says (a hand-edited `cdk.tf.json`). */
function renameAddresses(dir: string, renames: Record<string, string>): void {
  let text = readFileSync(synthOutput(dir), 'utf8');
  for (const [from, to] of Object.entries(renames)) text = text.split(JSON.stringify(from)).join(JSON.stringify(to));
  writeFileSync(synthOutput(dir), text);
}

/** The state with each entry's key renamed as `renames` says (a hand-edited state file). */
function renameStateEntries(dir: string, renames: Record<string, string>): void {
  const state = JSON.parse(readFileSync(stateFile(dir), 'utf8'));
  const resources: Record<string, unknown> = {};
  for (const [address, entry] of Object.entries<unknown>(state.resources)) {
    Object.defineProperty(resources, renames[address] ?? address, { value: entry, enumerable: true, writable: true, configurable: true });
  }
  writeFileSync(stateFile(dir), JSON.stringify({ ...state, resources }, null, 2));
}

describe('terminal control characters (issue 34, item 8)', () => {
  test('a construct id with control characters is refused at synth, naming the construct; nothing raw reaches the terminal', async () => {
    const dir = project(['alice', 'bob\u001b]0;owned\u0007']);
    const env = cliEnv(server);
    for (const args of [['synth'], ['plan']]) {
      const result = await runCli(args, dir, env);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('e2e/bob\\u001b]0;owned\\u0007: construct path: received "e2e/bob\\u001b]0;owned\\u0007"; construct ids must not contain control characters');
      expectNoControls(result);
    }
    expect(server.requestLog.filter((entry) => entry.path.includes('hostile-userpass'))).toEqual([]);
  });

  test('an address with control characters in a hand-edited synth output is refused before any request', async () => {
    const dir = project(['alice']);
    const env = cliEnv(server);
    expect((await runCli(['synth'], dir, env)).code).toBe(0);
    renameAddresses(dir, { 'e2e/alice': `e2e/alice${HOSTILE}` });
    const from = server.requestLog.length;
    const result = await runCli(['plan', '--no-synth'], dir, env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('address "e2e/alice\\u001b]0;owned\\u0007\\u001b[2K\\rApply complete!\\u009b2J" contains "\\u001b", which no construct path holds');
    expectNoControls(result);
    expect(server.requestLog.slice(from)).toEqual([]);
  });

  test('a server error with ESC and OSC sequences is shown as text on stderr', async () => {
    const dir = project(['alice']);
    const proxy = await startServiceProxy(server.url, (request) => (request.method === 'POST' && request.path === '/v1/auth/hostile-userpass/users/user-0'
      ? { status: 400, body: { errors: [`invalid request${HOSTILE}`] } }
      : undefined));
    proxies.push(proxy);
    const result = await runCli(['apply', '--auto-approve'], dir, cliEnv(server, { SERVICE_ADDR: proxy.url }));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('invalid request\\u001b]0;owned\\u0007\\u001b[2K\\u000dApply complete!\\u009b2J');
    expectNoControls(result);
  });

  test('with colour on, the report keeps its own colours and shows a name\'s control characters as text', async () => {
    const dir = project(['alice']);
    const env = cliEnv(server);
    expect((await runCli(['apply', '--auto-approve'], dir, env)).code).toBe(0);
    // A state file edited by hand: the entry's address holds control sequences, and the code no longer has it.
    renameStateEntries(dir, { 'e2e/alice': `e2e/alice${HOSTILE}` });
    writeFileSync(join(dir, 'main.js'), readFileSync(join(dir, 'main.js'), 'utf8').replace('["alice"]', '[]'));
    const coloured = await runCli(['plan'], dir, { ...env, FORCE_COLOR: '1' });
    expect(coloured.code).toBe(0);
    expect(coloured.stdout).toMatch(OWN_COLOURS);
    expect(coloured.stdout.replace(OWN_COLOURS, '')).not.toMatch(CONTROL);
    expect(coloured.stdout).toContain('e2e/alice\\u001b]0;owned\\u0007\\u001b[2K\\u000dApply complete!\\u009b2J');
    expect(coloured.stderr).not.toMatch(CONTROL);
    const plain = await runCli(['plan', '--no-synth'], dir, env);
    expect(plain.code).toBe(0);
    expectNoControls(plain);
    expect(plain.stdout).toContain('# e2e/alice\\u001b]0;owned\\u0007');
  });
});

describe('addresses that are Object.prototype names (issue 34, item 11)', () => {
  test('a synth output with addresses "constructor" and "__proto__" fails plan and apply with what is wrong, before any request', async () => {
    const dir = project(['alice', 'bob']);
    const env = cliEnv(server);
    expect((await runCli(['synth'], dir, env)).code).toBe(0);
    renameAddresses(dir, { 'e2e/alice': 'constructor', 'e2e/bob': '__proto__' });
    const from = server.requestLog.length;
    for (const args of [['plan', '--no-synth'], ['apply', '--no-synth', '--auto-approve']]) {
      const result = await runCli(args, dir, env);
      expect(result.code).toBe(1);
      expect(result.stderr).not.toContain('Cannot read properties');
      expect(result.stderr).toContain('address "constructor" is not an address of stack e2e (addresses are construct paths: e2e/...)');
      expect(result.stderr).toContain('address "__proto__" is not an address of stack e2e');
    }
    expect(server.requestLog.slice(from)).toEqual([]);
  });

  test('state entries keyed "constructor" and "toString": state list and show, plan and apply take them as any other address', async () => {
    const dir = project(['alice', 'bob']);
    const env = cliEnv(server);
    expect((await runCli(['apply', '--auto-approve'], dir, env)).code).toBe(0);
    renameStateEntries(dir, { 'e2e/alice': 'constructor', 'e2e/bob': 'toString' });
    const list = await runCli(['state', 'list'], dir, env);
    expect(list.code).toBe(0);
    expect(list.stdout.split('\n').filter(Boolean).sort()).toEqual(['constructor', 'e2e/userpass', 'toString']);
    const show = await runCli(['state', 'show', 'e2e/alice'], dir, env);
    expect(show.code).toBe(1);
    expect(show.stderr).toContain('e2e/alice is not in state');
    // A name every object inherits, not a key of this state: not an entry (an inherited lookup found a function).
    for (const inherited of ['valueOf', 'hasOwnProperty']) {
      const shown = await runCli(['state', 'show', inherited], dir, env);
      expect(shown.stderr).toContain(`${inherited} is not in state`);
      expect(shown.code).toBe(1);
      const removed = await runCli(['state', 'rm', inherited], dir, env);
      expect(removed.stderr).toContain(`${inherited} is not in state`);
      expect(removed.code).toBe(1);
    }
    // The code has the objects at e2e/alice and e2e/bob: the same objects, recorded under other keys, have moved.
    const plan = await runCli(['plan', '--no-synth', '--format', 'json'], dir, env);
    expect(plan.stderr).toBe('');
    expect(plan.code).toBe(0);
    const changes = JSON.parse(plan.stdout).resource_changes as { address: string; previous_address?: string; actions: string[] }[];
    expect(changes.map(({ address, previous_address, actions }) => ({ address, previous_address, actions }))).toEqual([
      { address: 'e2e/alice', previous_address: 'constructor', actions: ['no-op'] },
      { address: 'e2e/bob', previous_address: 'toString', actions: ['no-op'] },
      { address: 'e2e/userpass', previous_address: undefined, actions: ['no-op'] },
    ]);
    const apply = await runCli(['apply', '--no-synth', '--auto-approve'], dir, env);
    expect(apply.code).toBe(0);
    expect(Object.keys(JSON.parse(readFileSync(stateFile(dir), 'utf8')).resources).sort()).toEqual(['e2e/alice', 'e2e/bob', 'e2e/userpass']);
  });
});
