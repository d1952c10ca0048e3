/** The forms string values take in the service (names, paths, URLs, certificates), as rules a field declares. */
import { isIP } from 'node:net';
import type { FormatRule } from './types';

export function matching(pattern: RegExp, message: string): FormatRule {
  return { test: (value) => pattern.test(value), message };
}

/** A mount path: segments of letters, digits, `_`, `-`, `.`, separated by `/`, no leading or trailing `/`. */
export const MOUNT_PATH = [
  matching(/^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)*$/, 'a mount path: letters, digits, "_", "-", "." in segments separated by "/", without a leading or trailing "/"'),
];

/** A name that is one path segment. */
export const SEGMENT_NAME = [matching(/^[A-Za-z0-9_.@-]+$/, 'a name of letters, digits, "_", "-", ".", "@" (no "/" or spaces)')];

/** A name that may hold `/` to form a hierarchy (directory roles and sets). */
export const HIERARCHICAL_NAME = [
  matching(
    /^[A-Za-z0-9_.@-]+(\/[A-Za-z0-9_.@-]+)*$/,
    'a name of letters, digits, "_", "-", ".", "@", optionally in "/"-separated levels (no leading, trailing or double "/")',
  ),
];

/** The service's rule for userpass user names. */
export const USERPASS_USERNAME = [
  matching(/^[A-Za-z0-9_.-]+$/, 'letters, digits, "_", "-" and "." only'),
  { test: (name: string) => !name.startsWith('-'), message: 'must not begin with "-"' },
  { test: (name: string) => !name.startsWith('.') && !name.endsWith('.'), message: 'must not begin or end with "."' },
];

/** A secret path in a KV mount. */
export const SECRET_PATH = [matching(/^[^/\s]+(\/[^/\s]+)*$/, 'a secret path without leading, trailing or double "/" and without spaces')];

export const DIGITS = (what: string) => [matching(/^\d+$/, `${what}: digits`)];

const PEM_CERTIFICATE = /^\s*(-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\s*)+$/;
export const PEM_CERTIFICATES = [matching(PEM_CERTIFICATE, 'one or more PEM certificates (-----BEGIN CERTIFICATE----- ...)')];
export const PEM_CERTIFICATE_ONE = [matching(PEM_CERTIFICATE, 'a PEM certificate (-----BEGIN CERTIFICATE----- ...)')];

const LDAP_URL = /^ldaps?:\/\/[^\s,]+$/;
export const LDAP_URLS = [
  { test: (value: string) => value.split(',').every((url) => LDAP_URL.test(url.trim())), message: 'an ldap:// or ldaps:// URL, or a comma-separated list of them' },
];

export const HTTPS_URI = [matching(/^https:\/\/[^\s/]+(\/.*)?$/, 'an https URI of the key vault')];

/** An element of a list the service takes comma-separated. */
export const NO_COMMA = [matching(/^[^,]+$/, 'a non-empty tag without "," (tags are sent comma-separated)')];

/** An IPv4 or IPv6 address, optionally with a prefix length. */
export function isCidr(value: string): boolean {
  const [address, prefix, ...rest] = value.split('/');
  if (rest.length > 0) return false;
  const version = isIP(address);
  if (version === 0) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (version === 4 ? 32 : 128);
}

export const CIDR = [{ test: isCidr, message: 'a CIDR block such as "10.0.0.0/8" or "2001:db8::/32", or a single IP address' }];
