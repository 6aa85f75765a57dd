/**
 * Route upstreams are resolved by the broker and checked against deniedCidrs, like CONNECT hosts: a route
 * whose name resolves to a denied address is refused (403, TOOLYARD_BROKER_ADDRESS_DENIED, an audit reason
 * naming the address and range) and nothing reaches it; the same route resolving to an allowed address works
 * and the audit line names the address used. In-cluster upstreams (Service names, `inCluster: true`) are
 * resolved by the system resolver and exempt. TLS still verifies the route's name, not the vetted address.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseCidrs } from '../../toolchain-server/broker/addresses.ts';
import { DEFAULT_DENIED_CIDRS, parseBrokerConfig } from '../../toolchain-server/broker/config.ts';
import type { Resolver } from '../../toolchain-server/broker/context.ts';
import { isClusterServiceName, routeUpstream } from '../../toolchain-server/broker/upstream.ts';
import { LOOPBACK_ALLOWED, startBroker, startUpstream, type Upstream } from './helpers.ts';
import { makeTestCa, type TestCa } from './tls-fixture.ts';

const TOKEN = 'tok-claude-0123456789abcdef';
const KEY = 'sk-ant-REAL-KEY-route-upstreams';

/** A resolver answering every name with `address` and recording what it was asked. */
function resolverTo(address: string, asked: string[] = []): Resolver {
  return async (name) => {
    asked.push(name);
    return [{ address, family: address.includes(':') ? 6 : 4 }];
  };
}

describe('route upstreams vs deniedCidrs', () => {
  let ca: TestCa;
  let upstream: Upstream;
  let hits = 0;

  before(async () => {
    ca = makeTestCa(['localhost']);
    upstream = await startUpstream(ca, (request, response) => {
      hits += 1;
      request.resume();
      response.end('ok');
    });
  });
  after(async () => {
    await upstream?.close();
    ca?.cleanup();
  });

  async function call(
    route: { upstream: string; inCluster?: boolean },
    options: { deniedCidrs?: string[]; resolve?: Resolver } = {},
  ) {
    const broker = await startBroker(
      {
        ...(options.deniedCidrs ? { deniedCidrs: options.deniedCidrs } : {}),
        extraCaFile: ca.caFile,
        routes: [{ name: 'anthropic', kind: 'model', credential: { header: 'x-api-key' }, ...route }],
        callers: [{ name: 'claude', routes: ['anthropic'] }],
      },
      {
        tokens: { claude: TOKEN },
        keys: { anthropic: KEY },
        ...(options.resolve ? { resolve: options.resolve } : {}),
      },
    );
    try {
      const response = await fetch(`${broker.url}/anthropic/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': TOKEN },
        body: '{}',
      });
      const text = await response.text();
      return { status: response.status, text, audit: broker.audits().at(-1)! };
    } finally {
      await broker.close();
    }
  }

  it('refuses a route whose name resolves to a denied address, with the address and range in the audit line', async () => {
    for (const address of ['10.0.0.5', '169.254.169.254', '127.0.0.1', '::ffff:10.1.2.3']) {
      const before = hits;
      const asked: string[] = [];
      const result = await call(
        { upstream: upstream.origin },
        { deniedCidrs: [...DEFAULT_DENIED_CIDRS], resolve: resolverTo(address, asked) },
      );
      assert.equal(result.status, 403, `${address}: ${result.text}`);
      assert.match(result.text, /TOOLYARD_BROKER_ADDRESS_DENIED/);
      assert.deepEqual(asked, ['localhost'], 'the broker resolved the route name itself');
      assert.equal(hits, before, `${address}: nothing reached the upstream`);
      assert.equal(result.audit.decision, 'denied');
      assert.equal(result.audit.code, 'TOOLYARD_BROKER_ADDRESS_DENIED');
      assert.match(
        String(result.audit.reason),
        new RegExp(
          `route "anthropic": upstream localhost resolves to ${address.replace(/\./g, '\\.')}, in denied range`,
        ),
      );
      assert.ok(!result.text.includes(KEY) && !JSON.stringify(result.audit).includes(KEY));
    }
  });

  it('control: the same route resolving to an address outside deniedCidrs works, and the audit names it', async () => {
    const before = hits;
    const result = await call(
      { upstream: upstream.origin },
      { deniedCidrs: LOOPBACK_ALLOWED, resolve: resolverTo('127.0.0.1') },
    );
    assert.equal(result.status, 200, result.text);
    assert.equal(result.text, 'ok');
    assert.equal(hits, before + 1);
    assert.equal(result.audit.decision, 'allowed');
    assert.equal(result.audit.address, '127.0.0.1');
  });

  it('verifies TLS for the route name, not the vetted address: a name the certificate does not hold fails', async () => {
    // `api.provider.test` resolves (by the broker) to the fixture, whose certificate names only localhost.
    const result = await call(
      { upstream: `https://api.provider.test:${upstream.port}` },
      { deniedCidrs: LOOPBACK_ALLOWED, resolve: resolverTo('127.0.0.1') },
    );
    assert.equal(result.status, 502, result.text);
    assert.match(result.text, /TOOLYARD_BROKER_UPSTREAM_FAILED/);
    assert.match(String(result.audit.reason), /ERR_TLS_CERT_ALTNAME_INVALID/);
  });

  it('refuses an IP-literal upstream in a denied range without connecting; control: allowed when the range is not denied', async () => {
    const route = { upstream: `https://127.0.0.1:${upstream.port}` };
    const before = hits;
    const refused = await call(route, { deniedCidrs: [...DEFAULT_DENIED_CIDRS] });
    assert.equal(refused.status, 403, refused.text);
    assert.match(String(refused.audit.reason), /upstream 127\.0\.0\.1 is in denied range 127\.0\.0\.0\/8/);
    assert.equal(hits, before);
    // Control: with loopback allowed the request is sent (and fails TLS: the certificate names localhost).
    const control = await call(route, { deniedCidrs: LOOPBACK_ALLOWED });
    assert.equal(control.status, 502, control.text);
    assert.match(String(control.audit.reason), /ERR_TLS_CERT_ALTNAME_INVALID/);
  });

  it('lets an in-cluster route reach a private address through the system resolver; control: the same route without inCluster is refused', async () => {
    const asked: string[] = [];
    const inCluster = await call(
      { upstream: upstream.origin, inCluster: true },
      { deniedCidrs: [...DEFAULT_DENIED_CIDRS], resolve: resolverTo('10.0.0.5', asked) },
    );
    assert.equal(inCluster.status, 200, inCluster.text);
    assert.equal(inCluster.audit.address, '127.0.0.1');
    assert.deepEqual(asked, [], "an in-cluster upstream is not asked of the broker's resolver");
    const outside = await call(
      { upstream: upstream.origin },
      { deniedCidrs: [...DEFAULT_DENIED_CIDRS], resolve: resolverTo('127.0.0.1') },
    );
    assert.equal(outside.status, 403, outside.text);
  });

  it('treats Service names (.svc, .svc.cluster.local) as in-cluster and nothing else', () => {
    for (const name of [
      'gw.tools.svc',
      'gw.tools.svc.cluster.local',
      'GW.Tools.SVC.',
      'a.b.svc.cluster.local.',
    ])
      assert.equal(isClusterServiceName(name), true, name);
    for (const name of [
      'svc.example.com',
      'gw.svc.example.com',
      'api.anthropic.com',
      'evil.svc.cluster.local.example',
    ])
      assert.equal(isClusterServiceName(name), false, name);
    const parsed = parseBrokerConfig({
      agent: 'a',
      listen: { port: 1 },
      health: { port: 2 },
      routes: [
        { name: 'svc', kind: 'gateway', upstream: 'http://a-gw.ns.svc:8080/mcp', insecureHttp: true },
        { name: 'ext', kind: 'gateway', upstream: 'https://gw.example.com/mcp' },
        { name: 'flag', kind: 'gateway', upstream: 'https://gw.corp.internal', inCluster: true },
        { name: 'lit', kind: 'gateway', upstream: 'https://10.1.2.3' },
      ],
      callers: [{ name: 'c', tokenFile: '/t' }],
    });
    assert.ok(parsed.ok);
    const denied = parseCidrs(parsed.config.deniedCidrs);
    const [svc, ext, flag, lit] = parsed.config.routes.map((r) => routeUpstream(r, denied));
    assert.equal(svc!.inCluster, true);
    assert.equal(ext!.inCluster, false);
    assert.equal(flag!.inCluster, true);
    assert.equal(lit!.inCluster, false);
    assert.match(lit!.deniedLiteral ?? '', /in denied range 10\.0\.0\.0\/8/);
  });
});
