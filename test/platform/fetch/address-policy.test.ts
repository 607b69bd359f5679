import { describe, expect, it } from 'vitest';
import {
  addressRefusal,
  isHostAllowed,
  parseAllowEntry,
  urlRefusal,
} from '../../../src/platform/fetch/address-policy.js';
import { GatewayError } from '../../../src/errors.js';

const strict = { allowLoopback: false };
const loopbackAllowed = { allowLoopback: true };

describe('addressRefusal', () => {
  it.each([
    ['127.0.0.1', 'loopback address'],
    ['127.255.0.9', 'loopback address'],
    ['::1', 'loopback address'],
    ['0.0.0.0', 'unspecified address'],
    ['0.1.2.3', 'unspecified address'],
    ['::', 'unspecified address'],
    ['169.254.1.1', 'link-local address'],
    ['fe80::1', 'link-local address'],
    ['febf::1', 'link-local address'],
    ['fe80::1%eth0', 'link-local address'],
    ['169.254.169.254', 'cloud metadata address'],
    ['100.100.100.200', 'cloud metadata address'],
    ['168.63.129.16', 'cloud metadata address'],
    ['fd00:ec2::254', 'cloud metadata address'],
    ['224.0.0.1', 'multicast address'],
    ['239.255.255.250', 'multicast address'],
    ['ff02::1', 'multicast address'],
    ['255.255.255.255', 'broadcast address'],
    ['not-an-ip', 'not an IP address'],
  ])('refuses %s (%s)', (address, reason) => {
    expect(addressRefusal(address, strict)).toBe(reason);
  });

  it.each([
    ['::ffff:127.0.0.1', 'loopback address'],
    ['::ffff:7f00:1', 'loopback address'],
    ['::ffff:169.254.169.254', 'cloud metadata address'],
    ['::ffff:a9fe:101', 'link-local address'],
    ['::ffff:0.0.0.0', 'unspecified address'],
  ])('judges IPv4-mapped %s as its IPv4 address', (address, reason) => {
    expect(addressRefusal(address, strict)).toBe(reason);
  });

  it.each(['10.0.0.5', '172.16.0.1', '172.31.255.254', '192.168.1.20', 'fc00::1', 'fd12:3456::1', '::ffff:10.1.2.3'])(
    'allows private address %s',
    (address) => {
      expect(addressRefusal(address, strict)).toBeNull();
    },
  );

  it.each(['8.8.8.8', '100.64.0.1', '169.253.255.255', '169.255.0.1', '223.255.255.255', '2001:db8::1', 'fec0::1'])(
    'allows ordinary address %s',
    (address) => {
      expect(addressRefusal(address, strict)).toBeNull();
    },
  );

  it.each([
    ['64:ff9b::10.0.0.5', 'NAT64 address of a non-public IPv4 address'],
    ['64:ff9b::a00:5', 'NAT64 address of a non-public IPv4 address'],
    ['64:ff9b::127.0.0.1', 'NAT64 address of a non-public IPv4 address'],
    ['64:ff9b::169.254.169.254', 'NAT64 address of a non-public IPv4 address'],
    ['64:ff9b::172.16.0.1', 'NAT64 address of a non-public IPv4 address'],
    ['64:ff9b::192.168.1.20', 'NAT64 address of a non-public IPv4 address'],
    ['64:ff9b::100.64.0.1', 'NAT64 address of a non-public IPv4 address'],
    ['64:ff9b::0.0.0.0', 'NAT64 address of a non-public IPv4 address'],
    ['64:ff9b::255.255.255.255', 'NAT64 address of a non-public IPv4 address'],
    ['64:ff9b:1::8.8.8.8', 'local-use NAT64 address'],
    ['64:ff9b:1:a00:5::', 'local-use NAT64 address'],
    ['2002:a00:5::1', '6to4 address'],
    ['2002:808:808::1', '6to4 address'],
    ['::10.0.0.5', 'IPv4-compatible IPv6 address'],
    ['::7f00:1', 'IPv4-compatible IPv6 address'],
    ['::8.8.8.8', 'IPv4-compatible IPv6 address'],
  ])('refuses the IPv4-embedding form %s (%s)', (address, reason) => {
    expect(addressRefusal(address, strict)).toBe(reason);
    expect(addressRefusal(address, loopbackAllowed)).toBe(reason);
  });

  it.each(['64:ff9b::8.8.8.8', '64:ff9b::808:808', '64:ff9b::1.1.1.1', '64:ff9b:0:1::a00:5', '2003::1', '2001:db8::a00:5'])(
    'allows %s: a NAT64 address of a public IPv4 address, or no embedding form at all',
    (address) => {
      expect(addressRefusal(address, strict)).toBeNull();
    },
  );

  it('allows loopback only when permitted, and only loopback', () => {
    expect(addressRefusal('127.0.0.1', loopbackAllowed)).toBeNull();
    expect(addressRefusal('::1', loopbackAllowed)).toBeNull();
    expect(addressRefusal('::ffff:127.0.0.1', loopbackAllowed)).toBeNull();
    expect(addressRefusal('0.0.0.0', loopbackAllowed)).toBe('unspecified address');
    expect(addressRefusal('::', loopbackAllowed)).toBe('unspecified address');
    expect(addressRefusal('169.254.169.254', loopbackAllowed)).toBe('cloud metadata address');
    expect(addressRefusal('fe80::1', loopbackAllowed)).toBe('link-local address');
  });
});

describe('allowlist', () => {
  it('parses host and host:port entries', () => {
    expect(parseAllowEntry('Store.Hospital.Local')).toEqual({ host: 'store.hospital.local', port: null });
    expect(parseAllowEntry('store.hospital.local:9000')).toEqual({ host: 'store.hospital.local', port: 9000 });
    expect(parseAllowEntry('10.0.0.5:9000')).toEqual({ host: '10.0.0.5', port: 9000 });
    expect(parseAllowEntry('[FD12::1]:9000')).toEqual({ host: 'fd12::1', port: 9000 });
    expect(parseAllowEntry('fd12:0:0::1')).toEqual({ host: 'fd12::1', port: null });
  });

  it.each(['', 'host:', 'host:70000', 'host:abc', 'a:b:c:d', '[fd12::1'])('rejects malformed entry "%s"', (entry) => {
    expect(() => parseAllowEntry(entry)).toThrow(GatewayError);
  });

  it('allows everything when the allowlist is empty', () => {
    expect(isHostAllowed(new URL('http://anything.example/'), [])).toBe(true);
  });

  it('matches the host, ignoring case, on any port when the entry has none', () => {
    const allowList = [parseAllowEntry('store.local')];
    expect(isHostAllowed(new URL('http://STORE.local/a'), allowList)).toBe(true);
    expect(isHostAllowed(new URL('https://store.local:8443/a'), allowList)).toBe(true);
    expect(isHostAllowed(new URL('http://other.local/a'), allowList)).toBe(false);
    expect(isHostAllowed(new URL('http://store.local.evil.example/a'), allowList)).toBe(false);
  });

  it('matches the effective port when the entry names one', () => {
    const allowList = [parseAllowEntry('store.local:443'), parseAllowEntry('10.0.0.5:9000')];
    expect(isHostAllowed(new URL('https://store.local/x'), allowList)).toBe(true);
    expect(isHostAllowed(new URL('http://store.local/x'), allowList)).toBe(false);
    expect(isHostAllowed(new URL('http://10.0.0.5:9000/x'), allowList)).toBe(true);
    expect(isHostAllowed(new URL('http://10.0.0.5:9001/x'), allowList)).toBe(false);
  });

  it('matches IPv6 hosts without brackets', () => {
    const allowList = [parseAllowEntry('[fd12::1]:9000')];
    expect(isHostAllowed(new URL('http://[fd12:0::1]:9000/x'), allowList)).toBe(true);
    expect(isHostAllowed(new URL('http://[fd12::2]:9000/x'), allowList)).toBe(false);
  });
});

describe('urlRefusal', () => {
  it.each(['file:///etc/passwd', 'ftp://store.local/x', 'data:text/plain,hi', 'gopher://store.local/'])(
    'refuses the scheme of %s',
    (url) => {
      expect(urlRefusal(new URL(url), [])).toMatch(/^scheme ".+:" not allowed$/);
    },
  );

  it('accepts http and https', () => {
    expect(urlRefusal(new URL('http://store.local/'), [])).toBeNull();
    expect(urlRefusal(new URL('https://store.local/'), [])).toBeNull();
  });

  it('refuses hosts outside a non-empty allowlist', () => {
    const allowList = [parseAllowEntry('store.local')];
    expect(urlRefusal(new URL('http://other.local/'), allowList)).toBe('host other.local not in FETCH_ALLOW_HOSTS');
    expect(urlRefusal(new URL('http://store.local/'), allowList)).toBeNull();
  });
});
