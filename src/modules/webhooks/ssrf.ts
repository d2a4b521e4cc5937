// The service now fetches URLs that clients configure (webhook endpoints), so it must not be made
// to reach what only it can reach: loopback, private networks, link-local (cloud metadata at
// 169.254.169.254 and fd00:ec2::254), and other special ranges. Addresses are checked after DNS, at
// delivery time, and the connection goes to the address that was checked (no second lookup to
// rebind); redirects are never followed. WEBHOOK_ALLOW_PRIVATE_NETWORKS=true lifts the check.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

/** True for an address a webhook may not reach: loopback, private, link-local, metadata, multicast, reserved. */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family !== 6) return true;
  const lower = address.toLowerCase();
  // An IPv4 address mapped into IPv6 (::ffff:10.0.0.1) is that IPv4 address.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (mapped) return blocked.check(mapped[1]!, 'ipv4');
  return blocked.check(lower, 'ipv6');
}

export class ForbiddenAddress extends Error {
  readonly code = 'EFORBIDDENADDRESS';
  constructor(host: string, address: string) {
    super(`${host} resolves to ${address}, a loopback, private, link-local or reserved address (WEBHOOK_ALLOW_PRIVATE_NETWORKS=true permits it)`);
  }
}

/** A DNS lookup for http.request that refuses forbidden addresses and returns only checked ones. */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as LookupAddress[];
      const bad = list.find((a) => isForbiddenAddress(a.address));
      if (bad && !allowPrivate) return callback(new ForbiddenAddress(hostname, bad.address), '', 0);
      const first = list[0];
      if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      return callback(null, first.address, first.family);
    });
  };
}

/** Why a URL cannot be a webhook endpoint, or undefined: http(s), a host, no credentials in it. */
export function endpointUrlProblem(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'is not a URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an http or https URL';
  if (url.username || url.password) return 'must not carry a user name or password';
  if (!url.hostname) return 'must name a host';
  if (raw.length > 2000) return 'must be at most 2000 characters';
  return undefined;
}
