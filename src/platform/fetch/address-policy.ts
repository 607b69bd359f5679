/**
 * Pure rules on where the fetcher may go: which URLs, which hosts (FETCH_ALLOW_HOSTS) and
 * which resolved IP addresses. Private ranges stay allowed: hospital object stores live there.
 * IPv6 forms that carry an IPv4 address to a translator or tunnel are judged too, so that no
 * IPv4 address refused here is reachable by writing it inside an IPv6 one.
 */
import { BlockList, isIP } from 'node:net';
import { GatewayError } from '../../errors.js';

export interface AddressPolicy {
  allowLoopback: boolean;
}

export interface AllowEntry {
  host: string;
  port: number | null;
}

type Subnet = readonly [network: string, prefix: number];

function blockListOf(subnets: readonly Subnet[]): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of subnets) {
    list.addSubnet(network, prefix, isIP(network) === 6 ? 'ipv6' : 'ipv4');
  }
  return list;
}

const LOOPBACK = blockListOf([
  ['127.0.0.0', 8],
  ['::1', 128],
]);

// Metadata first: 169.254.169.254 is also link-local, but the narrower reason is the useful one.
const ALWAYS_REFUSED: ReadonlyArray<{ reason: string; list: BlockList }> = [
  {
    reason: 'cloud metadata address',
    list: blockListOf([
      ['169.254.169.254', 32],
      ['100.100.100.200', 32],
      ['168.63.129.16', 32],
      ['fd00:ec2::254', 128],
    ]),
  },
  { reason: 'unspecified address', list: blockListOf([['0.0.0.0', 8], ['::', 128]]) },
  { reason: 'link-local address', list: blockListOf([['169.254.0.0', 16], ['fe80::', 10]]) },
  { reason: 'multicast address', list: blockListOf([['224.0.0.0', 4], ['ff00::', 8]]) },
  { reason: 'broadcast address', list: blockListOf([['255.255.255.255', 32]]) },
];

/** IPv4 ranges that are not global (RFC 6890): what the well-known NAT64 prefix must never carry. */
const NON_GLOBAL_IPV4: readonly Subnet[] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3], // multicast, reserved and broadcast
];

/**
 * IPv6 forms that embed an IPv4 address. The well-known NAT64 prefix (RFC 6052) is what DNS64
 * answers for IPv4-only hosts on IPv6-only networks, so it stays usable for global addresses;
 * RFC 6052 forbids it for non-global ones, so such an address can only be an attempt to reach
 * the LAN or this machine behind the IPv4 rules. The other forms are refused whole: 6to4
 * (deprecated, RFC 7526) and IPv4-compatible addresses (deprecated, RFC 4291) have no place in
 * a hospital's object store URLs, and the local-use NAT64 prefix (RFC 8215) puts its IPv4
 * address at a bit offset only the network's own translator knows, so it cannot be judged.
 * Checked after loopback, as ::1 lies in ::/96.
 */
const EMBEDDED_IPV4: ReadonlyArray<{ reason: string; list: BlockList }> = [
  {
    reason: 'NAT64 address of a non-public IPv4 address',
    list: blockListOf(NON_GLOBAL_IPV4.map(([network, prefix]) => [`64:ff9b::${network}`, 96 + prefix] as const)),
  },
  { reason: 'local-use NAT64 address', list: blockListOf([['64:ff9b:1::', 48]]) },
  { reason: '6to4 address', list: blockListOf([['2002::', 16]]) },
  { reason: 'IPv4-compatible IPv6 address', list: blockListOf([['::', 96]]) },
];

/**
 * Why an address must not be connected to, or null when it may be. BlockList judges
 * IPv4-mapped IPv6 addresses (::ffff:127.0.0.1, ::ffff:7f00:1) by their IPv4 rules.
 */
export function addressRefusal(address: string, policy: AddressPolicy): string | null {
  const bare = address.replace(/%.*$/, ''); // BlockList never matches an address with a zone id
  const family = isIP(bare);
  if (family === 0) return 'not an IP address';
  const type = family === 6 ? 'ipv6' : 'ipv4';
  const refused = ALWAYS_REFUSED.find(({ list }) => list.check(bare, type));
  if (refused) return refused.reason;
  if (LOOPBACK.check(bare, type)) return policy.allowLoopback ? null : 'loopback address';
  return EMBEDDED_IPV4.find(({ list }) => list.check(bare, type))?.reason ?? null;
}

/** The URL's host as sockets see it: lowercase, IPv6 without brackets. */
export function urlHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

function effectivePort(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

const ENTRY_PATTERN = /^(?:\[(?<bracketed>[^\]]+)\]|(?<name>[^:[\]]+))(?::(?<port>\d{1,5}))?$/;

/** Parses a FETCH_ALLOW_HOSTS entry: "host", "host:port", "[v6]", "[v6]:port" or a bare IPv6 address. */
export function parseAllowEntry(entry: string): AllowEntry {
  const trimmed = entry.trim();
  if (isIP(trimmed) === 6) return { host: normalizeHost(`[${trimmed}]`, entry), port: null };
  const groups = ENTRY_PATTERN.exec(trimmed)?.groups;
  const port = groups?.port === undefined ? null : Number(groups.port);
  if (!groups || (port !== null && (port < 1 || port > 65_535))) throw invalidEntry(entry);
  const host = groups.bracketed === undefined ? groups.name ?? '' : `[${groups.bracketed}]`;
  return { host: normalizeHost(host, entry), port };
}

// Normalised by the same WHATWG parser that normalises fetched URLs, so both sides compare alike.
function normalizeHost(host: string, entry: string): string {
  try {
    return urlHost(new URL(`http://${host}/`));
  } catch {
    throw invalidEntry(entry);
  }
}

function invalidEntry(entry: string): GatewayError {
  return new GatewayError('internal', `invalid FETCH_ALLOW_HOSTS entry "${entry}"`, { retryable: false });
}

/** An empty allowlist allows every host; otherwise the host must match, and the port where the entry names one. */
export function isHostAllowed(url: URL, allowList: readonly AllowEntry[]): boolean {
  if (allowList.length === 0) return true;
  const host = urlHost(url);
  const port = effectivePort(url);
  return allowList.some((entry) => entry.host === host && (entry.port === null || entry.port === port));
}

/** Why a URL must not be fetched before any address is looked at, or null when it may be. */
export function urlRefusal(url: URL, allowList: readonly AllowEntry[]): string | null {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `scheme "${url.protocol}" not allowed`;
  if (!isHostAllowed(url, allowList)) return `host ${urlHost(url)} not in FETCH_ALLOW_HOSTS`;
  return null;
}
