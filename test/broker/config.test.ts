/** The broker config contract: defaults, and every refusal naming its field. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type BrokerConfigInput,
  DEFAULT_DENIED_CIDRS,
  hostMatches,
  parseBrokerConfig,
} from '../../toolchain-server/broker/config.ts';

const BASE: BrokerConfigInput = {
  agent: 'reviewer',
  listen: { port: 8480 },
  health: { port: 9480 },
  routes: [
    {
      name: 'anthropic',
      kind: 'model',
      upstream: 'https://api.anthropic.com',
      credential: { file: '/k/anthropic/key', header: 'x-api-key' },
    },
  ],
  callers: [{ name: 'claude', tokenFile: '/t/claude', routes: ['anthropic'] }],
};

function issues(patch: Partial<BrokerConfigInput>): string[] {
  const result = parseBrokerConfig({ ...BASE, ...patch });
  assert.equal(result.ok, false, 'expected the config to be refused');
  return result.ok ? [] : result.issues.map((i) => `${i.path}: ${i.message}`);
}

describe('broker config', () => {
  it('applies defaults', () => {
    const result = parseBrokerConfig(BASE);
    assert.ok(result.ok);
    const config = result.config;
    assert.equal(config.listen.host, '0.0.0.0');
    assert.deepEqual(config.deniedCidrs, [...DEFAULT_DENIED_CIDRS]);
    assert.equal(config.limits.maxHeaderBytes, 32 * 1024);
    assert.equal(config.routes[0]!.insecureHttp, false);
    assert.equal(config.routes[0]!.credential!.prefix, '');
    assert.deepEqual(config.callers[0]!.egress, []);
    assert.deepEqual(config.callers[0]!.openPorts, []);
  });

  it('refuses duplicate route and caller names and unknown route references', () => {
    assert.deepEqual(issues({ routes: [BASE.routes![0]!, BASE.routes![0]!] }), [
      '/routes/1/name: duplicate route "anthropic"',
    ]);
    assert.deepEqual(
      issues({
        callers: [
          { name: 'claude', tokenFile: '/t/a', routes: ['openai'] },
          { name: 'claude', tokenFile: '/t/b' },
        ],
      }),
      ['/callers/0/routes/0: no route "openai"', '/callers/1/name: duplicate caller "claude"'],
    );
  });

  it('refuses plain-HTTP upstreams unless insecureHttp, and upstreams with query, fragment or user info', () => {
    const route = (upstream: string, insecureHttp = false) => ({
      routes: [{ name: 'anthropic', kind: 'model' as const, upstream, insecureHttp }],
    });
    assert.match(
      issues(route('http://api.anthropic.com')).join(),
      /\/routes\/0\/upstream: must be an https:\/\/ origin/,
    );
    assert.ok(parseBrokerConfig({ ...BASE, ...route('http://fake-anthropic:8080', true) }).ok);
    for (const upstream of ['https://a.example/?x=1', 'https://a.example/#f', 'https://u:p@a.example'])
      assert.match(issues(route(upstream)).join(), /no query, fragment or user info/, upstream);
    assert.match(issues(route('not a url')).join(), /\/routes\/0\/upstream/);
  });

  it('refuses egress hosts that are not lower-case names (IP literals, bare wildcards, upper case)', () => {
    for (const host of ['10.0.0.1', '*', '*.com', 'Crates.io', 'crates.io.', '*.*.io', 'a..io'])
      assert.match(
        issues({ callers: [{ name: 'claude', tokenFile: '/t', egress: [{ host }] }] }).join(),
        /\/callers\/0\/egress\/0\/host/,
        host,
      );
    const ok = parseBrokerConfig({
      ...BASE,
      callers: [{ name: 'c', tokenFile: '/t', egress: [{ host: '*.crates.io' }] }],
    });
    assert.ok(ok.ok);
    assert.deepEqual(ok.config.callers[0]!.egress[0]!.ports, [443]);
  });

  it('refuses deniedCidrs entries that are not CIDR ranges', () => {
    assert.deepEqual(issues({ deniedCidrs: ['10.0.0.0/8', '10.0.0.1/8', 'fc00::/7', 'nope'] }), [
      '/deniedCidrs/1: "10.0.0.1/8" is not a CIDR range (a.b.c.d/n or an IPv6 prefix, no host bits set)',
      '/deniedCidrs/3: "nope" is not a CIDR range (a.b.c.d/n or an IPv6 prefix, no host bits set)',
    ]);
  });

  it('refuses relative files, a config without callers, and unknown fields', () => {
    assert.match(
      issues({ callers: [{ name: 'claude', tokenFile: 'tok' }] }).join(),
      /\/callers\/0\/tokenFile: must be an absolute path/,
    );
    assert.match(issues({ callers: [] }).join(), /\/callers/);
    assert.match(issues({ extra: true } as Partial<BrokerConfigInput>).join(), /extra/);
    assert.match(
      issues({
        routes: [
          {
            name: 'a',
            kind: 'model',
            upstream: 'https://a.example',
            credential: { file: '/k', header: 'X-Api-Key' },
          },
        ],
      }).join(),
      /\/routes\/0\/credential\/header: must be a lower-case header name/,
    );
  });

  it('matches hosts: exact names, and wildcards over subdomains only', () => {
    assert.ok(hostMatches('crates.io', 'crates.io'));
    assert.ok(!hostMatches('crates.io', 'static.crates.io'));
    assert.ok(hostMatches('*.crates.io', 'static.crates.io'));
    assert.ok(hostMatches('*.crates.io', 'a.b.crates.io'));
    assert.ok(!hostMatches('*.crates.io', 'crates.io'));
    assert.ok(!hostMatches('*.crates.io', 'evilcrates.io'));
    assert.ok(!hostMatches('*.crates.io', 'crates.io.evil'));
  });
});
