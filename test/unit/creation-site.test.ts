/**
 * Where a construct is declared (issue 33 item 11): the first frame of its creation stack in the user's code
 * (frames of secretform's own src/ and dist/, of node_modules and of node's internals skipped), written under
 * `"//".secretform.source` by the real `app.synth()`, absent with `new App({ stackTraces: false })`, optional
 * for synth output of an older version; and the SARIF and markdown reports pointing at it.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { App, TerraformStack } from 'cdktf';
import { AuthMount, UserpassUser } from '../../src/constructs';
import { userFrameOf } from '../../src/constructs/creation-site';
import type { Plan, PlannedChange } from '../../src/engine/plan/plan';
import { loadDesired } from '../../src/engine/setup/desired';
import { renderMarkdown, renderSarif, stackReport } from '../../src/report';
import { SecretValue } from '../../src/secret-value';
import { isWellFormedSpec, parseSynthesizedSpec, SOURCE_KEYS, specObjectsOf, specSchema, writeSynthesizedSpec } from '../../src/synthesized-spec';
import { sarifSchemaErrors } from '../support/sarif-schema';
import { tempDir } from '../support/temp-dir';

const PROJECT = '/home/dev/infra';
const OWN = ['/home/dev/infra/node_modules/secretform/src/', '/home/dev/infra/node_modules/secretform/dist/'];

describe('the user frame of a formatted stack', () => {
  it('skips secretform, cdktf, constructs, tsx and node internals, and takes the first frame of the project', () => {
    const stack = [
      'Error',
      '    at new UserpassUser (/home/dev/infra/node_modules/secretform/dist/constructs/generated/userpass.js:41:9)',
      '    at new SecretformResource (/opt/secretform/src/constructs/resource.ts:57:5)',
      '    at Object.construct (/home/dev/infra/node_modules/cdktf/lib/terraform-stack.js:10:3)',
      '    at new Node (/home/dev/infra/node_modules/constructs/lib/construct.js:40:2)',
      '    at Module._compile (node:internal/modules/cjs/loader:1521:14)',
      '    at Object.transformer (/home/dev/infra/node_modules/tsx/dist/register-B1c7OH6V.cjs:22:2188)',
      '    at new TeamUsers (/home/dev/infra/lib/team-users.ts:14:7)',
      '    at Object.<anonymous> (/home/dev/infra/main.ts:9:1)',
    ].join('\n');
    expect(userFrameOf(stack, PROJECT, ['/opt/secretform/src/', ...OWN])).toEqual({ file: 'lib/team-users.ts', line: 14, column: 7 });
  });

  it("skips secretform's own files outside node_modules (a linked checkout)", () => {
    const stack = '    at new LdapStaticRole (/src/secretform/dist/constructs/ldap.js:3:1)\n    at /home/dev/infra/main.js:5:11';
    expect(userFrameOf(stack, PROJECT, ['/src/secretform/src/', '/src/secretform/dist/'])).toEqual({ file: 'main.js', line: 5, column: 11 });
  });

  it('reads an anonymous frame and an ES module frame (file: URL)', () => {
    expect(userFrameOf('    at /home/dev/infra/stacks/prod.js:22:3', PROJECT, OWN)).toEqual({ file: 'stacks/prod.js', line: 22, column: 3 });
    expect(userFrameOf('    at file:///home/dev/infra/main.mjs:7:15', PROJECT, OWN)).toEqual({ file: 'main.mjs', line: 7, column: 15 });
    expect(userFrameOf('    at async run (file:///home/dev/infra/a%20b/main.mjs:2:4)', PROJECT, OWN)).toEqual({ file: 'a b/main.mjs', line: 2, column: 4 });
  });

  it('writes no absolute path: a frame outside the project directory, an eval or a native frame gives nothing', () => {
    expect(userFrameOf('    at Object.<anonymous> (/home/other/shared/lib.js:3:1)', PROJECT, OWN)).toBeUndefined();
    expect(userFrameOf('    at eval (eval at <anonymous> (/home/dev/infra/main.js:1:1), <anonymous>:1:1)', PROJECT, OWN)).toBeUndefined();
    expect(userFrameOf('    at Array.map (<anonymous>)\n    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)', PROJECT, OWN)).toBeUndefined();
  });
});

/** Synthesizes a mount and a user, declared on known lines of this file (`new` at columns 17 and 3). */
function synthesized(stackTraces: boolean): { outdir: string; mountLine: number; userLine: number } {
  const outdir = tempDir('secretform-creation-site-');
  const app = new App({ outdir, stackTraces });
  const stack = new TerraformStack(app, 'prod');
  const mountLine = lineOf(new Error()) + 1;
  const mount = new AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass' });
  const userLine = lineOf(new Error()) + 1;
  new UserpassUser(stack, 'ci', { mount, username: 'ci', password: SecretValue.fromEnv('CI_PASSWORD') });
  app.synth();
  return { outdir, mountLine, userLine };
}

/** The line of this file an Error was made on, as the test runner's stacks show it. */
function lineOf(error: Error): number {
  const frame = error.stack!.split('\n').find((line) => line.includes('creation-site.test.ts'))!;
  return Number(/:(\d+):\d+\)?$/.exec(frame)![1]);
}

describe('synth', () => {
  it('writes each construct\'s creation site, relative to the working directory, and the engine reads it back', () => {
    const { outdir, mountLine, userLine } = synthesized(true);
    const file = path.relative(process.cwd(), __filename).split(path.sep).join('/');
    // cdktf writes its local backend's absolute path; secretform's objects hold none.
    const config = JSON.parse(fs.readFileSync(path.join(outdir, 'stacks', 'prod', 'cdk.tf.json'), 'utf8')) as unknown;
    expect(JSON.stringify([...specObjectsOf(config)])).not.toContain(process.cwd());
    const sources = Object.fromEntries(loadDesired(outdir, 'prod').resources.map((resource) => [resource.address, resource.source]));
    expect(sources).toEqual({
      'prod/userpass': { file, line: mountLine, column: 17 },
      'prod/ci': { file, line: userLine, column: 3 },
    });
  });

  it('finds the project frame below helpers outside the project, in an app that leaves the stack format to node', () => {
    // Run as an app of its own (jest formats stacks itself, which takes the formatted path): the construct is
    // made two helper frames away from the project's code, so the first frames captured hold no project frame
    // and the site comes from the deeper capture.
    const project = tempDir('secretform-creation-site-app-');
    const helpers = tempDir('secretform-creation-site-helpers-');
    const outdir = tempDir('secretform-creation-site-out-');
    fs.writeFileSync(path.join(helpers, 'outer.js'), `exports.make = (type, ...args) => require('./inner.js').make(type, ...args);\n`);
    fs.writeFileSync(path.join(helpers, 'inner.js'), 'exports.make = (type, ...args) => new type(...args);\n');
    fs.writeFileSync(path.join(project, 'main.ts'), [
      `import { App, TerraformStack } from ${JSON.stringify(require.resolve('cdktf'))};`,
      `import { AuthMount } from ${JSON.stringify(path.resolve(__dirname, '../../src/constructs'))};`,
      `const { make } = require(${JSON.stringify(path.join(helpers, 'outer.js'))});`,
      'const app = new App();',
      'const stack = new TerraformStack(app, "prod");',
      'new AuthMount(stack, "direct", { path: "direct", type: "userpass" });',
      '  make(AuthMount, stack, "helped", { path: "helped", type: "userpass" });',
      'app.synth();',
      '',
    ].join('\n'));
    const env: NodeJS.ProcessEnv = { CDKTF_OUTDIR: outdir };
    for (const key of ['PATH', 'HOME', 'TMPDIR', 'LANG']) if (process.env[key] !== undefined) env[key] = process.env[key];
    const run = spawnSync(process.execPath, [require.resolve('tsx/cli'), 'main.ts'], { cwd: project, env, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const sources = Object.fromEntries(loadDesired(outdir, 'prod').resources.map((resource) => [resource.address, resource.source]));
    expect(sources).toEqual({
      'prod/direct': { file: 'main.ts', line: 6, column: 1 },
      'prod/helped': { file: 'main.ts', line: 7, column: 3 },
    });
  });

  it('writes none with new App({ stackTraces: false })', () => {
    const { outdir } = synthesized(false);
    expect(fs.readFileSync(path.join(outdir, 'stacks', 'prod', 'cdk.tf.json'), 'utf8')).not.toContain('"source"');
    expect(loadDesired(outdir, 'prod').resources.map((resource) => resource.source)).toEqual([undefined, undefined]);
  });
});

describe('the spec format', () => {
  const entry = { type: 'userpass_user', address: 'prod/ci', id: 'auth/userpass/users/ci', spec: {}, secrets: {}, dependsOn: [], digest: 'd' };

  it('loads a spec without a source (synth output of an older version)', () => {
    const written = writeSynthesizedSpec(entry);
    expect(written).not.toHaveProperty('source');
    expect(isWellFormedSpec(written)).toBe(true);
    expect(parseSynthesizedSpec(written, 'cdk.tf.json')).not.toHaveProperty('source');
  });

  it('reads a source in any key order (cdktf sorts the keys), and refuses a malformed one naming it', () => {
    const sorted = { ...writeSynthesizedSpec(entry), source: { column: 3, file: 'main.ts', line: 12 } };
    expect(isWellFormedSpec(sorted)).toBe(true);
    expect(parseSynthesizedSpec(sorted, 'cdk.tf.json').source).toEqual({ file: 'main.ts', line: 12, column: 3 });
    const malformed = { ...writeSynthesizedSpec(entry), source: { file: 'main.ts', line: 0, column: 3 } };
    expect(isWellFormedSpec(malformed)).toBe(false);
    expect(() => parseSynthesizedSpec(malformed, 'cdk.tf.json')).toThrow(/cdk\.tf\.json: .*source\.line/);
  });

  it('lists the keys of the schema', () => {
    expect([...SOURCE_KEYS].sort()).toEqual(Object.keys(specSchema().shape.source.unwrap().shape).sort());
  });
});

describe('the reports', () => {
  const change = (address: string, source?: PlannedChange['source']): PlannedChange => ({
    address, type: 'userpass_user', id: `auth/userpass/users/${address}`, action: 'create', reasons: [], before: null, after: {},
    sensitive: [], replacePaths: [], fieldChanges: [], secrets: [], ...(source ? { source } : {}),
  });
  const failed = (address: string) => ({ policy: 'userpass-token-ttl', enforcement: 'mandatory' as const, address, status: 'failed' as const, message: 'too long', fields: [] });
  const plan: Plan = {
    stack: 'prod', refreshOnly: false, warnings: [], drift: [],
    changes: [change('prod/alice', { file: 'stacks/users.ts', line: 12, column: 3 }), change('prod/bob')],
    policy: {
      packs: ['recommended'],
      rules: [{ id: 'userpass-token-ttl', description: 'Tokens live at most 24h.', enforcement: 'mandatory', pack: 'recommended' }],
      results: [failed('prod/alice'), failed('prod/bob')],
    },
  };

  it('SARIF locates a result at its construct\'s line and column; without one, at line 1 of the app file', () => {
    const log = JSON.parse(renderSarif([plan], { toolVersion: '0.1.0', sourceFile: 'main.ts' })) as { runs: { results: { locations: { physicalLocation?: unknown }[] }[] }[] };
    expect(sarifSchemaErrors(log)).toEqual([]);
    expect(log.runs[0].results.map((result) => result.locations[0].physicalLocation)).toEqual([
      { artifactLocation: { uri: 'stacks/users.ts' }, region: { startLine: 12, startColumn: 3 } },
      { artifactLocation: { uri: 'main.ts' }, region: { startLine: 1 } },
    ]);
  });

  it('the markdown policy table names file:line after the address', () => {
    const markdown = renderMarkdown([stackReport(plan)]).join('\n');
    expect(markdown).toContain('| FAILED | `userpass-token-ttl` | mandatory | `prod/alice` at `stacks/users.ts:12` | too long |');
    expect(markdown).toContain('| FAILED | `userpass-token-ttl` | mandatory | `prod/bob` | too long |');
  });
});
