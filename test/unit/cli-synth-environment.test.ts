import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { DIGEST_RECORD_FILE, writeDigestRecord } from '../../src/engine/setup/desired-digest-record';
import { ResumableSha256 } from '../../src/engine/setup/desired-digest-sha256';
import { secretVariablesOfOutput, synthEnvironment } from '../../src/synth-environment';
import { secretVariablesOfPreviousOutput } from '../../src/synthesize';
import { tempDir } from '../support/temp-dir';

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
    const outdir = tempDir('sf-synth-env-');
    expect(secretVariablesOfOutput(outdir)).toEqual(new Set());
    for (const [stack, variable] of [['a', 'A_PASSWORD'], ['b', 'B_KEY']]) {
      mkdirSync(join(outdir, 'stacks', stack), { recursive: true });
      const block = { '//': { secretform: { secrets: { password: { $secret: { env: variable } }, key: { $secret: { file: 'k.pem' } } } } } };
      writeFileSync(join(outdir, 'stacks', stack, 'cdk.tf.json'), JSON.stringify({ resource: { null_resource: { r: block, mine: { triggers: {} } } } }));
    }
    expect(secretVariablesOfOutput(outdir)).toEqual(new Set(['A_PASSWORD', 'B_KEY']));
  });
});

describe('secretVariablesOfPreviousOutput (what synth withholds from the app it is about to run)', () => {
  /** A stack directory whose cdk.tf.json holds `bytes`, with a record made from those bytes listing `listed`. */
  function stackWithRecord(outdir: string, stack: string, bytes: string, listed: string[] | undefined): string {
    const dir = join(outdir, 'stacks', stack);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'cdk.tf.json'), bytes);
    const file = { bytes: Buffer.byteLength(bytes), sha256: createHash('sha256').update(bytes).digest('hex') };
    writeDigestRecord(dir, { file, before: new ResumableSha256().state(), ...(listed ? { secretVariables: listed } : {}) });
    return dir;
  }
  const config = (variable: string) => JSON.stringify({ resource: { terraform_data: { r: { '//': { secretform: { secrets: { password: { $secret: { env: variable } } } } } } } } });

  test('a record that describes its file gives its names: the file is not parsed', () => {
    const outdir = tempDir('sf-synth-env-record-');
    // Bytes no parse could read: only the record can name RECORDED_PASSWORD.
    stackWithRecord(outdir, 'a', '{ not json', ['RECORDED_PASSWORD']);
    expect(secretVariablesOfPreviousOutput(outdir)).toEqual(new Set(['RECORDED_PASSWORD']));
    expect(secretVariablesOfOutput(outdir)).toEqual(new Set());
  });

  test('a record of other bytes, or of a version without the names, is not used: the file is parsed', () => {
    const outdir = tempDir('sf-synth-env-record-');
    const edited = stackWithRecord(outdir, 'edited', config('OLD_PASSWORD'), ['OLD_PASSWORD']);
    writeFileSync(join(edited, 'cdk.tf.json'), config('NEW_PASSWORD'));
    stackWithRecord(outdir, 'older', config('OLDER_RECORD_PASSWORD'), undefined);
    expect(JSON.parse(readFileSync(join(outdir, 'stacks', 'older', DIGEST_RECORD_FILE), 'utf8')).secretVariables).toBeUndefined();
    expect(secretVariablesOfPreviousOutput(outdir)).toEqual(new Set(['NEW_PASSWORD', 'OLDER_RECORD_PASSWORD']));
  });
});
