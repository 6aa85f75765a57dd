/** The shared kit: Host parsing, token sets, metrics exposition. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  allowedHostnames,
  isAllowedHost,
  isAllowedOrigin,
  parseHostHeader,
} from '../../toolchain-server/kit/host.ts';
import { CounterMap, escapeLabel, HistogramMap, Registry } from '../../toolchain-server/kit/metrics.ts';
import { readTokenFile, TokenSet } from '../../toolchain-server/kit/token-file.ts';

describe('kit: Host header', () => {
  it('parses names, IPv4 and bracketed IPv6 with optional ports', () => {
    assert.deepEqual(parseHostHeader('LocalHost:8480'), { hostname: 'localhost', port: 8480 });
    assert.deepEqual(parseHostHeader('[::1]:1'), { hostname: '[::1]', port: 1 });
    assert.deepEqual(parseHostHeader('broker.agents.svc'), {
      hostname: 'broker.agents.svc',
      port: undefined,
    });
  });

  it('refuses invalid ports and malformed hosts', () => {
    for (const bad of [
      'localhost:99999999',
      'localhost:65536',
      'localhost:0',
      'localhost:',
      'localhost:8x',
      'localhost:+80',
      'local host',
      '[::1',
      '[::1]x',
      '::1',
      'a@b',
      '',
      undefined,
    ])
      assert.equal(parseHostHeader(bad), undefined, String(bad));
  });

  it('allows loopback, a specific listen host and the configured names', () => {
    const hosts = allowedHostnames('0.0.0.0', ['reviewer-broker.agents.svc']);
    assert.ok(isAllowedHost('127.0.0.1:8480', hosts));
    assert.ok(isAllowedHost('[::1]:8480', hosts));
    assert.ok(isAllowedHost('reviewer-broker.agents.svc:8480', hosts));
    assert.ok(!isAllowedHost('0.0.0.0:8480', hosts));
    assert.ok(!isAllowedHost('evil.example', hosts));
    assert.ok(isAllowedOrigin('http://localhost:3000', hosts));
    assert.ok(!isAllowedOrigin('null', hosts));
    assert.ok(!isAllowedOrigin('http://evil.example', hosts));
    assert.ok(!isAllowedOrigin('http://localhost:99999999', hosts));
    assert.ok(allowedHostnames('::1').has('[::1]'));
  });
});

describe('kit: tokens', () => {
  it('identifies callers by token and refuses unknown or empty ones', () => {
    const set = new TokenSet().add('a', 'token-a').add('b', 'token-b');
    assert.equal(set.identify('token-b'), 'b');
    assert.equal(set.identify('token-c'), undefined);
    assert.equal(set.identify(''), undefined);
    assert.ok(set.matches('a', 'token-a'));
    assert.ok(!set.matches('a', 'token-b'));
  });

  it('reads a token file trimmed, and names the field when it is empty or missing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolyard-kit-'));
    try {
      writeFileSync(join(dir, 't'), '  secret \n');
      assert.equal(readTokenFile(join(dir, 't'), '/x'), 'secret');
      writeFileSync(join(dir, 'e'), '\n');
      assert.throws(
        () => readTokenFile(join(dir, 'e'), '/callers/0/tokenFile'),
        /\/callers\/0\/tokenFile .* is empty/,
      );
      assert.throws(() => readTokenFile(join(dir, 'm'), '/f'), /\/f .*cannot read/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('kit: metrics', () => {
  it('renders counters and histograms in text format 0.0.4 with escaped labels', () => {
    const registry = new Registry();
    const counter = registry.register(new CounterMap('x_total', 'Things.'));
    const histogram = registry.register(new HistogramMap('d_seconds', 'Durations.', [0.1, 1]));
    counter.inc({ who: 'a"b\\c\nd' }, 2);
    histogram.observe({ route: 'r' }, 0.5);
    assert.equal(escapeLabel('a"b\\c\nd'), 'a\\"b\\\\c\\nd');
    assert.equal(
      registry.render(),
      [
        '# HELP x_total Things.',
        '# TYPE x_total counter',
        'x_total{who="a\\"b\\\\c\\nd"} 2',
        '# HELP d_seconds Durations.',
        '# TYPE d_seconds histogram',
        'd_seconds_bucket{route="r",le="0.1"} 0',
        'd_seconds_bucket{route="r",le="1"} 1',
        'd_seconds_bucket{route="r",le="+Inf"} 1',
        'd_seconds_sum{route="r"} 0.5',
        'd_seconds_count{route="r"} 1',
        '',
      ].join('\n'),
    );
  });
});
