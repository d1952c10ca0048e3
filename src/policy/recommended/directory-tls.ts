/** The directory engine talks to the directory over verified TLS: the bind password and every rotated one cross that link. */
import { definePolicy } from '../policy';
import { effectiveValue, modelField } from './model-facts';

const BACKEND = 'ldap_secret_backend';
const URL = modelField(BACKEND, 'url');
const STARTTLS = modelField(BACKEND, 'starttls');
const INSECURE_TLS = modelField(BACKEND, 'insecure_tls');

export const ldapTls = definePolicy({
  id: 'ldap-tls',
  description: 'The directory engine connects over TLS (ldaps:// URLs or StartTLS): bind and rotated passwords never cross the network in clear.',
  enforcement: 'mandatory',
  resourceTypes: [BACKEND],
  check(resource) {
    if (resource.desired === null || effectiveValue(resource, STARTTLS) === true) return [];
    const url = effectiveValue(resource, URL);
    const plain = (typeof url === 'string' ? url : '').split(',').map((entry) => entry.trim()).filter((entry) => !entry.toLowerCase().startsWith('ldaps://'));
    return plain.length > 0
      ? [{ field: URL.api, message: `${plain.join(', ')} ${plain.length === 1 ? 'is' : 'are'} unencrypted; use ldaps:// or set starttls` }]
      : [];
  },
});

export const ldapTlsVerified = definePolicy({
  id: 'ldap-tls-verified',
  description: "The directory engine verifies the directory's certificate (insecure_tls stays false): TLS without verification does not stop an impostor.",
  enforcement: 'mandatory',
  resourceTypes: [BACKEND],
  check(resource) {
    if (resource.desired === null) return [];
    return effectiveValue(resource, INSECURE_TLS) === true
      ? [{ field: INSECURE_TLS.api, message: "the directory's certificate is not verified; remove insecureTls (give certificate for a private CA)" }]
      : [];
  },
});
