/**
 * Which redirects the client follows. A standby node answers 307 to the active node, and a load balancer
 * 301/308 from http to https; following blindly would send the token to whoever the Location names, and
 * treating a 3xx as success would record writes that never happened.
 *
 * - Only 307 and 308 are followed: they keep the method and body, so a write is re-sent as it was.
 *   301, 302 and 303 let clients turn a POST into a GET: for a write that would lose the body, so they (and
 *   every other 3xx) are errors naming the status and the Location.
 * - Only to the same origin, or from http to https on the same host (any port); never from https to http,
 *   never to another host: the token goes only where SERVICE_ADDR points.
 * - At most MAX_REDIRECTS hops; a URL seen twice in one chain is a loop.
 */

export const MAX_REDIRECTS = 5;

export type RedirectDecision = { follow: true; url: URL } | { follow: false; reason: string };

export function decideRedirect(input: {
  status: number;
  location: string | undefined;
  /** The URL the redirecting response answered. */
  current: URL;
  /** URLs requested so far in this chain, the first one included. */
  visited: readonly string[];
}): RedirectDecision {
  const { status, location, current, visited } = input;
  if (status !== 307 && status !== 308) {
    return { follow: false, reason: `only 307 and 308 keep the method and body; HTTP ${status} is not followed` };
  }
  if (location === undefined || location.trim() === '') return { follow: false, reason: 'the redirect names no target' };
  let target: URL;
  try {
    target = new URL(location, current);
  } catch {
    return { follow: false, reason: 'the target is not a URL' };
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return { follow: false, reason: `the target uses ${target.protocol}` };
  if (current.protocol === 'https:' && target.protocol === 'http:') {
    return { follow: false, reason: 'it leaves https for plain http, which would send the token unencrypted' };
  }
  const upgrade = current.protocol === 'http:' && target.protocol === 'https:' && target.hostname === current.hostname;
  if (target.origin !== current.origin && !upgrade) {
    return { follow: false, reason: `it leads to another server (${target.origin}), and the token is only sent to SERVICE_ADDR` };
  }
  if (target.username !== '' || target.password !== '') return { follow: false, reason: 'the target carries credentials' };
  if (visited.includes(target.href)) return { follow: false, reason: 'redirect loop (the target was already requested)' };
  if (visited.length > MAX_REDIRECTS) return { follow: false, reason: `more than ${MAX_REDIRECTS} redirects` };
  return { follow: true, url: target };
}
