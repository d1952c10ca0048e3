import { diffLines, DIFF_LINE_WIDTH } from '../../src/report/markdown-diff';
import type { AttributeLine } from '../../src/report/plan-view';

function line(overrides: Partial<AttributeLine> & Pick<AttributeLine, 'symbol' | 'name'>): AttributeLine {
  return { value: '', forcesReplacement: false, ...overrides };
}

describe('diffLines (the pull-request diff block)', () => {
  it('shows an in-place change as a - old line and a + new line, the note on the new one', () => {
    expect(diffLines(line({ symbol: '~', name: 'username', value: '"a" -> "b"', forcesReplacement: true, raw: { before: 'a', after: 'b' } }))).toEqual([
      '- username = "a"',
      '+ username = "b" # forces replacement',
    ]);
  });

  it('shows a secret changed in place as one ! line with its mask, never a value', () => {
    expect(diffLines(line({ symbol: '~', name: 'password', value: '(sensitive value)', note: 'differs on the service' }))).toEqual([
      '! password = (sensitive value) # differs on the service',
    ]);
    expect(diffLines(line({ symbol: '+', name: 'password', value: '(sensitive value)' }))).toEqual(['+ password = (sensitive value)']);
  });

  it('pretty-prints a list or object wider than a line, every line keeping the symbol', () => {
    const tags = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`team_${i}`, `payments-and-billing-${i}`]));
    const lines = diffLines(line({ symbol: '+', name: 'custom_tags', raw: { after: tags } }));

    expect(lines[0]).toBe('+ custom_tags = {');
    expect(lines[1]).toBe('+       "team_0": "payments-and-billing-0",');
    expect(lines[lines.length - 1]).toBe('+     }');
    expect(JSON.parse(lines.map((l, i) => (i === 0 ? '{' : l.slice(2))).join('\n'))).toEqual(tags);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(DIFF_LINE_WIDTH);
  });

  it('shows a multi-line string as a heredoc, old and new, with the note after the closing marker', () => {
    const before = 'dn: cn={{.Username}}\nobjectClass: person';
    const after = 'dn: cn={{.Username}},ou=svc\nobjectClass: person\nEOT\n' + 'x'.repeat(80);
    const lines = diffLines(line({ symbol: '~', name: 'creation_ldif', forcesReplacement: true, raw: { before, after } }));

    expect(lines).toEqual([
      '- creation_ldif = <<EOT',
      '-     dn: cn={{.Username}}',
      '-     objectClass: person',
      '-     EOT',
      '+ creation_ldif = <<EOT_1',
      '+     dn: cn={{.Username}},ou=svc',
      '+     objectClass: person',
      '+     EOT',
      `+     ${'x'.repeat(80)}`,
      '+     EOT_1 # forces replacement',
    ]);
  });

  it('cuts a long single-line string into pieces of at most the line width that join back to the value', () => {
    const value = 'arn:cloud1:iam::123456789012:role/'.repeat(10);
    const lines = diffLines(line({ symbol: '-', name: 'role_arn', raw: { before: value } }));

    expect(lines.length).toBeGreaterThan(3);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(DIFF_LINE_WIDTH);
    expect(lines.slice(1).every((l) => l.startsWith('-     '))).toBe(true);
    expect(lines.map((l, i) => (i === 0 ? l : l.slice('-     '.length))).join('')).toBe(`- role_arn = ${JSON.stringify(value)}`);
  });

  it('keeps a short value on one line', () => {
    expect(diffLines(line({ symbol: '+', name: 'token_ttl', raw: { after: 3600 } }))).toEqual(['+ token_ttl = 3600']);
    expect(diffLines(line({ symbol: '-', name: 'policies', raw: { before: ['a', 'b'] } }))).toEqual(['- policies = ["a","b"]']);
  });
});
