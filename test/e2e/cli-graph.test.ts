import { createProject, runCli } from './cli-harness';

jest.setTimeout(60_000);

test('secretform graph synthesizes and prints the dependency graph as mermaid or dot; a bad format is a usage error', async () => {
  const project = createProject();
  const env = { ...process.env, SERVICE_TOKEN: '' };
  const mermaid = await runCli(['graph', '--format', 'mermaid'], project, env);
  expect(mermaid.stderr).toBe('');
  expect(mermaid.code).toBe(0);
  expect(mermaid.stdout).toBe([
    'flowchart LR',
    '  n0["e2e/alice<br/>userpass_user"]',
    '  n1["e2e/kv<br/>secrets_mount"]',
    '  n2["e2e/userpass<br/>auth_mount"]',
    '  n2 --> n0',
    '',
  ].join('\n'));
  const dot = await runCli(['graph', '--no-synth'], project, env);
  expect(dot.code).toBe(0);
  expect(dot.stdout).toContain('  "e2e/userpass" -> "e2e/alice";\n');
  const bad = await runCli(['graph', '--format', 'svg', '--no-synth'], project, env);
  expect(bad.code).toBe(1);
  expect(bad.stderr).toBe('Error: --format must be one of dot, mermaid; got "svg"\n');
});
