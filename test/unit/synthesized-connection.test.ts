/**
 * The connection of a stack read alone from its synth output (setup/synthesized-connection.ts), as the CLI
 * checks every stack's before a run: the same connection the full load reads, from cdktf's own output and from
 * texts laid out otherwise (another first member, escapes and braces inside strings, other whitespace), which
 * fall back to parsing the whole text.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, TerraformStack } from 'cdktf';
import { AuthMount, ServiceConnection } from '../../src';
import { loadDesired } from '../../src/engine/setup/desired';
import { firstMemberValue, readConnectionOfOutput } from '../../src/engine/setup/synthesized-connection';

test('the connection read alone is the one the full load reads, for a stack with one and one without', () => {
  const dir = mkdtempSync(join(tmpdir(), 'secretform-connection-'));
  try {
    const app = new App({ outdir: dir });
    const prod = new TerraformStack(app, 'prod');
    new ServiceConnection(prod, 'service', { address: 'https://secrets.example.com:8200', tokenEnv: 'PROD_TOKEN', caCertFile: 'ca "é" {x}.pem' });
    new AuthMount(prod, 'userpass', { path: 'userpass', type: 'userpass' });
    const dev = new TerraformStack(app, 'dev');
    new AuthMount(dev, 'userpass', { path: 'userpass', type: 'userpass' });
    app.synth();
    const prodFile = readFileSync(join(dir, 'stacks', 'prod', 'cdk.tf.json'));
    // cdktf's layout: the "//" object first, cut out rather than the whole file parsed.
    expect(firstMemberValue(prodFile, '//')).toBeDefined();
    expect(readConnectionOfOutput(dir, 'prod')).toEqual(loadDesired(dir, 'prod').connection);
    expect(readConnectionOfOutput(dir, 'prod')?.address).toBe('https://secrets.example.com:8200');
    expect(readConnectionOfOutput(dir, 'dev')).toBeUndefined();
    expect(loadDesired(dir, 'dev').connection).toBeUndefined();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the first member is cut out exactly, whatever its strings hold; another layout is left to the whole parse', () => {
  const value = { a: 'quote \\" brace } bracket ] backslash \\\\', b: ['é', { c: '}' }], d: '日本' };
  const text = (body: string) => Buffer.from(body, 'utf8');
  expect(JSON.parse(firstMemberValue(text(`{"//": ${JSON.stringify(value)}, "resource": {}}`), '//')!)).toEqual(value);
  expect(JSON.parse(firstMemberValue(text(`\n\t{\r\n  "//" :\n${JSON.stringify(value, null, 2)}\n}`), '//')!)).toEqual(value);
  expect(firstMemberValue(text(`{"resource": {}, "//": ${JSON.stringify(value)}}`), '//')).toBeUndefined();
  expect(firstMemberValue(text('{"//": {"a": 1}'), '//')).toBeUndefined();
  expect(firstMemberValue(text('{"//": {"a": 1} "b": 2}'), '//')).toBeUndefined();
  expect(firstMemberValue(text('[1]'), '//')).toBeUndefined();
});

test('a file laid out otherwise is parsed whole; a damaged one is an error naming it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'secretform-connection-'));
  try {
    mkdirSync(join(dir, 'stacks', 'other'), { recursive: true });
    mkdirSync(join(dir, 'stacks', 'broken'), { recursive: true });
    const connection = { version: 1, construct: 'other/service', address: 'http://127.0.0.1:8200', tokenEnv: 'OTHER_TOKEN', skipVerify: false };
    writeFileSync(join(dir, 'stacks', 'other', 'cdk.tf.json'), JSON.stringify({ resource: {}, '//': { secretform: { connection } } }));
    writeFileSync(join(dir, 'stacks', 'broken', 'cdk.tf.json'), '{"//": {"secretform": ');
    expect(readConnectionOfOutput(dir, 'other')?.tokenEnv).toBe('OTHER_TOKEN');
    expect(() => readConnectionOfOutput(dir, 'broken')).toThrow(`${join(dir, 'stacks', 'broken', 'cdk.tf.json')}: `);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
