/**
 * The fleet site's egress by host (cli/src/fleet/fleet-site/host-reach.ts, hosts-page.ts): each container's
 * hosts, routes and open ports equal what its broker's rendered config.json grants that caller; the model keys
 * and gateway tokens are held where the rendered pods mount or read them; hosts are grouped across the fleet;
 * and the page stays under 2 MB at 1,000 agents, with filters, phone-ready cells and search references that
 * resolve.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type AgentReach,
  agentReach,
  hostGroups,
  hostRows,
  IN_CLUSTER,
} from '../../cli/src/fleet/fleet-site/host-reach.ts';
import { hostsPage } from '../../cli/src/fleet/fleet-site/hosts-page.ts';
import { type KubeObject, renderAgent } from '../../constructs/src/render.ts';
import type { ToolyardAgent } from '../../schema/src/types.generated.ts';
import type { BrokerConfigInput } from '../../toolchain-server/broker/config.ts';
import { examples } from '../chart/support.ts';
import { generateSpec } from '../support/spec-generator.ts';

type Json = Record<string, unknown>;

const EXAMPLES = examples();
const example = (file: string) => EXAMPLES.find((e) => e.file.endsWith(file))!;
const GENERATED = Array.from({ length: 40 }, (_, i) => generateSpec(i + 1));
const SPECS: ToolyardAgent[] = [...EXAMPLES.map((e) => e.agent), ...GENERATED];

function brokerConfigOf(objects: readonly KubeObject[], agent: string): BrokerConfigInput | undefined {
  const map = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === `${agent}-broker`);
  if (!map) return undefined;
  return JSON.parse((map['data'] as Record<string, string>)['config.json']!) as BrokerConfigInput;
}

interface Container {
  name: string;
  env?: { name: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
}

function podSpecs(objects: readonly KubeObject[]): { name: string; spec: Json }[] {
  return objects.flatMap((o) => {
    const template = (o['spec'] as { template?: { spec?: Json } } | undefined)?.template;
    return template?.spec ? [{ name: o.metadata.name, spec: template.spec }] : [];
  });
}

describe('egress by host: the data', () => {
  it('web-infra: each container with its hosts and routes, and how it reaches each', () => {
    const reach = agentReach(example('web-infra.yaml').rendered.plan);
    const of = (container: string) =>
      reach.containers.find((c) => c.container === container)!.reaches.map((r) => ({ ...r }));
    assert.deepEqual(of('claude'), [
      {
        host: 'api.anthropic.com',
        ports: [443],
        listed: false,
        ecosystems: [],
        route: { name: 'model-claude', kind: 'model', credential: 'claude-credentials/api-key' },
      },
      { host: 'api.github.com', ports: [443], listed: true, ecosystems: [] },
    ]);
    assert.deepEqual(of('toolchain-node'), [
      { host: 'registry.npmjs.org', ports: [443], listed: false, ecosystems: ['npm'] },
    ]);
    assert.deepEqual(reach.credentials, [
      {
        secret: 'claude-credentials/api-key',
        kind: 'model key',
        purpose: 'route model-claude',
        holder: 'broker / broker',
      },
    ]);
  });

  it(`${SPECS.length} specs: every container's hosts, open ports and routes are its broker config's grants`, () => {
    let checked = 0;
    for (const spec of SPECS) {
      const rendered = renderAgent(spec);
      const reach = agentReach(rendered.plan);
      const config = brokerConfigOf(rendered.objects, rendered.plan.name);
      assert.equal(reach.broker, config !== undefined, `${spec.metadata.name}: a broker iff a config`);
      if (!config) {
        assert.deepEqual(reach.containers, []);
        continue;
      }
      assert.deepEqual(
        reach.containers.map((c) => c.container),
        config.callers.map((c) => c.name),
      );
      for (const caller of config.callers) {
        const c = reach.containers.find((x) => x.container === caller.name)!;
        const byName = c.reaches.filter((r) => !r.route && r.host !== '*');
        assert.deepEqual(
          byName.map((r) => ({ host: r.host, ports: r.ports })),
          caller.egress ?? [],
          `${spec.metadata.name}/${caller.name}: hosts`,
        );
        assert.deepEqual(c.reaches.find((r) => r.host === '*')?.ports ?? [], caller.openPorts ?? []);
        const routes = c.reaches.flatMap((r) => (r.route ? [r.route.name] : []));
        assert.deepEqual(routes, caller.routes ?? [], `${spec.metadata.name}/${caller.name}: routes`);
        for (const r of c.reaches.filter((x) => x.route)) {
          const name = r.route!.name;
          const route: NonNullable<BrokerConfigInput['routes']>[number] = (config.routes ?? []).find(
            (x) => x.name === name,
          )!;
          assert.equal(r.host, new URL(route.upstream).hostname);
          assert.equal(r.route!.credential !== undefined, route.credential !== undefined);
        }
        checked++;
      }
    }
    assert.ok(checked > 60, `${checked} callers checked`);
  });

  it('credentials: the broker holds what its pod mounts; without a broker, the backends read the keys', () => {
    let brokerKeys = 0;
    let backendKeys = 0;
    for (const spec of SPECS) {
      const rendered = renderAgent(spec);
      const reach = agentReach(rendered.plan);
      const pods = podSpecs(rendered.objects);
      for (const c of reach.credentials) {
        const [secret, key] = c.secret.split('/') as [string, string];
        if (c.holder === 'broker / broker') {
          const broker = pods.find((p) => p.name === `${rendered.plan.name}-broker`)!;
          const volumes = (broker.spec['volumes'] ?? []) as {
            secret?: { secretName: string; items?: { key: string }[] };
          }[];
          assert.ok(
            volumes.some(
              (v) => v.secret?.secretName === secret && v.secret.items?.some((i) => i.key === key),
            ),
            `${spec.metadata.name}: the broker mounts ${c.secret}`,
          );
          brokerKeys++;
        } else {
          const container = c.holder.replace(/^agent \/ /, '');
          const agentPod = pods.find((p) => p.name === rendered.plan.names.workload)!;
          const env = ((agentPod.spec['containers'] as Container[]).find((x) => x.name === container)?.env ??
            []) as Container['env'] & object;
          assert.ok(
            env.some(
              (e) => e.valueFrom?.secretKeyRef?.name === secret && e.valueFrom.secretKeyRef.key === key,
            ),
            `${spec.metadata.name}: ${container} reads ${c.secret}`,
          );
          backendKeys++;
        }
      }
      // With the broker on, no backend reads a model key (the control of the check above).
      if (rendered.plan.broker.enabled)
        assert.ok(reach.credentials.every((c) => c.kind !== 'model key' || c.holder === 'broker / broker'));
    }
    assert.ok(brokerKeys > 20 && backendKeys > 0, `${brokerKeys} broker-held, ${backendKeys} in backends`);
  });

  it('hostRows: one row per host across agents, the most-reached first, with every container', () => {
    const reaches = EXAMPLES.map((e) => agentReach(e.rendered.plan));
    const copy = (r: AgentReach, name: string): AgentReach => ({ ...r, agent: name });
    const rows = hostRows([...reaches, copy(reaches[2]!, 'web-infra-2'), copy(reaches[2]!, 'web-infra-3')]);
    const npm = rows.find((r) => r.host === 'registry.npmjs.org')!;
    assert.equal(npm.agents, 3);
    assert.deepEqual(npm.ways, ['ecosystem']);
    assert.deepEqual(npm.ecosystems, ['npm']);
    assert.deepEqual(
      npm.holders.map((h) => `${h.agent}/${h.container}`),
      ['web-infra/toolchain-node', 'web-infra-2/toolchain-node', 'web-infra-3/toolchain-node'],
    );
    const anthropic = rows.find((r) => r.host === 'api.anthropic.com')!;
    assert.deepEqual(anthropic.ways, ['model route']);
    assert.equal(anthropic.agents, 4);
    for (let i = 1; i < rows.length; i++) assert.ok(rows[i - 1]!.agents >= rows[i]!.agents, 'sorted');
    const total = reaches.reduce((n, r) => n + r.containers.reduce((m, c) => m + c.reaches.length, 0), 0);
    const webInfra = reaches[2]!.containers.reduce((m, c) => m + c.reaches.length, 0);
    assert.equal(
      rows.reduce((n, r) => n + r.holders.length, 0),
      total + 2 * webInfra,
      'every reach in exactly one row',
    );
    // An agent's own deployed gateways, and the in-cluster collector its telemetry route reaches, are Services
    // in the cluster: one row for all, each holder with its route.
    const own = rows.find((r) => r.host === IN_CLUSTER)!;
    assert.deepEqual(own.holders.map((h) => `${h.agent}/${h.container} ${h.route?.name}`).sort(), [
      'operator/codex gateway-helm',
      'operator/codex gateway-kubernetes',
      'reviewer/claude otlp',
      'reviewer/gemini otlp',
      'reviewer/openai otlp',
      'reviewer/toolchain-go-python otlp',
      'reviewer/toolchain-rust otlp',
    ]);
    assert.ok(!rows.some((r) => r.host.endsWith('.svc')), 'no in-cluster Service as a host of its own');
    // Hosts reached by the same containers the same way share a row: terraform's two hosts, pypi's two.
    const groups = hostGroups(rows);
    const terraform = groups.find((g) => g.hosts.includes('registry.terraform.io'))!;
    assert.deepEqual(terraform.hosts, ['registry.terraform.io', 'releases.hashicorp.com']);
    assert.ok(groups.length < rows.length);
    assert.equal(
      groups.reduce((n, g) => n + g.hosts.length, 0),
      rows.length,
      'every host in exactly one group',
    );
    // The control: hosts with different containers stay apart.
    assert.ok(
      !groups.some((g) => g.hosts.includes('api.anthropic.com') && g.hosts.includes('api.openai.com')),
    );
  });
});

describe('egress by host: the page', () => {
  const reaches = SPECS.map((s) => agentReach(renderAgent(s).plan));

  it('1,000 agents: under 2 MB, every row filterable and its search reference resolving', () => {
    const fleet = Array.from({ length: 1000 }, (_, i) => {
      const r = reaches[i % reaches.length]!;
      return { ...r, agent: `${r.agent}-${i}`, namespace: `team-${i % 17}` };
    });
    const page = hostsPage(fleet, 'Test fleet');
    const bytes = Buffer.byteLength(page);
    assert.ok(bytes < 2_000_000, `${(bytes / 1e6).toFixed(2)} MB`);
    const ids = new Set([...page.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]));
    const refs = [...page.matchAll(/data-search-ref="([^"]+)"/g)].map((m) => m[1]!);
    const withCredentials = fleet.filter((a) => a.credentials.length > 0).length;
    assert.equal(refs.length, hostGroups(hostRows(fleet)).length + withCredentials);
    for (const ref of refs) assert.ok(ids.has(ref), ref);
    // Phone layout: stacked tables whose cells carry their column's name.
    assert.equal((page.match(/class="fleet-table stack"/g) ?? []).length, 2);
    assert.ok(page.includes('<span class="cell-label" aria-hidden="true">Containers</span>'));
    for (const control of [
      'data-filter="search"',
      'data-filter="namespace"',
      'data-filter="way"',
      'data-filter="held"',
    ])
      assert.ok(page.includes(control), control);
    assert.match(page, /<a href="\.\.\/hosts\/" aria-current="page">Hosts<\/a>/);
  });

  it('says where keys sit outside a broker, and which containers may reach any host', () => {
    const page = hostsPage(reaches, 'Test fleet');
    const outside = reaches.flatMap((r) => r.credentials.filter((c) => c.holder !== 'broker / broker'));
    assert.ok(outside.length > 0);
    assert.match(page, new RegExp(`${outside.length} keys? or tokens? sit in other containers`));
    const open = hostRows(reaches).find((r) => r.host === '*');
    if (open) assert.match(page, new RegExp(`${open.holders.length} containers? may reach any public host`));
    const brokerless = reaches.filter((r) => !r.broker).length;
    assert.ok(brokerless > 0);
    assert.match(page, new RegExp(`${brokerless} agents? runs? without a broker`));
    // Escaped, never markup: a host or container name cannot inject HTML.
    const hostile: AgentReach = {
      agent: 'x',
      namespace: 'y',
      broker: true,
      credentials: [],
      containers: [
        {
          pod: 'agent',
          container: '<img src=x onerror=alert(1)>',
          role: 'backend',
          reaches: [{ host: '"><script>alert(1)</script>', ports: [443], listed: true, ecosystems: [] }],
        },
      ],
    };
    const escaped = hostsPage([hostile], 'Test fleet');
    assert.ok(!escaped.includes('<script>alert(1)') && !escaped.includes('<img src=x'));
  });
});
