/**
 * The request path's shortcut for plain paths (letters, digits, `-`, `_`, `/`) agrees with the full checks and
 * the full encoding on any path, plain or not: the shortcut only skips work, never a refusal.
 */
import fc from 'fast-check';
import { checkedPathProblem, encodePath, encodeSegments, pathProblem } from '../../src/client/request-path';

const pathCharacter = fc.constantFrom('a', 'Z', '0', '9', '_', '-', '/', '.', '%', '2', 'e', ' ', '?', '#', '\u0000', '\u00e9', '\ud800');
const anyPath = fc.array(pathCharacter, { maxLength: 24 }).map((characters) => characters.join(''));
const plainPath = fc.array(fc.stringMatching(/^[A-Za-z0-9_-]{1,8}$/), { minLength: 1, maxLength: 5 }).map((segments) => segments.join('/'));

test('pathProblem says what the full checks say, for any path', () => {
  fc.assert(fc.property(fc.oneof(anyPath, plainPath), (path) => pathProblem(path) === checkedPathProblem(path)), { numRuns: 5000 });
});

test('encodePath encodes as the full encoding does, for any path the checks let through', () => {
  const sendable = fc.oneof(anyPath, plainPath).filter((path) => pathProblem(path) === undefined);
  fc.assert(fc.property(sendable, (path) => encodePath(path) === encodeSegments(path)), { numRuns: 5000 });
});

test('the checks still refuse dot segments, empty segments and control characters', () => {
  expect(pathProblem('ldap/role/../config')).toContain('dot segment');
  expect(pathProblem('ldap//config')).toContain('empty segment');
  expect(pathProblem('ldap/ro\u0000le')).toContain('control character');
  expect(pathProblem('ldap/static-role/team/')).toBeUndefined();
});
