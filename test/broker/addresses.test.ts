/** CIDR parsing and matching, IPv4 and IPv6, including IPv6 forms that carry an IPv4 address. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  deniedBy,
  parseCidr,
  parseCidrs,
  parseIp,
  parseIpv4,
  parseIpv6,
} from '../../toolchain-server/broker/addresses.ts';
import { DEFAULT_DENIED_CIDRS } from '../../toolchain-server/broker/config.ts';

const DEFAULTS = parseCidrs(DEFAULT_DENIED_CIDRS);
const denied = (address: string) => {
  const ip = parseIp(address);
  assert.ok(ip, `${address} does not parse`);
  return deniedBy(ip, DEFAULTS)?.text;
};

describe('addresses', () => {
  it('parses strict dotted quads only', () => {
    assert.equal(parseIpv4('10.1.2.3'), 0x0a010203n);
    for (const bad of ['10.1.2', '10.1.2.3.4', '010.1.2.3', '0x7f.0.0.1', '256.1.1.1', '1.2.3.-1', ''])
      assert.equal(parseIpv4(bad), undefined, bad);
  });

  it('parses IPv6 text forms', () => {
    assert.equal(parseIpv6('::1'), 1n);
    assert.equal(parseIpv6('::'), 0n);
    assert.equal(parseIpv6('[fe80::1]'), (0xfe80n << 112n) | 1n);
    assert.equal(parseIpv6('::ffff:127.0.0.1'), (0xffffn << 32n) | 0x7f000001n);
    assert.equal(parseIpv6('1:2:3:4:5:6:7:8'), 0x00010002000300040005000600070008n);
    assert.equal(parseIpv6('64:ff9b::10.0.0.1'), (0x64ff9bn << 96n) | 0x0a000001n);
    for (const bad of ['1:2:3:4:5:6:7:8:9', '1::2::3', 'fe80::1%eth0', 'g::1', '1:2:3:4:5:6:7', ':::'])
      assert.equal(parseIpv6(bad), undefined, bad);
  });

  it('parses CIDRs and refuses host bits beyond the prefix', () => {
    assert.deepEqual(parseCidr('10.0.0.0/8'), {
      family: 4,
      network: 0x0a000000n,
      prefix: 8,
      text: '10.0.0.0/8',
    });
    assert.equal(parseCidr('10.0.0.1/8'), undefined);
    assert.equal(parseCidr('10.0.0.0/33'), undefined);
    assert.equal(parseCidr('10.0.0.0'), undefined);
    assert.equal(parseCidr('fc00::/7')?.prefix, 7);
    assert.equal(parseCidr('0.0.0.0/0')?.prefix, 0);
  });

  it('denies private, loopback, link-local, metadata and CGNAT addresses by default', () => {
    assert.equal(denied('127.0.0.1'), '127.0.0.0/8');
    assert.equal(denied('10.96.0.1'), '10.0.0.0/8');
    assert.equal(denied('172.31.255.255'), '172.16.0.0/12');
    assert.equal(denied('192.168.1.1'), '192.168.0.0/16');
    assert.equal(denied('169.254.169.254'), '169.254.0.0/16');
    assert.equal(denied('100.100.100.200'), '100.64.0.0/10');
    assert.equal(denied('0.0.0.0'), '0.0.0.0/8');
    assert.equal(denied('::1'), '::1/128');
    assert.equal(denied('fd00:ec2::254'), 'fc00::/7');
    assert.equal(denied('fe80::1'), 'fe80::/10');
  });

  it('denies IPv6 forms that carry a denied IPv4 address, even with only IPv4 ranges listed', () => {
    const v4only = parseCidrs(['127.0.0.0/8', '169.254.0.0/16']);
    for (const address of ['::ffff:127.0.0.1', '::127.0.0.1', '64:ff9b::169.254.169.254', '2002:7f00:1::'])
      assert.ok(deniedBy(parseIp(address)!, v4only), address);
    assert.equal(deniedBy(parseIp('::ffff:8.8.8.8')!, v4only), undefined);
  });

  it('allows public addresses', () => {
    for (const address of [
      '8.8.8.8',
      '1.1.1.1',
      '151.101.1.1',
      '2606:4700::6810:84e5',
      '2a00:1450:4001:80b::200e',
    ])
      assert.equal(denied(address), undefined, address);
  });
});
