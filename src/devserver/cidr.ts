import { BlockList, isIP } from 'node:net';

/** One parsed CIDR block (a plain address counts as a single-host block, as the service accepts both). */
export interface CidrBlock {
  /** The text as written (trimmed): what reads return. */
  text: string;
  address: string;
  prefixLength: number;
  family: 'ipv4' | 'ipv6';
}

/** Parses `10.0.0.0/8`, `2001:db8::/32` or a plain address; returns undefined when the text is not a CIDR. */
export function parseCidr(raw: string): CidrBlock | undefined {
  const text = raw.trim();
  const [address, prefix, extra] = text.split('/');
  if (extra !== undefined) return undefined;
  const version = isIP(address);
  if (version === 0) return undefined;
  const family = version === 4 ? 'ipv4' : 'ipv6';
  const maxPrefix = version === 4 ? 32 : 128;
  if (prefix === undefined) return { text, address, prefixLength: maxPrefix, family };
  if (!/^\d{1,3}$/.test(prefix)) return undefined;
  const prefixLength = parseInt(prefix, 10);
  if (prefixLength > maxPrefix) return undefined;
  return { text, address, prefixLength, family };
}

/**
 * Whether `remoteAddress` lies in any of the blocks. IPv4 clients reaching a dual-stack socket show up as
 * `::ffff:a.b.c.d`; BlockList matches those against IPv4 blocks too.
 */
export function addressInCidrs(remoteAddress: string, blocks: CidrBlock[]): boolean {
  const version = isIP(remoteAddress);
  if (version === 0) return false;
  const list = new BlockList();
  for (const block of blocks) list.addSubnet(block.address, block.prefixLength, block.family);
  return list.check(remoteAddress, version === 4 ? 'ipv4' : 'ipv6');
}
