/**
 * The broker's red team: every case of the corpus (redteam/*.ts, one file per attack class) runs against real
 * brokers (buildBroker, listening on 127.0.0.1) over raw sockets, with fake destinations on other loopback
 * addresses that record every connection (redteam/world.ts).
 *
 * Each case runs its control first — the same payload without the broker, or with only the refused part
 * changed — and the control must show the payload bites (reaches its target, leaks, is parsed as two
 * requests…), so no case can pass vacuously. Then the attack, which must get its expected answer, and after
 * which, in every case:
 * - no endpoint outside the case's own list recorded a connection;
 * - no endpoint recorded a caller's token or Basic credentials, and a route's real key only as that route's
 *   credential header at that route's upstream;
 * - no token, key or credential appears in the response, in any audit line, or in any error body;
 * - a refusal wrote an audit line with its status.
 * The lab broker traces every request (sampled), its spans leaving through a telemetry route to a stand-in OTLP
 * receiver: after the corpus, no exported span holds a token, key or credential.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseBrokerConfig } from '../../toolchain-server/broker/config.ts';
import { type Broker, buildBroker } from '../../toolchain-server/broker/server.ts';
import { memorySink } from '../../toolchain-server/kit/audit-sink.ts';
import { type OtlpReceiver, startOtlpReceiver } from '../support/otlp-receiver.ts';
import type { EndpointRecord } from './redteam/endpoint.ts';
import { CORPUS } from './redteam/index.ts';
import { type BrokerAddress, type Outcome, runStep } from './redteam/steps.ts';
import type { AttackClass, BrokerName, Check, EndpointName, Expect } from './redteam/types.ts';
import { fill, makeWorld, ROUTE_ENDPOINT, type World } from './redteam/world.ts';

const ALL_CLASSES: readonly AttackClass[] = [
  'unlisted-host',
  'ip-literal',
  'private-address',
  'loopback-resolution',
  'dns-rebinding',
  'host-sni-mismatch',
  'absolute-uri',
  'route-traversal',
  'smuggling',
  'credential-override',
  'cross-caller',
  'proxy-auth',
  'upgrade',
  'limits',
  'upstream-tls',
  'tunnel-methods',
  'unreadable-tunnel',
  'credential-echo',
];

const CREDENTIAL_HEADERS: Readonly<Record<string, { header: string; prefix: string }>> = {
  claude: { header: 'x-api-key', prefix: '' },
  gemini: { header: 'x-goog-api-key', prefix: '' },
  openai: { header: 'authorization', prefix: 'Bearer ' },
  'gateway-x': { header: 'authorization', prefix: 'Bearer ' },
  'impostor-ca': { header: 'x-api-key', prefix: '' },
  'impostor-name': { header: 'x-api-key', prefix: '' },
};

function headerValues(rawHeaders: readonly string[], name: string): string[] {
  const values: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2)
    if (rawHeaders[i]!.toLowerCase() === name) values.push(rawHeaders[i + 1]!);
  return values;
}

/**
 * New connections, requests and upgrades an endpoint recorded. Requests count too: the broker keeps upstream
 * connections alive, so a route request may arrive on a connection an earlier case opened.
 */
function touches(record: EndpointRecord): number {
  return record.connections + record.requests.length + record.upgrades.length;
}

function checkExpect(world: World, expect: Expect, outcome: Outcome, label: string): void {
  const where = (at: EndpointName) => world.endpoints[at].record;
  const seen = `got ${outcome.status} after ${Math.round(outcome.doneMs)} ms: ${JSON.stringify(outcome.text.slice(0, 400))}`;
  if (expect.status)
    assert.ok(expect.status.includes(outcome.status), `${label}: status ${expect.status}; ${seen}`);
  for (const name of expect.reached ?? [])
    assert.ok(touches(where(name)) > 0, `${label}: "${name}" should have been reached; ${seen}`);
  const listed = new Set([...(expect.reached ?? []), ...(expect.mayReach ?? [])]);
  for (const [name, endpoint] of Object.entries(world.endpoints))
    if (!listed.has(name as EndpointName))
      assert.equal(touches(endpoint.record), 0, `${label}: "${name}" (unlisted here) was reached; ${seen}`);
  if (expect.header) {
    const values = where(expect.header.at).requests.flatMap((r) =>
      headerValues(r.rawHeaders, expect.header!.name),
    );
    const wanted = expect.header.is.map((v) => fill(world, v, ''));
    assert.deepEqual(values, wanted, `${label}: ${expect.header.name} at ${expect.header.at}`);
  }
  if (expect.noHeaders)
    for (const request of where(expect.noHeaders.at).requests)
      for (const name of expect.noHeaders.names)
        assert.deepEqual(
          headerValues(request.rawHeaders, name),
          [],
          `${label}: ${name} reached ${expect.noHeaders.at}`,
        );
  if (expect.urlExcludes)
    for (const request of where(expect.urlExcludes.at).requests)
      for (const text of expect.urlExcludes.texts)
        assert.ok(!request.url.includes(text), `${label}: ${request.url} holds ${text}`);
  if (expect.urlIncludes) {
    const urls = where(expect.urlIncludes.at).requests.map((r) => r.url);
    const text = fill(world, expect.urlIncludes.text, '');
    assert.ok(
      urls.some((u) => u.includes(text)),
      `${label}: no target holds ${text}: ${urls}`,
    );
  }
  if (expect.normalisedPath) {
    const paths = where(expect.normalisedPath.at).requests.map((r) => r.normalisedPath);
    assert.ok(paths.includes(expect.normalisedPath.path), `${label}: paths ${paths}`);
  }
  const smuggled = Object.values(world.endpoints).some((e) =>
    e.record.requests.some((r) => r.url.includes('smuggled')),
  );
  assert.equal(
    smuggled,
    expect.smuggled ?? false,
    `${label}: a smuggled request was${smuggled ? '' : ' not'} parsed`,
  );
  if (expect.servernames)
    assert.deepEqual(
      where(expect.servernames.at).servernames,
      [...expect.servernames.are],
      `${label}: server names`,
    );
  if (expect.requests)
    assert.equal(
      where(expect.requests.at).requests.length,
      expect.requests.count,
      `${label}: requests; ${seen}`,
    );
  if (expect.hosts) {
    const hosts = where(expect.hosts.at).requests.flatMap((r) => headerValues(r.rawHeaders, 'host'));
    assert.deepEqual(
      hosts,
      expect.hosts.are.map((h) => fill(world, h, '')),
      `${label}: Host headers`,
    );
  }
  if (expect.bodyBytes)
    assert.deepEqual(
      where(expect.bodyBytes.at).requests.map((r) => r.bodyBytes),
      [expect.bodyBytes.is],
      `${label}: body bytes at ${expect.bodyBytes.at}`,
    );
  if (expect.plainBytes) {
    const raw = where(expect.plainBytes.at).rawBytes;
    if (expect.plainBytes.count !== undefined)
      assert.equal(
        raw.length,
        expect.plainBytes.count,
        `${label}: plain first bytes at ${expect.plainBytes.at}`,
      );
    if (expect.plainBytes.includes !== undefined) {
      const text = fill(world, expect.plainBytes.includes, '');
      assert.ok(
        raw.some((r) => r.includes(text)),
        `${label}: no plain bytes holding ${JSON.stringify(text)} at ${expect.plainBytes.at}`,
      );
    }
  }
  if (expect.upgrades)
    assert.equal(where(expect.upgrades.at).upgrades.length, expect.upgrades.count, `${label}: upgrades`);
  if (expect.responseIncludes !== undefined) {
    const text = fill(world, expect.responseIncludes, '');
    assert.ok(outcome.text.includes(text), `${label}: the response should hold ${text}; ${seen}`);
  }
  if (expect.doneWithinMs !== undefined)
    assert.ok(
      outcome.doneMs <= expect.doneWithinMs,
      `${label}: done within ${expect.doneWithinMs} ms; ${seen}`,
    );
  if (expect.flood) {
    const flood = outcome.flood;
    assert.ok(flood, `${label}: not a flood step`);
    assert.ok(flood.granted <= expect.flood.grantedAtMost, `${label}: ${flood.granted} tunnels granted`);
    assert.ok(
      flood.granted >= expect.flood.grantedAtLeast,
      `${label}: only ${flood.granted} tunnels granted`,
    );
    assert.equal(
      flood.granted + flood.refused,
      flood.total,
      `${label}: every tunnel answered, granted or refused`,
    );
    assert.equal(flood.otherOk, expect.flood.otherOk, `${label}: the other caller's tunnel; ${seen}`);
  }
}

/** What every attack must leave true, whatever its class. */
function checkGlobal(world: World, outcome: Outcome, audit: readonly unknown[], label: string): void {
  const callerSecrets = world.secrets.filter((s) => !Object.values(world.keys).includes(s));
  for (const secret of world.secrets) {
    assert.ok(
      !outcome.text.includes(secret),
      `${label}: a secret in the response: ${outcome.text.slice(0, 300)}`,
    );
    for (const line of audit)
      assert.ok(!JSON.stringify(line).includes(secret), `${label}: a secret in ${JSON.stringify(line)}`);
  }
  for (const [name, endpoint] of Object.entries(world.endpoints)) {
    for (const raw of endpoint.record.rawBytes)
      for (const secret of world.secrets)
        assert.ok(!raw.includes(secret), `${label}: a secret reached ${name}`);
    for (const request of endpoint.record.requests) {
      const everything = [request.url, ...request.rawHeaders].join('\n');
      for (const secret of callerSecrets)
        assert.ok(!everything.includes(secret), `${label}: a caller's token reached ${name}: ${everything}`);
      for (const [route, key] of Object.entries(world.keys)) {
        assert.ok(!request.url.includes(key), `${label}: route ${route}'s key in a URL at ${name}`);
        for (let i = 0; i + 1 < request.rawHeaders.length; i += 2) {
          if (!request.rawHeaders[i + 1]!.includes(key)) continue;
          const { header, prefix } = CREDENTIAL_HEADERS[route]!;
          assert.equal(ROUTE_ENDPOINT[route], name, `${label}: route ${route}'s key reached ${name}`);
          assert.equal(
            request.rawHeaders[i]!.toLowerCase(),
            header,
            `${label}: ${route}'s key in another header`,
          );
          assert.equal(
            request.rawHeaders[i + 1],
            `${prefix}${key}`,
            `${label}: ${route}'s key with something else`,
          );
        }
      }
    }
  }
  if (outcome.status >= 400) {
    const statuses = audit.map((line) => (line as { status?: unknown }).status);
    assert.ok(
      statuses.includes(outcome.status),
      `${label}: no audit line for the ${outcome.status}: ${JSON.stringify(audit)}`,
    );
  }
}

describe('broker red team', () => {
  let world: World;
  const brokers = {} as Record<BrokerName, Broker>;
  const addresses = {} as Record<BrokerName, BrokerAddress>;
  const sink = memorySink();
  let receiver: OtlpReceiver;

  before(async () => {
    world = await makeWorld();
    receiver = await startOtlpReceiver();
    for (const name of ['lab', 'strict', 'open'] as const) {
      const config = world.config(name);
      const traced =
        name === 'lab'
          ? {
              ...config,
              routes: [
                ...(config['routes'] as unknown[]),
                {
                  name: 'otlp',
                  kind: 'telemetry',
                  upstream: receiver.url,
                  insecureHttp: true,
                  inCluster: true,
                },
              ],
              telemetry: { route: 'otlp', sampleRatio: 1, resource: { 'toolyard.agent': 'redteam' } },
            }
          : config;
      const parsed = parseBrokerConfig(traced);
      if (!parsed.ok) throw new Error(`${name} config: ${JSON.stringify(parsed.issues)}`);
      const broker = buildBroker(parsed.config, { log: sink, resolve: world.resolver.resolve });
      await new Promise<void>((resolve) => broker.proxy.listen(0, '127.0.0.1', () => resolve()));
      const address = broker.proxy.address();
      if (address === null || typeof address === 'string') throw new Error('broker: no address');
      brokers[name] = broker;
      addresses[name] = { host: '127.0.0.1', port: address.port };
    }
  });

  after(async () => {
    await Promise.all(Object.values(brokers).map((b) => b.close()));
    await receiver?.close();
    await world?.close();
  });

  it('holds at least 60 cases, every class, unique ids, each with a control', () => {
    assert.ok(CORPUS.length >= 60, `${CORPUS.length} cases`);
    assert.equal(new Set(CORPUS.map((c) => c.id)).size, CORPUS.length, 'duplicate ids');
    for (const cls of ALL_CLASSES)
      assert.ok(
        CORPUS.some((c) => c.class === cls),
        `no ${cls} case`,
      );
    for (const c of CORPUS) assert.ok([c.control].flat().length > 0, `${c.id}: no control`);
  });

  const run = async (check: Check) => {
    world.resetEndpoints();
    const from = sink.lines.length;
    const outcome = await runStep(world, addresses, check.step);
    await sleep(30); // audit lines and endpoint records of connections just closed
    return { outcome, audit: sink.lines.slice(from) };
  };

  for (const c of CORPUS) {
    it(`${c.class}: ${c.id} — ${c.description}`, { timeout: 30_000 }, async () => {
      for (const [i, control] of [c.control].flat().entries()) {
        const { outcome } = await run(control);
        checkExpect(world, control.expect, outcome, `control ${i + 1}`);
      }
      const { outcome, audit } = await run(c.attack);
      checkExpect(world, c.attack.expect, outcome, 'attack');
      checkGlobal(world, outcome, audit, 'attack');
    });
  }
  it('after every case: no broker metrics hold a token or key (they name callers and routes)', () => {
    assert.ok(brokers.lab.metrics.render().includes('caller="claude"'), 'the lab metrics name the callers');
    for (const [name, broker] of Object.entries(brokers)) {
      const text = broker.metrics.render();
      for (const secret of world.secrets)
        assert.ok(!text.includes(secret), `${name}: a secret in the metrics`);
    }
  });
  it('after every case: no request or tunnel is still counted open (every error path released its slot)', async () => {
    await sleep(300);
    for (const [name, broker] of Object.entries(brokers)) {
      const open = broker.metrics
        .render()
        .split('\n')
        .filter((line) => line.startsWith('toolyard_broker_open_connections{'));
      assert.ok(open.length > 0 || name === 'strict', `${name}: no open-connections gauge`);
      for (const line of open) assert.match(line, / 0$/, `${name}: ${line}`);
    }
  });

  it('after every case: the lab broker exported its spans, and none holds a token, key or credential', async () => {
    await brokers.lab.telemetry.shutdown();
    await receiver.waitFor((spans) => spans.length >= CORPUS.length, 10_000);
    // Control: these are the corpus's requests and tunnels, naming their callers.
    assert.ok(receiver.spans.some((sp) => sp.attributes['toolyard.broker.caller'] === 'claude'));
    const exported = receiver.requests.map((r) => r.body).join('\n');
    for (const secret of world.secrets) assert.ok(!exported.includes(secret), 'a secret in an exported span');
  });
});
