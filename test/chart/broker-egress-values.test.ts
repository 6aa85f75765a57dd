/**
 * Per-container egress allowlists as chart values (`broker.egress.<container>.hosts` / `.ecosystems`), with the
 * real Helm 3 and Helm 4: a value set for one container changes that caller's list in the broker's config.json
 * and the broker pod's config hash, and nothing else; it renders exactly what synth renders for the spec with
 * that egress (Helm's expansion of ecosystems and ports is the renderer's); Helm's values-schema validation
 * refuses what the spec refuses, naming the field; `helm lint --strict` passes with the override.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { generateChart } from '../../chart-generator/src/generate.ts';
import { type KubeObject, renderAgent, toYamlDocuments } from '../../constructs/src/render.ts';
import type { NamedEgress, ToolyardAgent } from '../../schema/src/types.generated.ts';
import type { BrokerConfigInput } from '../../toolchain-server/broker/config.ts';
import { realHelmLint } from './helm-lint.ts';
import {
  examples,
  HELM_MAJORS,
  helmNotes,
  helmTemplate,
  identity,
  renderChartText,
  withoutHelmLabels,
  writeChart,
} from './support.ts';

type Json = Record<string, unknown>;

const webInfra = examples().find((e) => e.file.endsWith('web-infra.yaml'))!;
const AGENT = webInfra.rendered.plan.name;
const NAMESPACE = webInfra.rendered.plan.namespace;
const BROKER = `${AGENT}-broker`;
const HASH = 'toolyard.dev/config-hash';

/** web-infra with the broker also allowed to open 8443, so `host:port` values have a second port to use. */
function withPorts(agent: ToolyardAgent, ports: [number, ...number[]]): ToolyardAgent {
  const copy = structuredClone(agent);
  copy.spec.broker = { ...copy.spec.broker, egressPorts: ports };
  return copy;
}
const twoPorts = withPorts(webInfra.agent, [443, 8443]);
const twoPortsChart = writeChart(generateChart(renderAgent(twoPorts)));
const defaultChart = writeChart(webInfra.chart);

function render(dir: string, major: 3 | 4, values: Json[] = []): Map<string, KubeObject> {
  const objects = renderChartText(dir, {
    helm: major,
    release: AGENT,
    namespace: NAMESPACE,
    skipTests: true,
    values,
  });
  return new Map(objects.map((o) => [identity(o), withoutHelmLabels(o)]));
}

function brokerConfig(objects: Map<string, KubeObject> | readonly KubeObject[]): BrokerConfigInput {
  const list = objects instanceof Map ? [...objects.values()] : objects;
  const map = list.find((o) => o.kind === 'ConfigMap' && o.metadata.name === BROKER)!;
  return JSON.parse((map['data'] as Record<string, string>)['config.json']!) as BrokerConfigInput;
}

function brokerHash(objects: Map<string, KubeObject>): string {
  const deployment = objects.get(`Deployment/${NAMESPACE}/${BROKER}`)!;
  const template = (deployment['spec'] as Json)['template'] as { metadata: { annotations: Json } };
  return template.metadata.annotations[HASH] as string;
}

function egressOf(config: BrokerConfigInput, caller: string) {
  return config.callers.find((c) => c.name === caller)!.egress ?? [];
}

/** The spec with one container's `network.egress` replaced. */
function withEgress(agent: ToolyardAgent, container: string, egress: NamedEgress): ToolyardAgent {
  const copy = structuredClone(agent);
  const spec = copy.spec as unknown as { backends: Json[]; toolchains: Json[] };
  const target =
    spec.backends.find((b) => b['name'] === container) ??
    spec.toolchains.find((t) => `toolchain-${t['name'] as string}` === container)!;
  target['network'] = { ...(target['network'] as Json), egress };
  return copy;
}

const BROKER_OBJECTS = [`ConfigMap/${NAMESPACE}/${BROKER}`, `Deployment/${NAMESPACE}/${BROKER}`];

describe('broker.egress values: one container, exactly as the spec would say it', () => {
  for (const major of HELM_MAJORS) {
    it(`Helm ${major}: a host added to toolchain-node reaches its caller alone and rolls the broker only`, () => {
      const before = render(defaultChart, major);
      const after = render(defaultChart, major, [
        { broker: { egress: { toolchainNode: { hosts: ['npm.pkg.example.com'] } } } },
      ]);
      const config = brokerConfig(after);
      const defaults = brokerConfig(before);
      assert.deepEqual(egressOf(config, 'toolchain-node'), [
        { host: 'npm.pkg.example.com', ports: [443] },
        { host: 'registry.npmjs.org', ports: [443] },
      ]);
      // The control: before the override only npm's host was there.
      assert.deepEqual(egressOf(defaults, 'toolchain-node'), [{ host: 'registry.npmjs.org', ports: [443] }]);
      for (const caller of ['claude', 'toolchain-terraform'])
        assert.deepEqual(egressOf(config, caller), egressOf(defaults, caller), `${caller} unchanged`);
      assert.ok(
        config.callers.every(
          (c) => c.name === 'toolchain-node' || !JSON.stringify(c).includes('example.com'),
        ),
      );
      assert.notEqual(brokerHash(after), brokerHash(before), 'the broker pod rolls');
      // Every object but the broker's ConfigMap and Deployment is as before (the agent pod's config hash too).
      for (const [id, object] of before) {
        if (BROKER_OBJECTS.includes(id)) continue;
        assert.equal(toYamlDocuments([after.get(id)!]), toYamlDocuments([object]), `${id} unchanged`);
      }
    });
  }

  const cases: { container: string; key: string; egress: NamedEgress }[] = [
    // Overlaps: a listed host that an ecosystem lists too, two ecosystems sharing hosts, a second port.
    {
      container: 'claude',
      key: 'claude',
      egress: { hosts: ['api.github.com', 'uploads.github.com:8443'], ecosystems: ['github'] },
    },
    {
      container: 'toolchain-terraform',
      key: 'toolchainTerraform',
      egress: {
        hosts: ['*.mirror.example.com', 'registry.terraform.io:8443'],
        ecosystems: ['helm', 'dockerhub'],
      },
    },
    {
      container: 'toolchain-node',
      key: 'toolchainNode',
      egress: { hosts: ['a.example.com:8443', 'a.example.com'] },
    },
  ];
  for (const major of HELM_MAJORS)
    for (const c of cases) {
      it(`Helm ${major}: ${c.container} ${JSON.stringify(c.egress)} renders the broker synth renders for that spec`, () => {
        const synth = renderAgent(withEgress(twoPorts, c.container, c.egress)).objects;
        // Helm merges maps, so both lists are given, as the spec's egress replaces both.
        const values = { hosts: c.egress.hosts ?? [], ecosystems: c.egress.ecosystems ?? [] };
        const helm = render(twoPortsChart, major, [{ broker: { egress: { [c.key]: values } } }]);
        for (const id of BROKER_OBJECTS) {
          const expected = synth.find((o) => identity(o) === id)!;
          assert.equal(toYamlDocuments([helm.get(id)!]), toYamlDocuments([expected]), `${id}`);
        }
        // The control: the chart's defaults render another broker config.
        assert.notDeepEqual(brokerConfig(render(twoPortsChart, major)), brokerConfig(synth));
      });
    }

  for (const major of HELM_MAJORS) {
    it(`Helm ${major}: empty lists leave the container its proxy settings and the broker refuses every host`, () => {
      const helm = render(defaultChart, major, [
        { broker: { egress: { toolchainNode: { hosts: [], ecosystems: [] } } } },
      ]);
      assert.deepEqual(egressOf(brokerConfig(helm), 'toolchain-node'), []);
      assert.ok(egressOf(brokerConfig(helm), 'toolchain-terraform').length > 0);
    });
  }
});

describe('broker.egress values: the notes an install prints', () => {
  it('Helm 4: each container with its lists as this release sets them (null: none)', () => {
    const notes = (values: Json[]) => {
      const out = helmNotes(defaultChart, { release: AGENT, namespace: NAMESPACE, values });
      assert.ok(out.ok, out.stderr);
      return out.stdout;
    };
    assert.match(notes([]), /\n {2}toolchain-node: hosts none; ecosystems npm\n/);
    const changed = notes([
      { broker: { egress: { toolchainNode: { hosts: ['npm.pkg.example.com'] }, claude: null } } },
    ]);
    assert.match(changed, /\n {2}toolchain-node: hosts npm\.pkg\.example\.com; ecosystems npm\n/);
    assert.match(changed, /\n {2}claude: hosts none; ecosystems none\n/);
    assert.match(changed, /\n {2}toolchain-terraform: hosts none; ecosystems terraform\n/);
    // And the broker config agrees: claude's entry removed, claude reaches nothing by name.
    const config = brokerConfig(render(defaultChart, 4, [{ broker: { egress: { claude: null } } }]));
    assert.deepEqual(egressOf(config, 'claude'), []);
  });
});

/** Values the schema must refuse, with the path Helm's error must name (Helm 3 dotted, Helm 4 a JSON pointer). */
const REFUSED: { values: Json; field: string[] }[] = [
  { values: { toolchainNode: { hosts: ['*'] } }, field: ['toolchainNode', 'hosts', '0'] },
  { values: { toolchainNode: { hosts: ['*.com'] } }, field: ['toolchainNode', 'hosts', '0'] },
  { values: { toolchainNode: { hosts: ['ok.example.com', '*.*'] } }, field: ['toolchainNode', 'hosts', '1'] },
  { values: { claude: { hosts: ['10.0.0.1'] } }, field: ['claude', 'hosts', '0'] },
  { values: { claude: { hosts: ['[::1]:443'] } }, field: ['claude', 'hosts', '0'] },
  { values: { claude: { hosts: ['API.github.com'] } }, field: ['claude', 'hosts', '0'] },
  { values: { claude: { hosts: ['api.*.example.com'] } }, field: ['claude', 'hosts', '0'] },
  { values: { claude: { hosts: ['api.github.com:22'] } }, field: ['claude', 'hosts', '0'] },
  { values: { claude: { hosts: ['api.github.com:8443'] } }, field: ['claude', 'hosts', '0'] },
  { values: { claude: { hosts: ['api.github.com:99999'] } }, field: ['claude', 'hosts', '0'] },
  { values: { claude: { hosts: ['api.github.com', 'api.github.com'] } }, field: ['claude', 'hosts'] },
  { values: { claude: { hosts: 'api.github.com' } }, field: ['claude', 'hosts'] },
  {
    values: { toolchainTerraform: { ecosystems: ['npmm'] } },
    field: ['toolchainTerraform', 'ecosystems', '0'],
  },
  {
    values: { toolchainTerraform: { ecosystems: ['npm', 'npm'] } },
    field: ['toolchainTerraform', 'ecosystems'],
  },
  { values: { toolchainNode: { registries: true } }, field: ['toolchainNode'] },
  // A container without egress by name (or no such container) has no entry: the spec decides whether a
  // container has proxy settings at all.
  { values: { toolchainRust: { hosts: ['static.rust-lang.org'] } }, field: [] },
];

function fieldPattern(field: readonly string[]): RegExp {
  const path = ['broker', 'egress', ...field];
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`${path.map(esc).join('\\.')}|/${path.map(esc).join('/')}`);
}

describe('broker.egress values: Helm refuses what the spec refuses, naming the field', () => {
  for (const major of HELM_MAJORS)
    it(`Helm ${major}: ${REFUSED.length} bad values refused by the values schema; good ones taken`, () => {
      for (const bad of REFUSED) {
        const out = helmTemplate(defaultChart, {
          helm: major,
          release: AGENT,
          namespace: NAMESPACE,
          values: [{ broker: { egress: bad.values } }],
        });
        const label = JSON.stringify(bad.values);
        assert.equal(out.ok, false, `${label} must be refused`);
        assert.match(out.stderr, /schema/i, `${label}: a values-schema error`);
        assert.match(out.stderr, fieldPattern(bad.field), `${label}: the error names the field`);
      }
      // The controls: the same fields with good values.
      const good = {
        claude: { hosts: ['api.github.com', '*.githubusercontent.com', 'api.github.com:443'] },
        toolchainTerraform: { ecosystems: ['npm', 'terraform', 'github'] },
        toolchainNode: { hosts: ['registry.example.co.uk'] },
      };
      const out = helmTemplate(defaultChart, {
        helm: major,
        release: AGENT,
        namespace: NAMESPACE,
        values: [{ broker: { egress: good } }],
      });
      assert.ok(out.ok, out.stderr);
    });

  for (const major of HELM_MAJORS)
    it(`Helm ${major}: with schema validation skipped, an unknown ecosystem still fails, naming the field`, () => {
      const dir = defaultChart;
      const values = join(mkdtempSync(join(tmpdir(), 'toolyard-egress-')), 'values.yaml');
      writeFileSync(
        values,
        JSON.stringify({ broker: { egress: { toolchainNode: { ecosystems: ['npmm'] } } } }),
      );
      const out = helmTemplate(dir, {
        helm: major,
        release: AGENT,
        namespace: NAMESPACE,
        values: [values],
        skipSchemaValidation: true,
      });
      assert.equal(out.ok, false);
      assert.match(out.stderr, /broker\.egress\.toolchainNode\.ecosystems: unknown ecosystem "npmm"/);
      assert.doesNotMatch(out.stderr, /schema/i, 'refused by the template, not the schema');
    });

  it('helm lint --strict passes with an egress override (Helm 3 and Helm 4)', () => {
    const values = join(mkdtempSync(join(tmpdir(), 'toolyard-egress-')), 'values.yaml');
    writeFileSync(
      values,
      JSON.stringify({
        broker: { egress: { toolchainNode: { hosts: ['npm.pkg.example.com'], ecosystems: ['github'] } } },
      }),
    );
    for (const major of HELM_MAJORS) assert.deepEqual(realHelmLint(major, defaultChart, [values]), []);
    // The control: lint does validate these values against the schema.
    const bad = join(mkdtempSync(join(tmpdir(), 'toolyard-egress-')), 'values.yaml');
    writeFileSync(bad, JSON.stringify({ broker: { egress: { toolchainNode: { hosts: ['*'] } } } }));
    for (const major of HELM_MAJORS) assert.notDeepEqual(realHelmLint(major, defaultChart, [bad]), []);
  });
});
