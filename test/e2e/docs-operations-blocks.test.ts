/**
 * The operations blocks of README.md ("Operations: rotate, credentials, library accounts, exec") and of
 * docs/operations.md ("Each operation", "exec"), run line by line by bash as written (`secretform` on the PATH),
 * in a project whose stack `prod` holds the objects they name: the directory engine `prod/ldap` with the static
 * role `svc-payments`, the dynamic role `incident-access` and the library set `batch-pool` beneath it, the cloud
 * role `prod/ci-deployer` and the userpass user `prod/ci-bot`. The dev server stands in for the service, seeded
 * with the directory entries of examples/platform/seed.json; the project has the `./nightly-batch.sh` the blocks
 * run, and a terraform configuration for `exec prod/ci-deployer -- terraform apply`. Each line's exit code and
 * the essentials of its output are checked, and no secret of the code, nor any credential, appears where the
 * operation was not asked to print it.
 */
import { runBash } from '../support/run-bash';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { markdownFileBlocks, readmeBlock } from '../support/readme-blocks';
import { cliEnv, createLinkedProject, ROOT } from './cli-harness';

jest.setTimeout(300_000);

const BINDPASS = 'quickstart-bind-password'; // cn=secrets-engine's password in examples/platform/seed.json
const CLOUD_SECRET = 'prod-cloud-root-secret-3c9e';
const CI_BOT_PASSWORD = 'prod-ci-bot-password-81fa';

const APP = `
const { App, TerraformStack } = require('cdktf');
const sf = require('secretform');
const app = new App();
const stack = new TerraformStack(app, 'prod');
const ldap = new sf.LdapSecretBackend(stack, 'ldap', {
  binddn: 'cn=secrets-engine,dc=example,dc=org', bindpass: sf.SecretValue.fromEnv('PROD_LDAP_BINDPASS'),
  url: 'ldaps://ldap.example.org:636', userdn: 'ou=service-accounts,dc=example,dc=org', userattr: 'cn',
});
new sf.LdapStaticRole(ldap, 'svc-payments', { backend: ldap, name: 'svc-payments', username: 'svc-payments', rotationPeriod: '24h' });
new sf.LdapDynamicRole(ldap, 'incident-access', {
  backend: ldap, name: 'incident-access', defaultTtl: '1h', maxTtl: '8h',
  creationLdif: 'dn: cn={{.Username}},ou=dynamic,dc=example,dc=org\\nobjectClass: person\\ncn: {{.Username}}\\nsn: {{.Username}}\\nuserPassword: {{.Password}}\\n',
  deletionLdif: 'dn: cn={{.Username}},ou=dynamic,dc=example,dc=org\\nchangetype: delete\\n',
});
new sf.LdapLibrarySet(ldap, 'batch-pool', { backend: ldap, name: 'batch-pool', serviceAccountNames: ['batch-1', 'batch-2'], ttl: '2h', maxTtl: '12h' });
const sub = '6f1c2a9e-0d4b-4c55-9a7e-2b1f3c4d5e6f';
const cloud = new sf.CloudSecretBackend(stack, 'cloud', {
  subscriptionId: sub, tenantId: '0e3d9c8b-7a6f-4e5d-8c4b-3a2f1e0d9c8b', clientId: 'b1a2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d',
  clientSecret: sf.SecretValue.fromEnv('PROD_CLOUD_CLIENT_SECRET'),
});
new sf.CloudSecretRole(stack, 'ci-deployer', { backend: cloud, name: 'ci-deployer', cloudRoles: [{ scope: '/subscriptions/' + sub, roleName: 'Contributor' }], ttl: '1h' });
const userpass = new sf.AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass' });
new sf.UserpassUser(stack, 'ci-bot', { mount: userpass, username: 'ci-bot', password: sf.SecretValue.fromEnv('PROD_CI_BOT_PASSWORD'), tokenTtl: '30m' });
app.synth();
`;

/** The batch script of the blocks: says which account it got and that a password came with it, never the password. */
const NIGHTLY_BATCH = `#!/bin/sh
set -eu
test -n "$PASSWORD"
test -z "\${SERVICE_TOKEN:-}"
echo "nightly batch as $SERVICE_ACCOUNT_NAME"
`;

/**
 * What `terraform apply` of the exec block applies: one built-in terraform_data (no provider to download) whose
 * provisioner checks that the cloud credentials arrived in terraform's environment, without printing them.
 */
const TERRAFORM_CONFIG = `
resource "terraform_data" "deploy" {
  provisioner "local-exec" {
    command = "test -n \\"$CLIENT_ID\\" && test -n \\"$CLIENT_SECRET\\" && echo deploying as client $CLIENT_ID"
  }
}
`;

interface Ran {
  line: string;
  code: number | null;
  stdout: string;
  stderr: string;
}

async function bash(line: string, cwd: string, environment: NodeJS.ProcessEnv): Promise<Ran> {
  return { line, ...(await runBash(line, cwd, environment)) };
}

/** The commands of a block, each line as written (its trailing comment included); comment lines are left out. */
function commands(block: string): string[] {
  return block.split('\n').filter((line) => line.trim() !== '' && !line.trim().startsWith('#'));
}

/** A marked block of docs/operations.md. */
function operationsBlock(name: string): string {
  const text = markdownFileBlocks(join(ROOT, 'docs', 'operations.md')).get(name);
  if (text === undefined) throw new Error(`docs/operations.md has no block marked <!-- example: ${name} -->`);
  return text;
}

/** A dev server seeded with the example's directory, and the project applied on it. */
class ProdProject {
  server!: DevServer;
  dir!: string;
  readonly runs: Ran[] = [];

  async start(): Promise<void> {
    const seed = JSON.parse(readFileSync(join(ROOT, 'examples', 'platform', 'seed.json'), 'utf8')) as object;
    this.server = await startDevServer({ port: 0, rootToken: 'ops-docs-root', seed });
    this.dir = createLinkedProject('secretform-docs-ops-', APP, 'cdktf');
    writeFileSync(join(this.dir, 'nightly-batch.sh'), NIGHTLY_BATCH);
    chmodSync(join(this.dir, 'nightly-batch.sh'), 0o755);
    writeFileSync(join(this.dir, 'main.tf'), TERRAFORM_CONFIG);
    const applied = await this.run('secretform apply --auto-approve');
    if (applied.code !== 0) throw new Error(`apply failed (${applied.code}): ${applied.stderr}`);
  }

  env(): NodeJS.ProcessEnv {
    const base = cliEnv(this.server, {
      PROD_LDAP_BINDPASS: BINDPASS,
      PROD_CLOUD_CLIENT_SECRET: CLOUD_SECRET,
      PROD_CI_BOT_PASSWORD: CI_BOT_PASSWORD,
      // The test's stdin is no terminal: terraform applies without asking, as a CI job's TF_CLI_ARGS would say.
      TF_CLI_ARGS_apply: '-auto-approve -input=false -no-color',
      TF_IN_AUTOMATION: '1',
    });
    return { ...base, PATH: `${join(this.dir, 'node_modules', '.bin')}:${base.PATH ?? ''}` };
  }

  async run(line: string): Promise<Ran> {
    const ran = await bash(line, this.dir, this.env());
    this.runs.push(ran);
    return ran;
  }

  /** The lines of a block, in order; each must succeed (its output is shown when it does not). */
  async runBlock(block: string): Promise<Ran[]> {
    const ran: Ran[] = [];
    for (const line of commands(block)) {
      const one = await this.run(line);
      expect({ line, code: one.code, stderr: one.code === 0 ? '' : one.stderr }).toEqual({ line, code: 0, stderr: '' });
      ran.push(one);
    }
    return ran;
  }

  /** The secrets of the code never appear in any output of the runs. */
  expectNoCodeSecret(): void {
    for (const ran of this.runs) {
      for (const secret of [BINDPASS, CLOUD_SECRET, CI_BOT_PASSWORD]) {
        expect({ line: ran.line, leaks: `${ran.stdout}${ran.stderr}`.includes(secret) }).toEqual({ line: ran.line, leaks: false });
      }
    }
  }

  async close(): Promise<void> {
    await this.server?.close();
  }
}

/** The value of `name: value` in a text answer. */
function field(text: string, name: string): string {
  const match = new RegExp(`^${name}: (.+)$`, 'm').exec(text);
  if (!match) throw new Error(`no "${name}:" line in:\n${text}`);
  return match[1];
}

/** The `export NAME='value'` lines of an env answer, by name. */
function exported(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const match of text.matchAll(/^export ([A-Z_]+)='([^']*)'$/gm)) values[match[1]] = match[2];
  return values;
}

describe('README.md: the operations block', () => {
  const prod = new ProdProject();
  beforeAll(() => prod.start());
  afterAll(() => prod.close());

  test('rotates the bind password, prints cloud credentials, checks out an account and runs the batch with another', async () => {
    const [rotated, creds, checkedOut, exec] = await prod.runBlock(readmeBlock('operations.sh'));
    expect(commands(readmeBlock('operations.sh'))).toHaveLength(4);

    expect(rotated.stdout).toContain('prod/ldap');
    // creds --format env: export lines, evaluable by a shell.
    const credentials = exported(creds.stdout);
    expect(Object.keys(credentials)).toEqual(expect.arrayContaining(['CLIENT_ID', 'CLIENT_SECRET', 'LEASE_ID', 'LEASE_DURATION']));
    expect(credentials.CLIENT_SECRET).not.toBe('');
    // check-out --ttl 1h: an account, its password and the one-hour lease.
    const account = field(checkedOut.stdout, 'service_account_name');
    expect(['batch-1', 'batch-2']).toContain(account);
    expect(field(checkedOut.stdout, 'password')).not.toBe('');
    expect(checkedOut.stdout).toMatch(/^lease_duration: 3600 s \(1h\)$/m);
    // exec: the script ran with the other account and printed no password; the account went back in.
    const other = account === 'batch-1' ? 'batch-2' : 'batch-1';
    expect(exec.stdout).toBe(`nightly batch as ${other}\n`);
    const status = await prod.run('secretform action status prod/ldap/batch-pool');
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(new RegExp(`${other}: available`));
    expect(status.stdout).toMatch(new RegExp(`${account}: checked out`));

    // Credentials are printed only by the operations asked for them.
    const password = field(checkedOut.stdout, 'password');
    for (const ran of [rotated, exec, status]) expect(`${ran.stdout}${ran.stderr}`).not.toContain(password);
    for (const ran of [rotated, checkedOut, exec, status]) expect(`${ran.stdout}${ran.stderr}`).not.toContain(credentials.CLIENT_SECRET);
    prod.expectNoCodeSecret();
  });
});

describe('docs/operations.md', () => {
  const prod = new ProdProject();
  beforeAll(() => prod.start());
  afterAll(() => prod.close());

  test('each-operation.sh runs every operation on the stack prod as the comments say', async () => {
    const block = operationsBlock('each-operation.sh');
    const lines = commands(block);
    expect(lines).toHaveLength(10);
    const [cloudCreds, dynamic, staticCreds, rotateRole, checkOut, status, checkIn, forced, login, rotateRoot] = await prod.runBlock(block);
    expect(lines[lines.length - 1]).toBe('secretform action rotate-root prod/ldap');

    expect(Object.keys(exported(cloudCreds.stdout))).toEqual(expect.arrayContaining(['CLIENT_ID', 'CLIENT_SECRET', 'LEASE_ID', 'LEASE_DURATION']));
    expect(exported(cloudCreds.stdout).LEASE_ID).toMatch(/^cloud\/creds\/ci-deployer\//);
    const entry = JSON.parse(dynamic.stdout) as Record<string, unknown>;
    expect(entry).toMatchObject({ lease_duration: 3600 });
    expect(Object.keys(entry)).toEqual(expect.arrayContaining(['distinguished_names', 'username', 'password']));
    expect(field(staticCreds.stdout, 'username')).toBe('svc-payments');
    const before = field(staticCreds.stdout, 'password');
    expect(rotateRole.stdout).toMatch(/^Rotated the password of prod\/ldap\/svc-payments/);
    expect(rotateRole.stdout).not.toContain(before);
    expect(field(checkOut.stdout, 'service_account_name')).toBe('batch-1');
    expect(checkOut.stdout).toMatch(/^lease_duration: 3600 s \(1h\)$/m);
    expect(status.stdout).toMatch(/batch-1: checked out/);
    expect(status.stdout).toMatch(/batch-2: available/);
    expect(checkIn.stdout).toContain('Checked in: batch-1');
    // The account is in already: the forced check-in succeeds with nothing checked in, and a note says so.
    expect(forced.stdout).toContain('Checked in: (none)');
    expect(forced.stderr).toMatch(/^Note: /m);
    const token = JSON.parse(login.stdout) as Record<string, unknown>;
    expect(Object.keys(token)).toEqual(expect.arrayContaining(['client_token', 'accessor', 'policies', 'lease_duration']));
    expect(token.lease_duration).toBe(1800);
    expect(rotateRoot.stdout).toContain('prod/ldap');

    // The answers' credentials are only in the stdout of the line that asked for them.
    const credentials = [exported(cloudCreds.stdout).CLIENT_SECRET, String(entry.password), before, field(checkOut.stdout, 'password'), String(token.client_token)];
    const asked = new Set([cloudCreds, dynamic, staticCreds, checkOut, login]);
    for (const ran of prod.runs) {
      for (const credential of credentials) {
        const where = `${asked.has(ran) ? '' : ran.stdout}${ran.stderr}`;
        expect({ line: ran.line, leaks: where.includes(credential) }).toEqual({ line: ran.line, leaks: false });
      }
    }
    prod.expectNoCodeSecret();
  });

  test('exec.sh runs the batch with a checked-out account and terraform with cloud credentials', async () => {
    const [batch, terraform] = await prod.runBlock(operationsBlock('exec.sh'));
    expect(batch.stdout).toMatch(/^nightly batch as batch-[12]\n$/);
    expect(terraform.stdout).toMatch(/deploying as client \S+/);
    expect(terraform.stdout).toContain('Apply complete! Resources: 1 added');
    // The account went back in when the script ended.
    const status = await prod.run('secretform action status prod/ldap/batch-pool');
    expect(status.stdout).toMatch(/batch-1: available/);
    expect(status.stdout).toMatch(/batch-2: available/);
    prod.expectNoCodeSecret();
  });
});
