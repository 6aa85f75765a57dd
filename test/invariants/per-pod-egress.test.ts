/**
 * The per-pod proof of `placement: pod`. For every pod of every example and of generated specs, the set of
 * destinations its NetworkPolicies allow is read off the rendered policies (the evaluator of
 * test/support/network-policy.ts, with Kubernetes' semantics: policies add up) and compared with a set
 * derived from the spec alone, not from the renderer's egress code:
 * - a toolchain's own pod allows exactly its declared posture: `none` nothing at all (not even DNS),
 *   `registries` cluster DNS and the configured registries, `open` anything;
 * - the agent pod allows what its backends and its sidecars need, plus each toolchain pod's MCP port, and
 *   none of the toolchain pods' egress;
 * - a gateway's pod allows DNS, the API server with authority, and its declared egress.
 * With the broker on (the default) the only internet egress is the broker's: a toolchain pod with egress reaches
 * DNS and the broker's proxy port, the agent pod DNS, the broker, its toolchain pods and the gateways the broker
 * does not front (deployed ones without auth), and the broker pod DNS, `0.0.0.0/0` and `::/0` minus the denied
 * ranges on its egress ports, and the deployed gateways it routes to.
 * Then concrete connections: a `none` toolchain pod reaches no DNS server, model provider, API server, agent,
 * gateway or other toolchain; a `registries` one reaches the registries on their ports only; only the agent
 * pod reaches a toolchain pod, and only on its MCP port.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { stringify } from 'yaml';
import { checkSpecText } from '../../constructs/src/check-spec-text.ts';
import * as D from '../../constructs/src/defaults.ts';
import { type KubeObject, renderAgent } from '../../constructs/src/render.ts';
import type { Toolchain, ToolyardAgent } from '../../schema/src/types.generated.ts';
import { exampleFiles, REPO_ROOT } from '../support/golden.ts';
import { allowed, allowedOut, egressDestinations, type PodEndpoint } from '../support/network-policy.ts';
import { podSpecsOf } from '../support/pod-security.ts';
import { generateSpec } from '../support/spec-generator.ts';
import { collectorPeer, observabilityOn } from './observability-invariants.ts';

const GENERATED = 200;
const BASE_SEED = Number(process.env['TOOLYARD_SEED'] ?? 20250101);

interface Case {
  readonly label: string;
  readonly agent: ToolyardAgent;
  readonly objects: readonly KubeObject[];
}

function load(label: string, text: string): Case[] {
  const result = checkSpecText(text, label);
  if (!result.ok) throw new Error(`${label} is invalid`);
  return result.specs.map((s) => ({ label, agent: s.agent, objects: renderAgent(s.agent).objects }));
}

const cases: Case[] = [
  ...exampleFiles().flatMap((file) => load(file, readFileSync(join(REPO_ROOT, file), 'utf8'))),
  ...Array.from({ length: GENERATED }, (_, i) =>
    load(`generated spec (seed ${BASE_SEED + i})`, stringify(generateSpec(BASE_SEED + i))),
  ).flat(),
];

// ---------------------------------------------------------------- the spec's side

const namespaceOf = (agent: ToolyardAgent) => agent.metadata.namespace ?? 'default';
const selectorText = (agent: ToolyardAgent, component: string) =>
  `app.kubernetes.io/component=${component},app.kubernetes.io/instance=${agent.metadata.name},app.kubernetes.io/name=${agent.metadata.name}`;
const inNamespace = (namespace: string, labels: string) =>
  `pods ns(kubernetes.io/metadata.name=${namespace}) ${labels}`;
const cidrs = (rule: { readonly cidrs: readonly string[]; readonly ports: readonly number[] }) =>
  rule.cidrs.flatMap((c) => rule.ports.map((p) => `ipBlock ${c} ${p}/TCP`));

function network(agent: ToolyardAgent) {
  const n = agent.spec.networkPolicy ?? {};
  const dns = n.dns ?? {};
  const dnsLabels = Object.entries(dns.podLabels ?? D.DEFAULT_DNS.podLabels)
    .map(([k, v]) => `${k}=${v}`)
    .sort()
    .join(',');
  const dnsPeer = inNamespace(dns.namespace ?? D.DEFAULT_DNS.namespace, dnsLabels);
  return {
    dns: [`${dnsPeer} 53/TCP`, `${dnsPeer} 53/UDP`],
    model: n.modelEgress ?? D.DEFAULT_MODEL_EGRESS,
    registries: n.registryEgress ?? D.DEFAULT_REGISTRY_EGRESS,
    // No default: a spec whose pods hold Kubernetes authority gives it (checked before rendering).
    apiServer: n.apiServerEgress ?? { cidrs: [], ports: [] },
  };
}

const inPod = (t: Toolchain) => t.placement === 'pod';
/** The pod-level posture with the broker off: egress by name falls back to `registries` (CIDR rules). */
const posture = (t: Toolchain) => {
  const egress = t.network?.egress ?? 'none';
  return typeof egress === 'string' ? egress : 'registries';
};

const brokerOn = (agent: ToolyardAgent) => agent.spec.broker?.enabled ?? true;
const brokerPeer = (agent: ToolyardAgent) =>
  `${inNamespace(namespaceOf(agent), selectorText(agent, 'broker'))} ${agent.spec.broker?.port ?? 8480}/TCP`;

/** What a toolchain's own pod may reach: exactly its declared posture. */
function expectedToolchainPod(agent: ToolyardAgent, toolchain: Toolchain): string[] {
  const net = network(agent);
  // With observability a toolchain without egress still exports its spans through the broker.
  if (brokerOn(agent))
    return posture(toolchain) === 'none' && !observabilityOn(agent)
      ? []
      : [...net.dns, brokerPeer(agent)].sort();
  switch (posture(toolchain)) {
    case 'none':
      return [];
    case 'registries':
      return [...net.dns, ...cidrs(net.registries)].sort();
    case 'open':
      return ['* *'];
  }
}

/** What the agent pod may reach: its backends' and sidecars' needs, and the toolchain pods' MCP ports. */
function expectedAgentPod(agent: ToolyardAgent): string[] {
  const net = network(agent);
  const namespace = namespaceOf(agent);
  const out = new Set<string>(net.dns);
  if (brokerOn(agent)) {
    out.add(brokerPeer(agent));
    for (const g of agent.spec.gateways ?? [])
      if ('image' in g && !g.auth)
        out.add(`${inNamespace(namespace, selectorText(agent, `gateway-${g.name}`))} ${g.port}/TCP`);
    for (const t of agent.spec.toolchains ?? [])
      if (inPod(t))
        out.add(`${inNamespace(namespace, selectorText(agent, `toolchain-${t.name}`))} ${t.port}/TCP`);
    if ((agent.spec.rbac?.preset ?? 'none') !== 'none') for (const d of cidrs(net.apiServer)) out.add(d);
    return [...out].sort();
  }
  for (const g of agent.spec.gateways ?? []) {
    if ('image' in g)
      out.add(`${inNamespace(namespace, selectorText(agent, `gateway-${g.name}`))} ${g.port}/TCP`);
    else if (g.egress) for (const d of cidrs(g.egress)) out.add(d);
  }
  for (const t of agent.spec.toolchains ?? []) {
    if (inPod(t))
      out.add(`${inNamespace(namespace, selectorText(agent, `toolchain-${t.name}`))} ${t.port}/TCP`);
    else if (posture(t) === 'registries') for (const d of cidrs(net.registries)) out.add(d);
    else if (posture(t) === 'open') out.add('* *');
  }
  for (const d of cidrs(net.model)) out.add(d);
  if ((agent.spec.rbac?.preset ?? 'none') !== 'none') for (const d of cidrs(net.apiServer)) out.add(d);
  return [...out].sort();
}

function expectedGatewayPod(agent: ToolyardAgent, name: string): string[] {
  const net = network(agent);
  const gateway = (agent.spec.gateways ?? []).find((g) => g.name === name)!;
  const out = new Set(net.dns);
  if ('authority' in gateway && gateway.authority?.kubernetes)
    for (const d of cidrs(net.apiServer)) out.add(d);
  if (gateway.egress) for (const d of cidrs(gateway.egress)) out.add(d);
  return [...out].sort();
}

/** The broker pod: DNS, the public internet minus the denied ranges, the deployed gateways it fronts. */
function expectedBrokerPod(agent: ToolyardAgent): string[] {
  const denied = agent.spec.broker?.deniedCidrs ?? D.DEFAULT_DENIED_CIDRS;
  const v4 = denied.filter((c) => !c.includes(':')).join('|');
  // IPv4-mapped ranges (::ffff:…) stay with the broker: no packet carries one, and the API server refuses them.
  const v6 = denied.filter((c) => c.includes(':') && !c.toLowerCase().startsWith('::ffff:')).join('|');
  const out = new Set(network(agent).dns);
  for (const port of agent.spec.broker?.egressPorts ?? [443]) {
    out.add(`ipBlock 0.0.0.0/0 except ${v4} ${port}/TCP`);
    out.add(`ipBlock ::/0 except ${v6} ${port}/TCP`);
  }
  for (const g of agent.spec.gateways ?? [])
    if ('image' in g && g.auth)
      out.add(`${inNamespace(namespaceOf(agent), selectorText(agent, `gateway-${g.name}`))} ${g.port}/TCP`);
  // An in-cluster collector: its pods, on the URL's port.
  const collector = collectorPeer(agent);
  if (collector) {
    const labels = Object.entries(collector.labels)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
    out.add(`${inNamespace(collector.namespace, labels)} ${collector.port}/TCP`);
  }
  return [...out].sort();
}

// ---------------------------------------------------------------- the rendered side

interface Pod {
  readonly component: string;
  readonly endpoint: PodEndpoint;
}

function podsOf(c: Case): Pod[] {
  return c.objects.flatMap(podSpecsOf).map((p) => {
    const labels = (p.podMetadata?.['labels'] ?? {}) as Record<string, string>;
    return {
      component: labels['app.kubernetes.io/component']!,
      endpoint: { namespace: namespaceOf(c.agent), labels },
    };
  });
}

/** The first address inside a CIDR (its network address plus one), for concrete connections. */
function inside(cidr: string): string {
  const [base = ''] = cidr.split('/');
  if (base.includes(':')) return base.endsWith('::') ? `${base}1` : base;
  const parts = base.split('.').map(Number);
  parts[3] = (parts[3] ?? 0) + 1;
  return parts.join('.');
}

const withPolicies = cases.filter((c) => c.agent.spec.networkPolicy?.enabled ?? true);
const withToolchainPods = withPolicies.filter((c) => (c.agent.spec.toolchains ?? []).some(inPod));

describe('per-pod proof: what each pod may reach', () => {
  it(`covers the examples and ${GENERATED} generated specs, toolchain pods of every posture among them`, () => {
    assert.ok(
      withToolchainPods.some((c) => c.label.startsWith('examples/')),
      'an example has toolchain pods',
    );
    const postures = new Set(
      withToolchainPods.flatMap((c) => (c.agent.spec.toolchains ?? []).filter(inPod).map(posture)),
    );
    assert.deepEqual([...postures].sort(), ['none', 'open', 'registries']);
    assert.ok(
      withToolchainPods.some((c) => !brokerOn(c.agent)),
      'a spec with toolchain pods and the broker off',
    );
  });

  it("every toolchain pod's destinations equal its declared posture exactly", () => {
    const problems: string[] = [];
    for (const c of withPolicies) {
      const pods = podsOf(c);
      for (const toolchain of (c.agent.spec.toolchains ?? []).filter(inPod)) {
        const pod = pods.find((p) => p.component === `toolchain-${toolchain.name}`);
        if (!pod) {
          problems.push(`${c.label}: toolchain ${toolchain.name} has no pod`);
          continue;
        }
        const actual = egressDestinations(c.objects, pod.endpoint);
        const expected = expectedToolchainPod(c.agent, toolchain);
        if (!actual.restricted || JSON.stringify(actual.destinations) !== JSON.stringify(expected))
          problems.push(
            `${c.label}: toolchain ${toolchain.name} (${posture(toolchain)}) may reach ${JSON.stringify(actual.destinations)}, declared ${JSON.stringify(expected)}`,
          );
      }
    }
    assert.deepEqual(problems.slice(0, 10), [], `${problems.length} problem(s)`);
  });

  it("the agent pod's destinations are its own needs and the toolchain pods' MCP ports, no toolchain pod's egress", () => {
    const problems: string[] = [];
    for (const c of withPolicies) {
      const agentPod = podsOf(c).find((p) => p.component === 'agent')!;
      const actual = egressDestinations(c.objects, agentPod.endpoint);
      const expected = expectedAgentPod(c.agent);
      if (JSON.stringify(actual.destinations) !== JSON.stringify(expected))
        problems.push(
          `${c.label}: agent pod may reach ${JSON.stringify(actual.destinations)}, expected ${JSON.stringify(expected)}`,
        );
      // Said plainly: open egress only where a sidecar asks for it with the broker off, whatever the toolchain
      // pods declare; with the broker on, never.
      const sidecarOpen =
        !brokerOn(c.agent) && (c.agent.spec.toolchains ?? []).some((t) => !inPod(t) && posture(t) === 'open');
      if (actual.destinations.includes('* *') !== sidecarOpen)
        problems.push(
          `${c.label}: agent pod open egress ${!sidecarOpen ? 'inherited from a toolchain pod' : 'missing'}`,
        );
    }
    assert.deepEqual(problems.slice(0, 10), [], `${problems.length} problem(s)`);
  });

  it("every gateway pod's destinations are DNS, the API server with authority, and its declared egress", () => {
    const problems: string[] = [];
    for (const c of withPolicies)
      for (const pod of podsOf(c).filter((p) => p.component.startsWith('gateway-'))) {
        const name = pod.component.slice('gateway-'.length);
        const actual = egressDestinations(c.objects, pod.endpoint).destinations;
        const expected = expectedGatewayPod(c.agent, name);
        if (JSON.stringify(actual) !== JSON.stringify(expected))
          problems.push(
            `${c.label}: gateway ${name} may reach ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`,
          );
      }
    assert.deepEqual(problems.slice(0, 10), [], `${problems.length} problem(s)`);
  });

  it("the broker pod's destinations are DNS, public addresses on its egress ports, and the gateways it fronts", () => {
    const problems: string[] = [];
    const brokered = withPolicies.filter((c) => brokerOn(c.agent));
    assert.ok(brokered.length > 100, `only ${brokered.length} specs with the broker`);
    for (const c of brokered) {
      const pod = podsOf(c).find((p) => p.component === 'broker');
      if (!pod) {
        problems.push(`${c.label}: no broker pod`);
        continue;
      }
      const actual = egressDestinations(c.objects, pod.endpoint).destinations;
      const expected = expectedBrokerPod(c.agent);
      if (JSON.stringify(actual) !== JSON.stringify(expected))
        problems.push(
          `${c.label}: broker may reach ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`,
        );
    }
    assert.deepEqual(problems.slice(0, 10), [], `${problems.length} problem(s)`);
  });

  it('without NetworkPolicies every pod is unrestricted, and the spec is warned', () => {
    for (const c of cases.filter((x) => !withPolicies.includes(x))) {
      for (const pod of podsOf(c))
        assert.equal(egressDestinations(c.objects, pod.endpoint).restricted, false);
      assert.ok(
        renderAgent(c.agent).warnings.some((w) => w.code === 'network-policies-disabled') ||
          c.agent.spec.acknowledgedWarnings?.some((a) => a.warning === 'network-policies-disabled'),
        c.label,
      );
    }
  });
});

describe('per-pod proof: concrete connections', () => {
  const stranger: PodEndpoint = { namespace: 'elsewhere', labels: { app: 'stranger' } };

  it('a toolchain pod reaches exactly what its posture allows, over the network', () => {
    for (const c of withToolchainPods) {
      const net = network(c.agent);
      const pods = podsOf(c);
      const dnsPod: PodEndpoint = {
        namespace: c.agent.spec.networkPolicy?.dns?.namespace ?? D.DEFAULT_DNS.namespace,
        labels: { ...(c.agent.spec.networkPolicy?.dns?.podLabels ?? D.DEFAULT_DNS.podLabels) } as Record<
          string,
          string
        >,
      };
      for (const toolchain of (c.agent.spec.toolchains ?? []).filter(inPod)) {
        const self = pods.find((p) => p.component === `toolchain-${toolchain.name}`)!.endpoint;
        const where = `${c.label}: toolchain ${toolchain.name} (${posture(toolchain)})`;
        const others = pods.filter((p) => p.component !== `toolchain-${toolchain.name}`);
        const outside = [...net.model.cidrs.map(inside), ...net.apiServer.cidrs.map(inside), '203.0.113.7'];
        if (brokerOn(c.agent)) {
          // Whatever it declares, it reaches no address itself: only DNS and the broker, when it has egress.
          for (const ip of outside)
            for (const port of [443, 6443, 53, 22])
              assert.ok(!allowedOut(c.objects, self, { ip }, port), `${where}: ${ip}:${port}`);
          const broker = pods.find((p) => p.component === 'broker')!.endpoint;
          const hasEgress = posture(toolchain) !== 'none' || observabilityOn(c.agent);
          assert.equal(allowed(c.objects, self, dnsPod, 53, 'UDP'), hasEgress, `${where}: DNS`);
          assert.equal(
            allowed(c.objects, self, broker, c.agent.spec.broker?.port ?? 8480),
            hasEgress,
            `${where}: broker`,
          );
          for (const other of others.filter((p) => p.component !== 'broker'))
            assert.ok(!allowed(c.objects, self, other.endpoint, 8080), `${where}: ${other.component}`);
          continue;
        }
        switch (posture(toolchain)) {
          case 'none':
            for (const protocol of ['UDP', 'TCP'])
              assert.ok(!allowed(c.objects, self, dnsPod, 53, protocol), `${where}: DNS ${protocol}`);
            for (const ip of outside)
              for (const port of [443, 6443, 53, 22])
                assert.ok(!allowedOut(c.objects, self, { ip }, port), `${where}: ${ip}:${port}`);
            for (const other of others)
              for (const port of [toolchain.port, 8000, 8080])
                assert.ok(
                  !allowed(c.objects, self, other.endpoint, port),
                  `${where}: ${other.component}:${port}`,
                );
            break;
          case 'registries':
            assert.ok(allowed(c.objects, self, dnsPod, 53, 'UDP'), `${where}: DNS`);
            for (const cidr of net.registries.cidrs) {
              for (const port of net.registries.ports)
                assert.ok(
                  allowedOut(c.objects, self, { ip: inside(cidr) }, port),
                  `${where}: ${cidr}:${port}`,
                );
              assert.ok(!allowedOut(c.objects, self, { ip: inside(cidr) }, 22), `${where}: ${cidr}:22`);
            }
            for (const other of others)
              assert.ok(!allowed(c.objects, self, other.endpoint, 8080), `${where}: ${other.component}`);
            break;
          case 'open':
            assert.ok(allowedOut(c.objects, self, { ip: '203.0.113.7' }, 22), `${where}: anywhere`);
            break;
        }
      }
    }
  });

  it('only the agent pod reaches a toolchain pod, and only its MCP port', () => {
    for (const c of withToolchainPods) {
      const pods = podsOf(c);
      const agentPod = pods.find((p) => p.component === 'agent')!.endpoint;
      for (const toolchain of (c.agent.spec.toolchains ?? []).filter(inPod)) {
        const target = pods.find((p) => p.component === `toolchain-${toolchain.name}`)!.endpoint;
        const where = `${c.label}: toolchain ${toolchain.name}`;
        assert.ok(allowed(c.objects, agentPod, target, toolchain.port), `${where}: from the agent pod`);
        const healthPort = toolchain.healthPort ?? toolchain.port + D.HEALTH_PORT_OFFSET;
        assert.ok(!allowed(c.objects, agentPod, target, healthPort), `${where}: agent → health port`);
        for (const other of [stranger, ...pods.filter((p) => p.component !== 'agent').map((p) => p.endpoint)])
          if (other !== target)
            assert.ok(
              !allowed(c.objects, other, target, toolchain.port),
              `${where}: from ${JSON.stringify(other.labels)}`,
            );
        // Nor does a toolchain pod reach back into the agent pod.
        for (const backend of c.agent.spec.backends)
          assert.ok(
            !allowed(c.objects, target, agentPod, backend.port),
            `${where}: → backend ${backend.name}`,
          );
      }
    }
  });
});
