/**
 * `ServiceConnection`: validated at synth (naming the construct path), synthesized as names and paths only,
 * read back by the engine into the stack's desired state, and checked without any request (token variable set,
 * files readable, address valid) before a stack's run talks to its service.
 */
import { describeEngineError } from '../../src/report/engine-error';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App, TerraformStack } from 'cdktf';
import * as cdktn from 'cdktn';
import { AuthMount, DesiredStateError, desiredFromStack, loadDesired, ServiceConnection, type ServiceConnectionProps } from '../../src';
import { runFailureMessage, ServiceClient } from '../../src/client';
import { checkStackConnection } from '../../src/engine';
import { secretVariablesOfOutput } from '../../src/synth-environment';

const TOKEN = 'staging-token-value-5f1e2d';
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'secretform-connection-'));
  dirs.push(dir);
  return dir;
}

function synth(add: (stack: TerraformStack) => void, skipValidation = false): string {
  const outdir = tempDir();
  const app = new App({ outdir, skipValidation });
  const stack = new TerraformStack(app, 'staging');
  new AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass' });
  add(stack);
  app.synth();
  return outdir;
}

function synthError(add: (stack: TerraformStack) => void): string {
  try {
    synth(add);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('synth accepted an invalid ServiceConnection');
}

describe('ServiceConnection validation at synth', () => {
  const cases: Array<[string, ServiceConnectionProps, string]> = [
    ['an address with credentials', { address: 'https://admin:hunter2@secrets.example.com' }, 'staging/conn: address: received (sensitive); the address must not carry credentials'],
    ['an address with a query', { address: 'https://secrets.example.com/?token=abc' }, 'staging/conn: address: received (sensitive)'],
    ['an address with a fragment', { address: 'https://secrets.example.com/#x' }, 'staging/conn: address: received (sensitive)'],
    ['an address that is not http/https', { address: 'ftp://secrets.example.com' }, 'only http: and https: are supported'],
    ['an address that is not a URL', { address: 'secrets.example.com' }, 'staging/conn: address: received "secrets.example.com"; the address "secrets.example.com" is not a URL'],
    ['a tokenEnv that is not a variable name', { address: 'https://s.example.com', tokenEnv: 'PROD TOKEN' }, 'staging/conn: tokenEnv: received "PROD TOKEN"; the name of an environment variable'],
    ['a tokenEnv that is a token', { address: 'https://s.example.com', tokenEnv: 's.8f7a-6b5c' }, 'staging/conn: tokenEnv: received "s.8f7a-6b5c"'],
    ['a tokenEnv naming a SECRETFORM_ variable', { address: 'https://s.example.com', tokenEnv: 'SECRETFORM_STATE_KEY' }, 'staging/conn: tokenEnv: received "SECRETFORM_STATE_KEY"; a variable outside SECRETFORM_*'],
    ['a client certificate without its key', { address: 'https://s.example.com', clientCertFile: 'client.pem' }, 'staging/conn: clientKeyFile: received nothing; clientCertFile and clientKeyFile together'],
    ['skipVerify that is not a boolean', { address: 'https://s.example.com', skipVerify: 'yes' as unknown as boolean }, 'staging/conn: skipVerify: received "yes"; true or false'],
    ['an unknown prop', { address: 'https://s.example.com', token: 'abc' } as unknown as ServiceConnectionProps, 'staging/conn: token: received "abc"; not a ServiceConnection prop'],
  ];
  test.each(cases)('%s fails synth naming the construct path', (_name, props, expected) => {
    const message = synthError((stack) => new ServiceConnection(stack, 'conn', props));
    expect(message).toContain(expected);
    expect(message).not.toContain('hunter2');
    expect(message).not.toContain('token=abc');
  });

  test('two connections in a stack fail synth naming both', () => {
    const message = synthError((stack) => {
      new ServiceConnection(stack, 'conn', { address: 'https://a.example.com' });
      new ServiceConnection(stack, 'other', { address: 'https://b.example.com' });
    });
    expect(message).toContain('staging/conn: a second ServiceConnection in stack staging (staging/other is there too)');
    expect(message).toContain('staging/other: a second ServiceConnection in stack staging (staging/conn is there too)');
  });

  test('with validation skipped, an invalid connection is synthesized as a marker the engine refuses', () => {
    const outdir = synth((stack) => new ServiceConnection(stack, 'conn', { address: 'ftp://x.example.com' }), true);
    expect(() => loadDesired(outdir)).toThrow(DesiredStateError);
    expect(() => loadDesired(outdir)).toThrow(/ServiceConnection staging\/conn .*invalid[\s\S]*only http: and https:/);
  });
});

describe('ServiceConnection as synthesized and read back', () => {
  test('holds names and paths only, never the token, and the engine reads it into the desired state', () => {
    process.env.STAGING_SERVICE_TOKEN = TOKEN;
    let outdir: string;
    try {
      outdir = synth((stack) => new ServiceConnection(stack, 'conn', {
        address: 'https://staging.example.com:8200/', tokenEnv: 'STAGING_SERVICE_TOKEN', caCertFile: 'certs/ca.pem', skipVerify: false,
      }));
    } finally {
      delete process.env.STAGING_SERVICE_TOKEN;
    }
    const text = fs.readFileSync(path.join(outdir, 'stacks', 'staging', 'cdk.tf.json'), 'utf8');
    expect(text).not.toContain(TOKEN);
    expect(JSON.parse(text)['//'].secretform.connection).toEqual({
      version: 1, construct: 'staging/conn', address: 'https://staging.example.com:8200', tokenEnv: 'STAGING_SERVICE_TOKEN', caCertFile: 'certs/ca.pem', skipVerify: false,
    });
    const desired = loadDesired(outdir);
    expect(desired.connection).toEqual({
      construct: 'staging/conn', address: 'https://staging.example.com:8200', tokenEnv: 'STAGING_SERVICE_TOKEN', caCertFile: 'certs/ca.pem', skipVerify: false,
    });
    expect(desired.resources.map((resource) => resource.address)).toEqual(['staging/userpass']);
    // The token variable is withheld from the child processes secretform starts (synth app, exec command).
    expect(secretVariablesOfOutput(outdir).has('STAGING_SERVICE_TOKEN')).toBe(true);
  });

  test('tokenEnv defaults to SERVICE_TOKEN; a stack without a connection has none in its desired state', () => {
    const withDefault = loadDesired(synth((stack) => new ServiceConnection(stack, 'conn', { address: 'http://127.0.0.1:8300' })));
    expect(withDefault.connection?.tokenEnv).toBe('SERVICE_TOKEN');
    expect(loadDesired(synth(() => undefined)).connection).toBeUndefined();
  });

  test('under CDK Terrain (cdktn) the connection is synthesized and read back the same way', () => {
    const outdir = tempDir();
    const app = new cdktn.App({ outdir });
    const stack = new cdktn.TerraformStack(app, 'prod');
    new ServiceConnection(stack, 'conn', { address: 'https://prod.example.com', tokenEnv: 'PROD_TOKEN' });
    new AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass' });
    app.synth();
    expect(loadDesired(outdir).connection).toEqual({ construct: 'prod/conn', address: 'https://prod.example.com', tokenEnv: 'PROD_TOKEN', skipVerify: false });
  });

  test('desiredFromStack (the in-memory engine API) carries the connection too', () => {
    const app = new App({ outdir: tempDir() });
    const stack = new TerraformStack(app, 'prod');
    new ServiceConnection(stack, 'conn', { address: 'http://127.0.0.1:8300', tokenEnv: 'PROD_TOKEN' });
    expect(desiredFromStack(stack).connection).toMatchObject({ construct: 'prod/conn', address: 'http://127.0.0.1:8300', tokenEnv: 'PROD_TOKEN' });
  });
});

describe('checkStackConnection: before any request', () => {
  const connection = { construct: 'prod/conn', address: 'http://127.0.0.1:8300', tokenEnv: 'PROD_SERVICE_TOKEN', skipVerify: false };

  test('an unset token variable fails the stack, naming the stack and the variable', () => {
    const checked = checkStackConnection({ stack: 'prod', connection, env: { SERVICE_TOKEN: 'root' }, cwd: '/' });
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.error.code).toBe('service_config');
    expect(describeEngineError(checked.error)).toContain('stack prod: PROD_SERVICE_TOKEN is not set');
    expect(checked.error.message).toContain('prod/conn');
  });

  test('the connection\'s address and token variable win over SERVICE_ADDR and SERVICE_TOKEN', () => {
    const checked = checkStackConnection({
      stack: 'prod', connection, env: { SERVICE_ADDR: 'http://127.0.0.1:9999', SERVICE_TOKEN: 'other', PROD_SERVICE_TOKEN: TOKEN, SERVICE_CACERT: '/nonexistent.pem' }, cwd: '/',
    });
    expect(checked.ok).toBe(true);
    if (!checked.ok) return;
    expect(checked.value.config.address).toBe('http://127.0.0.1:8300');
    expect(checked.value.config.token?.reveal()).toBe(TOKEN);
    expect(checked.value.tokenVariable).toBe('PROD_SERVICE_TOKEN');
    expect(JSON.stringify(checked.value)).not.toContain(TOKEN);
  });

  test('a relative file path is resolved against the project directory; an unreadable one names the construct and prop', () => {
    const project = tempDir();
    const checked = checkStackConnection({
      stack: 'prod', connection: { ...connection, address: 'https://127.0.0.1:8300', caCertFile: 'certs/ca.pem' }, env: { PROD_SERVICE_TOKEN: TOKEN }, cwd: project,
    });
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(describeEngineError(checked.error)).toContain(`stack prod: prod/conn: caCertFile names ${path.join(project, 'certs', 'ca.pem')}, which cannot be read (ENOENT)`);
    expect(checked.error.message).not.toContain(TOKEN);
  });

  test('without a connection, the SERVICE_* environment applies and SERVICE_TOKEN must be set', () => {
    const missing = checkStackConnection({ stack: 'prod', env: { SERVICE_ADDR: 'http://127.0.0.1:9999' }, cwd: '/' });
    expect(missing.ok).toBe(false);
    if (!missing.ok) expect(missing.error.message).toContain('SERVICE_TOKEN is not set');
    const fine = checkStackConnection({ stack: 'prod', env: { SERVICE_ADDR: 'http://127.0.0.1:9999', SERVICE_TOKEN: 'root' }, cwd: '/' });
    expect(fine.ok && fine.value.config.address).toBe('http://127.0.0.1:9999');
  });

  test('the client\'s hints name the connection\'s settings, not SERVICE_ADDR / SERVICE_TOKEN', async () => {
    const checked = checkStackConnection({ stack: 'prod', connection: { ...connection, address: 'http://127.0.0.1:1' }, env: { PROD_SERVICE_TOKEN: TOKEN }, cwd: '/' });
    if (!checked.ok) throw checked.error;
    const client = new ServiceClient(checked.value.config, { retry: { maxAttempts: 1 }, stopAfterRunFailure: true });
    try {
      const result = await client.get('sys/auth');
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.error.message).toContain('check the address of prod/conn');
      expect(runFailureMessage(result.error)).toContain('the service is down or unreachable at the address of prod/conn');
      expect(`${result.error.message} ${runFailureMessage(result.error)}`).not.toMatch(/SERVICE_ADDR|SERVICE_TOKEN/);
    } finally {
      await client.close();
    }
  });
});
