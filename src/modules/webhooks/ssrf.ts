// The service now fetches URLs that clients configure (webhook endpoints), so it must not be made
// to reach what only it can reach: loopback, private networks, link-local (cloud metadata at
// 169.254.169.254 and fd00:ec2::254), and every other range of IANA's special-purpose registries.
// Addresses are checked after DNS, at delivery time: the request's own lookup is this module's
// guardedLookup, so the connection goes to an address that was checked (no second lookup to
// rebind); redirects are never followed. WEBHOOK_ALLOW_PRIVATE_NETWORKS=true lifts the check.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

// IANA's IPv4 Special-Purpose Address Registry, every entry (also the few marked globally
// reachable: no webhook receiver lives there), and multicast, reserved and broadcast.
const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // shared address space (carrier-grade NAT)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments (DS-Lite, NAT64 discovery, …)
  ['192.0.2.0', 24], // documentation (TEST-NET-1)
  ['192.31.196.0', 24], // AS112-v4
  ['192.52.193.0', 24], // AMT
  ['192.88.99.0', 24], // deprecated 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['192.175.48.0', 24], // direct delegation AS112
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation (TEST-NET-2)
  ['203.0.113.0', 24], // documentation (TEST-NET-3)
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and 255.255.255.255 (limited broadcast)
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}

// IANA's IPv6 Special-Purpose Address Registry and the other non-unicast or deprecated ranges, as
// [prefix, length]. The ranges that embed an IPv4 address other than ::ffff:0:0/96 (IPv4-compatible,
// NAT64, 6to4, Teredo) are refused whole: through a translator they reach whatever IPv4 address
// they carry, private ones included.
const BLOCKED_V6: [string, number][] = [
  ['::', 96], // unspecified, loopback (::1) and IPv4-compatible (deprecated)
  ['64:ff9b::', 96], // NAT64 well-known prefix
  ['64:ff9b:1::', 48], // NAT64 local-use
  ['100::', 64], // discard-only
  ['100:0:0:1::', 64], // dummy prefix
  ['2001::', 23], // IETF protocol assignments: Teredo, benchmarking, AMT, AS112, ORCHID, drone remote ID
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4
  ['2620:4f:8000::', 48], // direct delegation AS112
  ['3fff::', 20], // documentation
  ['5f00::', 16], // segment routing (SRv6) SIDs
  ['fc00::', 7], // unique local, fd00:ec2::254 (cloud metadata) among them
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
];
const BLOCKED_V6_BITS = BLOCKED_V6.map(([network, length]) => ({ bits: ipv6Bits(network)!, length }));

/** An IPv6 address as 128 bits, or undefined when it is not one (a zone index is dropped). */
function ipv6Bits(address: string): bigint | undefined {
  let text = address.toLowerCase().replace(/%.*$/, '');
  if (isIP(text) !== 6) return undefined;
  // A dotted IPv4 tail (::ffff:10.0.0.1) becomes two groups.
  const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (tail) {
    const [a, b, c, d] = tail.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const left = head === '' ? [] : head.split(':');
  const right = rest === undefined || rest === '' ? [] : rest.split(':');
  const groups = rest === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.reduce((bits, group) => (bits << 16n) | BigInt(parseInt(group, 16)), 0n);
}

const inPrefix = (bits: bigint, prefix: { bits: bigint; length: number }) => bits >> BigInt(128 - prefix.length) === prefix.bits >> BigInt(128 - prefix.length);

/** True for an address a webhook may not reach: loopback, private, link-local, metadata, multicast, reserved. */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address.replace(/%.*$/, ''));
  if (family === 4) return blocked.check(address, 'ipv4');
  const bits = family === 6 ? ipv6Bits(address) : undefined;
  if (bits === undefined) return true;
  // An IPv4 address mapped into IPv6 (::ffff:0:0/96, in any spelling) is that IPv4 address.
  if (bits >> 32n === 0xffffn) {
    const v4 = Number(bits & 0xffffffffn);
    return blocked.check(`${v4 >>> 24}.${(v4 >>> 16) & 255}.${(v4 >>> 8) & 255}.${v4 & 255}`, 'ipv4');
  }
  return BLOCKED_V6_BITS.some((prefix) => inPrefix(bits, prefix));
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
