import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { destroyPreview, selectForDestroy } from '../../src/cli/destroy-preview';
import { fakeIo } from './cli-fake-io';

const resources = {
  'prod/mount': { dependencies: [] },
  'prod/dest': { dependencies: [] },
  'prod/assoc': { dependencies: ['prod/dest', 'prod/mount'] },
  'prod/app': { dependencies: [] },
  'prod/dest-app': { dependencies: ['prod/app'] },
  'prod/assoc-app': { dependencies: ['prod/dest-app'] },
};

describe('destroy preview', () => {
  test('selects everything without targets', () => {
    expect([...selectForDestroy(resources, undefined)].sort()).toEqual(Object.keys(resources).sort());
  });

  test('selects the targets and, transitively, what depends on them', () => {
    expect([...selectForDestroy(resources, ['prod/app'])].sort()).toEqual(['prod/app', 'prod/assoc-app', 'prod/dest-app']);
    expect([...selectForDestroy(resources, ['prod/mount'])].sort()).toEqual(['prod/assoc', 'prod/mount']);
    expect([...selectForDestroy(resources, ['prod/unknown'])]).toEqual([]);
  });

  test('reads the state file into a plan of deletions, without contacting the service', async () => {
    const io = fakeIo();
    const outdir = join(io.cwd, 'cdktf.out');
    mkdirSync(outdir);
    writeFileSync(join(outdir, 'manifest.json'), JSON.stringify({ stacks: { prod: {} } }));
    const entry = (type: string, id: string, dependencies: string[]) => ({
      type, id, attributes: { path: id }, secrets: {}, dependencies, applied_at: '2025-01-01T00:00:00.000Z',
    });
    mkdirSync(join(io.cwd, '.secretform'));
    writeFileSync(
      join(io.cwd, '.secretform', 'prod.state.json'),
      JSON.stringify({
        version: 1, lineage: 'l', serial: 3, stack: 'prod',
        resources: { 'prod/ldap': entry('ldap_secret_backend', 'ldap/config', []), 'prod/role': entry('ldap_static_role', 'ldap/static-role/svc', ['prod/ldap']) },
      }),
    );
    const preview = await destroyPreview({ desired: { kind: 'synth-output', outdir }, cwd: io.cwd, targets: ['prod/ldap'] });
    expect(preview.ok).toBe(true);
    if (!preview.ok) return;
    expect(preview.value.stack).toBe('prod');
    expect(preview.value.changes.map((c) => [c.address, c.action, c.type, c.after])).toEqual([
      ['prod/ldap', 'delete', 'ldap_secret_backend', null],
      ['prod/role', 'delete', 'ldap_static_role', null],
    ]);
    expect(preview.value.changes[0].before).toEqual({ path: 'ldap/config' });
  });

  test('reports a missing synth output as an engine error', async () => {
    const io = fakeIo();
    const preview = await destroyPreview({ desired: { kind: 'synth-output', outdir: join(io.cwd, 'cdktf.out') }, cwd: io.cwd });
    expect(preview.ok).toBe(false);
    if (preview.ok) return;
    expect(preview.error.message).toContain('manifest.json: does not exist (run `secretform synth` first)');
  });
});
