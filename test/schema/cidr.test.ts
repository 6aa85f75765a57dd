/** CIDRs parsed as a NetworkPolicy reads them (schema/src/cidr.ts), with the words and the fix a refusal gives. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cidrProblem, isParsedCidr, parseCidr } from '../../schema/src/cidr.ts';

describe('cidrProblem', () => {
  it('accepts ranges without host bits, IPv4 and IPv6 (with "::" and a trailing dotted quad)', () => {
    for (const cidr of [
      '0.0.0.0/0',
      '10.0.0.0/8',
      '203.0.113.7/32',
      '::/0',
      '::1/128',
      'fd00::/8',
      '2001:db8::/32',
      '64:ff9b::/96',
      '::10.0.0.0/104',
      'FD00::/8',
    ])
      assert.equal(cidrProblem(cidr), undefined, cidr);
  });

  it('refuses what the API server refuses, saying what to write', () => {
    const cases: [string, RegExp, RegExp?][] = [
      ['10.96.0.1/33', /prefix length \/33 is more than an IPv4 address has \(32 bits\)/],
      ['300.96.0.1/32', /300 in "300.96.0.1" is not an IPv4 octet/],
      ['::::/129', /"::::" is not an IPv6 address/],
      ['2001:db8::/129', /prefix length \/129 is more than an IPv6 address has \(128 bits\)/],
      ['10.96.0.1', /has no prefix length/, /write "10.96.0.1\/32" for this one address/],
      ['fd00::1', /has no prefix length/, /"fd00::1\/128"/],
      [
        '10.0.0.1/8',
        /has bits set after its \/8 prefix/,
        /write "10.0.0.0\/8" for the range, or "10.0.0.1\/32"/,
      ],
      ['fd00::1/8', /bits set after its \/8 prefix/, /"fd00::\/8" for the range, or "fd00::1\/128"/],
      ['010.0.0.0/8', /leading zero/],
      ['10.0.0.0/08', /not a number without leading zeros/],
      ['1.2.3/24', /not an IPv4 address \(four numbers/],
      ['fe80::1%eth0/64', /not an IPv6 address/],
      ['[::1]/128', /not an IPv6 address/],
      ['::ffff:10.0.0.0/104', /IPv4-mapped/, /write it as IPv4: "10.0.0.0\/8"/],
      ['everywhere', /"everywhere" is not an IP address/],
      ['', /"" is not an IP address/],
    ];
    for (const [cidr, message, hint] of cases) {
      const problem = cidrProblem(cidr);
      assert.ok(problem, `${cidr} is refused`);
      assert.match(problem.message, message, cidr);
      if (hint) assert.match(problem.hint ?? '', hint, cidr);
      assert.doesNotMatch(`${problem.message} ${problem.hint ?? ''}`, /\^|\$\)/, 'no regular expression');
    }
  });

  it('accepts an IPv4-mapped range where the broker reads it (deniedCidrs), and only there', () => {
    assert.equal(cidrProblem('::ffff:0:0/96', { allowIpv4Mapped: true }), undefined);
    assert.ok(cidrProblem('::ffff:0:0/96'));
  });

  it('parses the address and prefix', () => {
    const parsed = parseCidr('2001:db8::/32');
    assert.ok(isParsedCidr(parsed));
    assert.equal(parsed.family, 6);
    assert.equal(parsed.prefix, 32);
    assert.equal(parsed.address, 0x20010db8n << 96n);
  });
});
