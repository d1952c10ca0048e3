/**
 * Every refusal names the way out: a flag, a setting in the code, or a command that waives or undoes it. One row
 * per refusal the tool makes (protection, retention, mandatory policies, service identity, saved plans that are
 * unverified, tampered, stale or already applied, a held lock, a state push that would lose a newer state, an
 * apply that cannot ask for approval, ...): each sets up its case in its own project and paths on one dev server
 * (a second one for the identity mismatch), runs the refused command through the real binary, and checks exit 1
 * and the way out in what it printed.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { startLockHolder } from '../support/lock-holder';
import { cliEnv, ROOT, runCli, type CliResult } from './cli-harness';
import { tempDir } from '../support/temp-dir';

jest.setTimeout(180_000);

/**
 * One stack `ways`: a userpass mount, a user `alice` in it and a KV mount, under paths of the case's own prefix
 * (SF_WAY_PREFIX). SF_WAY's words change the code: protect-kv, protect-user, retain-user, kv-v1 (a replacement of
 * the KV mount), no-kv and no-userpass (a construct removed), user-by-path (the user names its mount by path),
 * long-ttl (48h tokens, which the `recommended` pack refuses).
 */
const APP = `
const { App, TerraformStack } = require(${JSON.stringify(join(ROOT, 'node_modules', 'cdktf'))});
const sf = require(${JSON.stringify(join(ROOT, 'dist'))});
const way = (process.env.SF_WAY || '').split(',');
const prefix = process.env.SF_WAY_PREFIX;
const app = new App();
const stack = new TerraformStack(app, 'ways');
const userpass = way.includes('no-userpass') ? undefined : new sf.AuthMount(stack, 'userpass', { path: prefix + '-users', type: 'userpass' });
new sf.UserpassUser(stack, 'alice', {
  mount: way.includes('user-by-path') ? prefix + '-users' : userpass, username: 'alice', password: sf.SecretValue.fromFile('password.txt'), tokenPolicies: ['default'],
  tokenTtl: way.includes('long-ttl') ? '48h' : '1h', protect: way.includes('protect-user'), retainOnDelete: way.includes('retain-user'),
});
if (!way.includes('no-kv')) {
  new sf.SecretsMount(stack, 'kv', { path: prefix + '-apps', type: 'kv', options: { version: way.includes('kv-v1') ? '1' : '2' }, protect: way.includes('protect-kv') });
}
app.synth();
`;

let server: DevServer;
let other: DevServer;

beforeAll(async () => {
  server = await startDevServer({ port: 0, rootToken: 'ways-root' });
  other = await startDevServer({ port: 0, rootToken: 'ways-root' });
});

afterAll(async () => {
  await Promise.all([server?.close(), other?.close()]);
});

/** A case's project: `sf(args, way?, env?)` runs the binary there, with the case's prefix and the given code. */
interface Case {
  dir: string;
  prefix: string;
  sf(args: string[], way?: string, env?: Record<string, string | undefined>): Promise<CliResult>;
  /** Runs and expects success (the setup of a case). */
  ok(args: string[], way?: string, env?: Record<string, string | undefined>): Promise<CliResult>;
}

function newCase(name: string): Case {
  const dir = tempDir(`secretform-ways-${name}-`);
  writeFileSync(join(dir, 'cdktf.json'), JSON.stringify({ app: 'node main.js' }));
  writeFileSync(join(dir, 'main.js'), APP);
  writeFileSync(join(dir, 'password.txt'), 'ways-password-value-3b7e\n');
  const sf = (args: string[], way = '', env: Record<string, string | undefined> = {}) =>
    runCli(args, dir, cliEnv(server, { SECRETFORM_SYNTH_ENV: 'SF_WAY,SF_WAY_PREFIX', SF_WAY: way, SF_WAY_PREFIX: name, ...env }));
  const ok = async (args: string[], way = '', env: Record<string, string | undefined> = {}) => {
    const result = await sf(args, way, env);
    if (result.code !== 0) throw new Error(`setup \`secretform ${args.join(' ')}\` failed (${result.code}): ${result.stderr}`);
    return result;
  };
  return { dir, prefix: name, sf, ok };
}

const APPLY = ['apply', '--auto-approve'];

/** Changes alice's token TTL on the service, behind secretform's back. */
async function changeOnService(prefix: string): Promise<void> {
  const answer = await fetch(`${server.url}/v1/auth/${prefix}-users/users/alice`, {
    method: 'POST',
    headers: { 'X-Service-Token': server.rootToken, 'Content-Type': 'application/json' },
    body: JSON.stringify({ token_ttl: 7200 }),
  });
  if (!answer.ok) throw new Error(`could not change alice on the service: HTTP ${answer.status}`);
}

interface Refusal {
  /** The refusal, as a user meets it. */
  name: string;
  /** What must be in the message: the way out (a flag, a setting, a command). */
  ways: string[];
  run(c: Case): Promise<CliResult>;
}

const REFUSALS: Refusal[] = [
  {
    name: 'plan: a mandatory policy fails',
    ways: ['policyWaivers'],
    run: (c) => c.sf(['plan', '--policy', 'recommended'], 'long-ttl'),
  },
  {
    name: 'apply: a mandatory policy fails',
    ways: ['policyWaivers'],
    run: (c) => c.sf([...APPLY, '--policy', 'recommended'], 'long-ttl'),
  },
  {
    name: 'apply PLANFILE: the saved plan recorded a failed mandatory policy',
    ways: ['policyWaivers', 'secretform plan --out PLANFILE'],
    run: async (c) => {
      await c.sf(['plan', '--policy', 'recommended', '--out', 'failed.plan'], 'long-ttl');
      return c.sf(['apply', 'failed.plan']);
    },
  },
  {
    name: 'a protected object would be replaced',
    ways: ['Keep the field as it is, or remove `protect`, apply, then make the change'],
    run: async (c) => {
      await c.ok(APPLY, 'protect-kv');
      return c.sf(APPLY, 'protect-kv,kv-v1');
    },
  },
  {
    name: 'a protected object\'s construct was removed',
    ways: ['Put the construct back without `protect` and apply', '`secretform state rm`'],
    run: async (c) => {
      await c.ok(APPLY, 'protect-kv');
      return c.sf(APPLY, 'no-kv');
    },
  },
  {
    name: 'destroy of a protected object',
    ways: ['Remove `protect`, apply, then destroy, or leave it out with --target'],
    run: async (c) => {
      await c.ok(APPLY, 'protect-kv');
      return c.sf(['destroy', '--auto-approve'], 'protect-kv');
    },
  },
  {
    name: 'a protected object in a container the plan deletes',
    ways: ['remove `protect` from ways/alice, apply, then make the change'],
    run: async (c) => {
      await c.ok(APPLY, 'protect-user');
      return c.sf(APPLY, 'protect-user,user-by-path,no-userpass');
    },
  },
  {
    name: 'a retained object in a container the plan deletes',
    ways: ['would delete or replace a retained object', 'remove `retainOnDelete` from ways/alice, apply, then make the change'],
    run: async (c) => {
      await c.ok(APPLY, 'retain-user');
      return c.sf(['destroy', '--auto-approve', '--target', 'ways/userpass'], 'retain-user');
    },
  },
  {
    name: 'the state was applied to another service',
    ways: ['secretform apply --migrate-state', 'SERVICE_ADDR'],
    run: async (c) => {
      await c.ok(APPLY);
      return c.sf(['plan'], '', { SERVICE_ADDR: other.url });
    },
  },
  {
    name: 'apply PLANFILE: an unverified plan (no fingerprint key anywhere)',
    // The way out ends the message: no second, contradicting advice after it.
    ways: ['SECRETFORM_STATE_KEY', 'apply it with --allow-unverified-plan\n'],
    run: async (c) => {
      const keyless = { SECRETFORM_STATE_KEY: undefined, SECRETFORM_FINGERPRINT_KEY_MOUNT: 'no-such-kv' };
      await c.ok(['plan', '--out', 'keyless.plan'], '', keyless);
      return c.sf(['apply', 'keyless.plan'], '', keyless);
    },
  },
  {
    name: 'apply PLANFILE: the plan carries a MAC and this run has no key to check it',
    ways: ['Give this run the key the plan was made with (SECRETFORM_STATE_KEY', 'secretform plan --out PLANFILE'],
    run: async (c) => {
      await c.ok(['plan', '--out', 'signed.plan']);
      return c.sf(['apply', 'signed.plan'], '', { SECRETFORM_STATE_KEY: undefined, SECRETFORM_FINGERPRINT_KEY_MOUNT: 'no-such-kv' });
    },
  },
  {
    name: 'apply PLANFILE: the plan was changed after it was written',
    ways: ['secretform plan --out PLANFILE'],
    run: async (c) => {
      await c.ok(['plan', '--out', 'changed.plan']);
      const file = join(c.dir, 'changed.plan');
      writeFileSync(file, readFileSync(file, 'utf8').replace('"1h"', '"2h"').replace('3600', '7200'));
      return c.sf(['apply', 'changed.plan']);
    },
  },
  {
    name: 'apply PLANFILE: the service changed since the plan (stale)',
    ways: ['secretform plan --out PLANFILE'],
    run: async (c) => {
      await c.ok(APPLY);
      await c.ok(['plan', '--out', 'stale.plan'], 'protect-kv');
      await changeOnService(c.prefix);
      return c.sf(['apply', 'stale.plan']);
    },
  },
  {
    name: 'apply PLANFILE: the plan was applied already',
    ways: ['secretform plan --out PLANFILE'],
    run: async (c) => {
      await c.ok(['plan', '--out', 'once.plan']);
      await c.ok(['apply', 'once.plan']);
      return c.sf(['apply', 'once.plan']);
    },
  },
  {
    name: 'the state is locked by another command',
    ways: ['--lock-timeout', 'secretform force-unlock'],
    run: async (c) => {
      await c.ok(APPLY);
      const holder = await startLockHolder(join(c.dir, '.secretform', 'ways.state.json'), 'ways', 'hold');
      try {
        return await c.sf(APPLY);
      } finally {
        holder.child.kill('SIGKILL');
        await holder.exited;
      }
    },
  },
  {
    name: 'state push of a state older than the stored one',
    ways: ['Pull the current state first', '--force'],
    run: async (c) => {
      await c.ok(APPLY);
      writeFileSync(join(c.dir, 'old.json'), (await c.ok(['state', 'pull'])).stdout);
      await c.ok(APPLY, 'long-ttl');
      return c.sf(['state', 'push', 'old.json']);
    },
  },
  {
    name: 'state push of another stack\'s state',
    ways: ['--stack ways'],
    run: async (c) => {
      await c.ok(APPLY);
      writeFileSync(join(c.dir, 'ways.json'), (await c.ok(['state', 'pull'])).stdout);
      return c.sf(['state', 'push', 'ways.json', '--stack', 'other', '--state', 'other.state.json']);
    },
  },
  {
    name: 'a state file of another stack given with --state',
    ways: ['pass --state for this stack'],
    run: async (c) => {
      await c.ok(APPLY);
      const pulled = JSON.parse((await c.ok(['state', 'pull'])).stdout);
      writeFileSync(join(c.dir, 'blue.state.json'), JSON.stringify({ ...pulled, stack: 'blue' }));
      return c.sf(['plan', '--state', 'blue.state.json']);
    },
  },
  {
    name: 'import of an address already in state',
    ways: ['`secretform state rm`'],
    run: async (c) => {
      await c.ok(APPLY);
      return c.sf(['import', 'ways/kv', `sys/mounts/${c.prefix}-apps`]);
    },
  },
  {
    name: 'force-unlock on a pipe, without --force',
    ways: ['--force'],
    run: async (c) => {
      await c.ok(APPLY);
      const holder = await startLockHolder(join(c.dir, '.secretform', 'ways.state.json'), 'ways', 'hold');
      try {
        return await c.sf(['force-unlock']);
      } finally {
        holder.child.kill('SIGKILL');
        await holder.exited;
      }
    },
  },
  {
    name: 'apply with no terminal to ask for approval',
    ways: ['--auto-approve'],
    run: (c) => c.sf(['apply']),
  },
  {
    name: 'apply PLANFILE with a flag that changes the plan',
    ways: ['secretform plan --target ... --out PLANFILE'],
    run: async (c) => {
      await c.ok(['plan', '--out', 'fixed.plan']);
      return c.sf(['apply', 'fixed.plan', '--target', 'ways/kv']);
    },
  },
  {
    name: 'drift ack of an object that has not drifted',
    ways: ['secretform drift --stack ways'],
    run: async (c) => {
      await c.ok(APPLY);
      await c.ok(['drift']);
      return c.sf(['drift', 'ack', 'ways/alice', '--reason', 'expected']);
    },
  },
];

/** Each refusal as printed, for a reviewer to read them side by side (gitignored). */
const MESSAGES = join(ROOT, 'test-artifacts', 'refusals');

describe('every refusal names its way out', () => {
  beforeAll(() => mkdirSync(MESSAGES, { recursive: true }));

  test.each(REFUSALS.map((refusal, index) => [refusal.name, refusal, index] as const))('%s', async (name, refusal, index) => {
    const result = await refusal.run(newCase(`w${index}`));
    writeFileSync(join(MESSAGES, `${String(index).padStart(2, '0')}.txt`), `${name}\n\n${result.stderr}`);
    expect({ code: result.code, stderr: result.stderr }).toMatchObject({ code: 1 });
    for (const way of refusal.ways) expect(result.stderr).toContain(way);
  });
});
