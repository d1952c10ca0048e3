import type { OperationAnswer } from '../../src/engine/operations/operation-run';
import { answerObject, credentialEnvironment, parseOperationFormat, renderAnswer, shellQuote } from '../../src/cli/views/operation-output';

function answer(overrides: Partial<OperationAnswer>): OperationAnswer {
  return {
    address: 'prod/pool', type: 'ldap_library_set', construct: 'LdapLibrarySet', id: 'ldap/library/pool', operation: 'check-out',
    returnsCredentials: true, fields: {}, credentialValues: [], notes: [], ...overrides,
  };
}

describe('operation output', () => {
  test('json is one object: the service fields, then the lease', () => {
    const checkOut = answer({ fields: { service_account_name: 'svc-1', password: 'p' }, lease: { id: 'ldap/library/pool/check-out/1', durationSeconds: 7200, renewable: true } });
    expect(JSON.parse(renderAnswer(checkOut, 'json'))).toEqual({
      service_account_name: 'svc-1', password: 'p', lease_id: 'ldap/library/pool/check-out/1', lease_duration: 7200, renewable: true,
    });
  });

  test('env lines use upper-cased field names and shell quoting that keeps any value one literal word', () => {
    const creds = answer({ fields: { username: 'v_x', password: "it's $HOME `x`", distinguished_names: ['cn=a', 'cn=b'], nested: { a: 1 } } });
    expect(credentialEnvironment(creds)).toEqual({ USERNAME: 'v_x', PASSWORD: "it's $HOME `x`", DISTINGUISHED_NAMES: 'cn=a,cn=b' });
    expect(renderAnswer(creds, 'env')).toContain(`export PASSWORD='it'\\''s $HOME \`x\`'\n`);
    expect(shellQuote("a'b")).toBe(`'a'\\''b'`);
  });

  test('text shows the lease duration in seconds and hours', () => {
    const text = renderAnswer(answer({ fields: { password: 'p' }, lease: { durationSeconds: 3600 } }), 'text');
    expect(text).toBe('password: p\nlease_duration: 3600 s (1h)\n');
  });

  test('a library status never shows a borrower token, in any format', () => {
    const status = answer({
      operation: 'status', returnsCredentials: false,
      fields: { 'svc-1': { available: false, borrower_client_token: 'tok-secret', borrower_entity_id: 'ent-1' }, 'svc-2': { available: true } },
    });
    expect(JSON.stringify(answerObject(status))).not.toContain('tok-secret');
    expect(renderAnswer(status, 'text')).toBe('svc-1: checked out (borrower entity ent-1)\nsvc-2: available\n');
    expect(renderAnswer(status, 'json')).not.toContain('tok-secret');
  });

  test('check-in with nothing checked in says so; env is refused for operations without credentials', () => {
    expect(renderAnswer(answer({ operation: 'check-in', returnsCredentials: false, fields: { check_ins: [] } }), 'text')).toBe('Checked in: (none)\n');
    expect(() => renderAnswer(answer({ operation: 'status', returnsCredentials: false }), 'env')).toThrow('--format env is for operations that return credentials');
    expect(() => parseOperationFormat('yaml')).toThrow('--format must be one of text, json, env, got "yaml"');
  });
});
