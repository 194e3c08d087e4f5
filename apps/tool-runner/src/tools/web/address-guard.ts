import { lookup as dnsLookup } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** Addresses a fetch from the runner must not reach unless allowed: loopback, private, link-local and the like. */
const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  blocked.addSubnet(net, prefix, 'ipv6');

/** Whether an IP address (v4, v6, or v4-mapped v6) is loopback, private, link-local, reserved or multicast. */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return blocked.check(mapped[1], 'ipv4');
  const family = isIP(address);
  if (family === 0) return true;
  return blocked.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * Why the host of `url` may not be fetched (it is, or resolves to, a private or loopback address), or null when it
 * may. Every address the name resolves to is checked.
 */
export async function privateHostProblem(url: URL): Promise<string | null> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
  const bad = addresses.find(isPrivateAddress);
  return bad === undefined ? null : `${url.hostname} is a private or loopback address (${bad})`;
}

type LookupCallback = (
  error: Error | null,
  address: string | { address: string; family: number }[],
  family?: number,
) => void;

/**
 * A `lookup` for sockets that refuses names resolving to a private or loopback address, so the address checked is the
 * address connected to (a name cannot resolve to a public address when checked and a private one when connected).
 */
export function publicOnlyLookup(
  refuse: (message: string) => Error,
): (hostname: string, options: object, callback: LookupCallback) => void {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const bad = addresses.find((a) => isPrivateAddress(a.address));
      if (bad) return callback(refuse(`${hostname} is a private or loopback address (${bad.address})`), []);
      const all = (options as { all?: boolean }).all === true;
      const first = addresses[0];
      if (all || !first) return callback(null, addresses);
      callback(null, first.address, first.family);
    });
  };
}
