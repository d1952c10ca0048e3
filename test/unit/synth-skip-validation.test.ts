/**
 * `new App({ skipValidation: true })` (which cdktf's own error text suggests): every construct whose props or
 * stack rules fail must still reach the synthesized output, as a marker the engine refuses, never as an
 * absence that a plan would read as "removed from code" and delete.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { App, TerraformStack } from 'cdktf';
import {
  AuthMount, CloudSecretRole, DesiredStateError, LdapDynamicRole, LdapLibrarySet, LdapSecretBackend, LdapStaticRole, loadDesired,
  SecretsMount, SecretValue, SyncAssociation, SyncCloud1SmDestination, SyncGithubApp, UserpassUser,
} from '../../src';
import { tempDir } from '../support/temp-dir';

const outdirs: string[] = [];
afterAll(() => outdirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

function synthWithoutValidation(add: (stack: TerraformStack) => void): string {
  const outdir = tempDir('secretform-skip-validation-');
  outdirs.push(outdir);
  const app = new App({ outdir, skipValidation: true });
  add(new TerraformStack(app, 'prod'));
  app.synth();
  return outdir;
}

function secretformBlocks(outdir: string): Array<Record<string, unknown>> {
  const config = JSON.parse(fs.readFileSync(path.join(outdir, 'stacks', 'prod', 'cdk.tf.json'), 'utf8'));
  // Every terraform resource type that carries a construct (terraform_data by default, null_resource on request).
  const byType = config.resource as Record<string, Record<string, { '//'?: { secretform?: Record<string, unknown> } }>>;
  return Object.values(byType)
    .flatMap((blocks) => Object.values(blocks))
    .map((block) => block['//']?.secretform)
    .filter((entry): entry is Record<string, unknown> => entry !== undefined);
}

function desiredError(outdir: string): string {
  try {
    loadDesired(outdir);
  } catch (error) {
    expect(error).toBeInstanceOf(DesiredStateError);
    return (error as Error).message;
  }
  throw new Error('loadDesired accepted constructs synthesized without validation');
}

const INVALID: Array<[string, (stack: TerraformStack) => void, string]> = [
  ['a static role named ../config', (stack) => new LdapStaticRole(stack, 'role', { backend: 'ldap', name: '../config', username: 'svc', rotationPeriod: '24h' }), 'prod/role: name'],
  ['a user named ..', (stack) => new UserpassUser(stack, 'user', { mount: 'userpass', username: '..', password: SecretValue.fromEnv('P') }), 'prod/user: username'],
  ['a mount at sys', (stack) => new SecretsMount(stack, 'mount', { path: 'sys', type: 'kv' }), 'prod/mount: path'],
  ['an auth mount at a/../b', (stack) => new AuthMount(stack, 'auth', { path: 'a/../b', type: 'userpass' }), 'prod/auth: path'],
  ['a destination named a/../b', (stack) => new SyncCloud1SmDestination(stack, 'dest', { name: 'a/../b', accessKeyId: SecretValue.fromEnv('A'), secretAccessKey: SecretValue.fromEnv('S'), region: 'eu-west-1' }), 'prod/dest: name'],
  ['a dynamic role with random 100000000', (stack) => new LdapDynamicRole(stack, 'dyn', { backend: 'ldap', name: 'temp', creationLdif: 'dn: cn={{random 100000000}}\n', deletionLdif: 'dn: cn=x\n' }), 'prod/dyn: creationLdif'],
  ['a library set with a duration beyond 2^53', (stack) => new LdapLibrarySet(stack, 'set', { backend: 'ldap', name: 'pool', serviceAccountNames: ['a'], ttl: '9007199254740993s' }), 'prod/set: ttl'],
  ['a cloud role with a 200,000-character name', (stack) => new CloudSecretRole(stack, 'cloud-role', { backend: 'cloud', name: 'n'.repeat(200_000), cloudRoles: [{ scope: '/s', roleName: 'Reader' }] }), 'prod/cloud-role: name'],
  ['a GitHub app with a plain-text key', (stack) => new SyncGithubApp(stack, 'app', { name: 'ci', appId: '1', privateKey: SecretValue.unsafePlainText('k') }), 'prod/app: privateKey'],
];

describe('constructs synthesized with skipValidation', () => {
  test.each(INVALID)('%s is synthesized as a marker the engine refuses, naming the construct', (_name, add, named) => {
    const outdir = synthWithoutValidation((stack) => {
      new AuthMount(stack, 'kept', { path: 'userpass', type: 'userpass' });
      add(stack);
    });
    const blocks = secretformBlocks(outdir);
    expect(blocks.map((block) => [block.address, 'problems' in block]).sort()).toEqual([[named.split(':')[0], true], ['prod/kept', false]].sort());
    expect(desiredError(outdir)).toContain(named);
  });

  test('stack-level problems (two constructs managing one object, a sync association on a non-KV-v2 mount) mark the construct concerned', () => {
    const outdir = synthWithoutValidation((stack) => {
      new SecretsMount(stack, 'first', { path: 'apps', type: 'kv', options: { version: '2' } });
      new SecretsMount(stack, 'second', { path: 'apps', type: 'kv', options: { version: '2' } });
      const v1 = new SecretsMount(stack, 'v1', { path: 'old', type: 'kv', options: { version: '1' } });
      const destination = new SyncCloud1SmDestination(stack, 'dest', { name: 'c1', accessKeyId: SecretValue.fromEnv('A'), secretAccessKey: SecretValue.fromEnv('S'), region: 'eu-west-1' });
      new SyncAssociation(stack, 'assoc', { destination, mount: v1, secretName: 'db' });
      new LdapSecretBackend(stack, 'ldap', { binddn: 'cn=a', bindpass: SecretValue.fromEnv('B'), url: 'ldap://x' });
    });
    const marked = secretformBlocks(outdir).filter((block) => 'problems' in block).map((block) => block.address).sort();
    expect(marked).toEqual(['prod/assoc', 'prod/second']);
    const message = desiredError(outdir);
    expect(message).toContain('prod/second: ');
    expect(message).toContain('already manages');
    expect(message).toContain('prod/assoc: mount');
  });
});
