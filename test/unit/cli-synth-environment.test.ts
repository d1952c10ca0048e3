import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { secretVariablesOfOutput, synthEnvironment } from '../../src/synth-environment';

describe('synthEnvironment', () => {
  const source = {
    PATH: '/bin', HOME: '/home/u', LANG: 'C.UTF-8', LC_ALL: 'C', TZ: 'UTC', NODE_OPTIONS: '--max-old-space-size=512',
    NODE_AUTH_TOKEN: 'npm-token', npm_config_cache: '/c', npm_config__authToken: 'npm-token-2', CDKTF_HOME: '/h',
    SERVICE_TOKEN: 'tok', SERVICE_ADDR: 'http://x', SECRETFORM_STATE_KEY: 'k', SECRETFORM_STATE: 'postgres://u:p@h/db',
    SECRETFORM_SYNTH_ENV: 'STAGE', STAGE: 'prod', REGION: 'eu', DB_PASSWORD: 'pw', APP_SECRET: 's', UNSET: undefined,
  };

  test('passes the process basics and the named variables, nothing else', () => {
    const env = synthEnvironment({ source, passEnv: ['REGION'] });
    expect(env).toEqual({
      PATH: '/bin', HOME: '/home/u', LANG: 'C.UTF-8', LC_ALL: 'C', TZ: 'UTC', NODE_OPTIONS: '--max-old-space-size=512',
      npm_config_cache: '/c', CDKTF_HOME: '/h', STAGE: 'prod', REGION: 'eu',
    });
  });

  test('the denylist wins over names and prefixes the user asks for', () => {
    const env = synthEnvironment({ source, passEnv: ['SERVICE_*', 'SECRETFORM_STATE_KEY', 'APP_*', 'DB_PASSWORD'], secretVariables: new Set(['APP_SECRET']) });
    expect(Object.keys(env).filter((name) => /^(SERVICE_|SECRETFORM_)/.test(name))).toEqual([]);
    expect(env.APP_SECRET).toBeUndefined();
    // Named explicitly and not a known secret: the user's choice.
    expect(env.DB_PASSWORD).toBe('pw');
  });

  test('a prefix never sweeps in a credential-like name (no output yet says which variables are secrets)', () => {
    const first = { PATH: '/bin', SF_STAGE: 'prod', SF_REGION: 'eu', SF_DB_PASSWORD: 'pw', SF_API_TOKEN: 't', SF_SIGNING_KEY: 'k', SF_MONKEY: 'm' };
    const env = synthEnvironment({ source: first, passEnv: ['SF_*'] });
    expect(env).toEqual({ PATH: '/bin', SF_STAGE: 'prod', SF_REGION: 'eu', SF_MONKEY: 'm' });
    // Named exactly, the user's choice again.
    expect(synthEnvironment({ source: first, passEnv: ['SF_*', 'SF_API_TOKEN'] }).SF_API_TOKEN).toBe('t');
  });
});

describe('secretVariablesOfOutput', () => {
  test('names every SecretValue.fromEnv variable of every stack of the output; none without an output', () => {
    const outdir = mkdtempSync(join(tmpdir(), 'sf-synth-env-'));
    expect(secretVariablesOfOutput(outdir)).toEqual(new Set());
    for (const [stack, variable] of [['a', 'A_PASSWORD'], ['b', 'B_KEY']]) {
      mkdirSync(join(outdir, 'stacks', stack), { recursive: true });
      const block = { '//': { secretform: { secrets: { password: { $secret: { env: variable } }, key: { $secret: { file: 'k.pem' } } } } } };
      writeFileSync(join(outdir, 'stacks', stack, 'cdk.tf.json'), JSON.stringify({ resource: { null_resource: { r: block, mine: { triggers: {} } } } }));
    }
    expect(secretVariablesOfOutput(outdir)).toEqual(new Set(['A_PASSWORD', 'B_KEY']));
  });
});
