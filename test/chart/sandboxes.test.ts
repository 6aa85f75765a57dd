/**
 * Charts of agents with `spec.sandboxes` (docs/helm.md#sandboxes), both providers, with the real Helm 3 and Helm 4:
 * - default values render exactly synth's objects (the parity proof of parity.test.ts), the manager's config.json
 *   and its pod's config hash included;
 * - values for a warm pool's size, a template's idle timeout and retention, and the quota render exactly what
 *   synth renders for the spec with those fields changed, and differ from the defaults' output only in the
 *   SandboxWarmPool's replicas, the manager's config.json and the manager pod's config hash;
 * - under another release name and namespace, every object the manager's config names is one the release
 *   renders (warm pools, sandbox servers' Hosts, its Service host, its label, the `kubernetes` provider's pods'
 *   ServiceAccount, ConfigMaps and the labels their NetworkPolicy selects), and the config parses with the
 *   manager's own schema;
 * - the values schema refuses a negative pool size, a zero idle timeout, a negative retention, a zero quota and an
 *   unreadable quantity, naming the field; the chart refuses what the spec's checks refuse across fields (fewer
 *   sessions kept than sandboxes running, a quota below what one sandbox counts);
 * - the notes an install prints show the values, and the chart's README documents them;
 * - `helm lint --strict` and toolyard's chart lint pass, with defaults and with overrides.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { generateChart } from '../../chart-generator/src/generate.ts';
import { type KubeObject, renderAgent, toYamlDocuments } from '../../constructs/src/render.ts';
import type { Sandboxes, ToolyardAgent } from '../../schema/src/types.generated.ts';
import {
  parseSandboxManagerConfig,
  type SandboxManagerConfigInput,
} from '../../toolchain-server/sandbox-manager/config.ts';
import { helmLintStrict } from './helm-lint.ts';
import { sandboxAgent } from './sandbox-specs.ts';
import {
  HELM_MAJORS,
  type HelmMajor,
  helmNotes,
  helmTemplate,
  identity,
  renderChart,
  renderChartText,
  withoutHelmLabels,
  writeChart,
} from './support.ts';

type Json = Record<string, unknown>;
const HASH = 'toolyard.dev/config-hash';

const PROVIDERS = ['agent-sandbox', 'kubernetes'] as const;

/** A values path as Helm 3 (`a.b.c`) and Helm 4 (`/a/b/c`) name it. */
const field = (path: string): RegExp => new RegExp(path.split('.').join('[./]'));

function setup(provider: NonNullable<Sandboxes['provider']>) {
  const agent = sandboxAgent(provider);
  const rendered = renderAgent(agent);
  const chart = generateChart(rendered);
  return { agent, rendered, chart, dir: writeChart(chart) };
}
const cases = Object.fromEntries(PROVIDERS.map((p) => [p, setup(p)])) as Record<
  (typeof PROVIDERS)[number],
  ReturnType<typeof setup>
>;

function render(
  dir: string,
  name: string,
  major: HelmMajor,
  values: Json[] = [],
  release = name,
  namespace = 'agents',
): Map<string, KubeObject> {
  const objects = renderChartText(dir, { helm: major, release, namespace, skipTests: true, values });
  return new Map(objects.map((o) => [identity(o), withoutHelmLabels(o)]));
}

function managerConfig(objects: Iterable<KubeObject>, name: string): SandboxManagerConfigInput {
  const map = [...objects].find((o) => o.kind === 'ConfigMap' && o.metadata.name === name)!;
  return JSON.parse((map['data'] as Record<string, string>)['config.json']!) as SandboxManagerConfigInput;
}

/** Identities whose YAML differs between two renders (and those only in one). */
function changed(a: Map<string, KubeObject>, b: Map<string, KubeObject>): string[] {
  const ids = new Set([...a.keys(), ...b.keys()]);
  return [...ids]
    .filter(
      (id) => !a.has(id) || !b.has(id) || toYamlDocuments([a.get(id)!]) !== toYamlDocuments([b.get(id)!]),
    )
    .sort();
}

/** The spec's sandboxes with the fields the values below set. */
function withSpec(agent: ToolyardAgent, edit: (sandboxes: Sandboxes) => void): ToolyardAgent {
  const copy = structuredClone(agent);
  edit(copy.spec.sandboxes!);
  return copy;
}

describe('charts of agents with sandboxes', () => {
  for (const provider of PROVIDERS)
    for (const major of HELM_MAJORS) {
      it(`${provider}: Helm ${major}, default values render exactly the synth objects`, () => {
        const { rendered, chart, dir } = cases[provider];
        const options = { helm: major, release: chart.name, namespace: 'agents', skipTests: true };
        const helm = new Map(renderChartText(dir, options).map((o) => [identity(o), withoutHelmLabels(o)]));
        const synth = new Map(rendered.objects.map((o) => [identity(o), o]));
        assert.deepEqual([...helm.keys()].sort(), [...synth.keys()].sort(), 'the same objects');
        for (const [id, object] of synth)
          assert.equal(toYamlDocuments([helm.get(id)!]), toYamlDocuments([object]), `${id} differs`);
        const asKubernetesReadsIt = new Map(
          renderChart(dir, options).map((o) => [identity(o), withoutHelmLabels(o)]),
        );
        for (const [id, object] of synth)
          assert.deepEqual(asKubernetesReadsIt.get(id), object, `${id} as JSON`);
        assert.ok(
          rendered.objects.some(
            (o) => o.kind === 'ConfigMap' && o.metadata.name === `${chart.name}-sandboxes`,
          ),
          "the manager's ConfigMap is among them",
        );
      });
    }

  it('agent-sandbox: pool size, idle timeout, retention and quota values render what synth renders for that spec, and change nothing else', () => {
    const { agent, chart, dir } = cases['agent-sandbox'];
    const values = {
      sandboxes: {
        quota: { maxSandboxes: 4, maxSessions: 12, cpu: '2500m', memory: '4Gi' },
        templates: {
          python: { warmPool: { replicas: 5 }, idleTimeoutMinutes: 30 },
          offline: { retentionHours: 2 },
        },
      },
    };
    const spec = withSpec(agent, (s) => {
      s.quota = { maxSandboxes: 4, maxSessions: 12, cpu: '2500m', memory: '4Gi' };
      s.templates[0]!.warmPool = { replicas: 5 };
      s.templates[0]!.idleTimeoutMinutes = 30;
      s.templates[1]!.retentionHours = 2;
    });
    const expected = new Map(renderAgent(spec).objects.map((o) => [identity(o), o]));
    for (const major of HELM_MAJORS) {
      const defaults = render(dir, chart.name, major);
      const overridden = render(dir, chart.name, major, [values]);
      assert.deepEqual(
        changed(overridden, expected),
        [],
        `Helm ${major}: synth's objects for the edited spec`,
      );
      assert.deepEqual(changed(defaults, overridden), [
        'ConfigMap/agents/analyst-sandboxes',
        'Deployment/agents/analyst-sandboxes',
        'SandboxWarmPool/agents/analyst-sandbox-python',
      ]);
      const pool = overridden.get('SandboxWarmPool/agents/analyst-sandbox-python')!;
      assert.equal((pool['spec'] as Json)['replicas'], 5);
      const before = managerConfig(defaults.values(), 'analyst-sandboxes');
      const after = managerConfig(overridden.values(), 'analyst-sandboxes');
      assert.deepEqual(after.quota, {
        maxSandboxes: 4,
        maxSessions: 12,
        cpuMillis: 2500,
        memoryBytes: 4 * 1024 ** 3,
      });
      assert.deepEqual(
        after.templates.map((t) => [t.idleTimeoutSeconds, t.retentionSeconds]),
        [
          [1800, 86400],
          [900, 7200],
        ],
      );
      assert.deepEqual(
        { ...after, quota: before.quota, templates: before.templates },
        before,
        'the rest of the config is unchanged',
      );
      const hash = (objects: Map<string, KubeObject>) =>
        (
          (
            ((objects.get('Deployment/agents/analyst-sandboxes')!['spec'] as Json)['template'] as Json)[
              'metadata'
            ] as Json
          )['annotations'] as Json
        )[HASH];
      assert.notEqual(hash(overridden), hash(defaults), 'a values change rolls the manager');
    }
  });

  it('kubernetes: idle timeout, retention and quota values (quantities in every form the spec takes) render what synth renders for that spec', () => {
    const { agent, chart, dir } = cases.kubernetes;
    const quota = { maxSandboxes: 2, maxSessions: 5, cpu: '1.5', memory: '3e9' };
    const values = {
      sandboxes: { quota, templates: { python: { idleTimeoutMinutes: 1, retentionHours: 0 } } },
    };
    const spec = withSpec(agent, (s) => {
      s.quota = quota;
      s.templates[0]!.idleTimeoutMinutes = 1;
      s.templates[0]!.retentionHours = 0;
    });
    const expected = new Map(renderAgent(spec).objects.map((o) => [identity(o), o]));
    for (const major of HELM_MAJORS) {
      const overridden = render(dir, chart.name, major, [values]);
      assert.deepEqual(
        changed(overridden, expected),
        [],
        `Helm ${major}: synth's objects for the edited spec`,
      );
      assert.deepEqual(managerConfig(overridden.values(), 'analyst-k8s-sandboxes').quota, {
        maxSandboxes: 2,
        maxSessions: 5,
        cpuMillis: 1500,
        memoryBytes: 3e9,
      });
      // An empty quantity is no limit.
      const unlimited = render(dir, chart.name, major, [{ sandboxes: { quota: { cpu: '', memory: '' } } }]);
      const config = managerConfig(unlimited.values(), 'analyst-k8s-sandboxes');
      assert.deepEqual([config.quota.cpuMillis, config.quota.memoryBytes], [0, 0]);
    }
  });

  for (const provider of PROVIDERS)
    it(`${provider}: under another release and namespace, every object the manager's config names is the release's`, () => {
      const { chart, dir } = cases[provider];
      const objects = [...render(dir, chart.name, 4, [], 'team-a', 'elsewhere').values()];
      const names = (kind: string) => objects.filter((o) => o.kind === kind).map((o) => o.metadata.name);
      const manager = objects.find((o) => o.kind === 'Deployment' && o.metadata.name.endsWith('-sandboxes'))!;
      assert.equal(manager.metadata.name, `team-a-${chart.name}-sandboxes`);
      const config = managerConfig(objects, manager.metadata.name);
      const parsed = parseSandboxManagerConfig(config);
      assert.ok(parsed.ok, JSON.stringify(parsed));
      assert.equal(config.agent, `team-a-${chart.name}`);
      assert.equal(config.namespace, 'elsewhere');
      assert.deepEqual(config.listen.allowedHosts, [`${manager.metadata.name}.elsewhere.svc`]);
      assert.ok(names('Service').includes(manager.metadata.name));
      assert.deepEqual(config.labels, {
        'toolyard.dev/agent': `team-a-${chart.name}`,
        'toolyard.dev/sandbox-manager': manager.metadata.name,
      });
      for (const template of config.templates) {
        const own = `team-a-${chart.name}-sandbox-${template.name}`;
        assert.equal(template.serverHost, own);
        const serverConfig = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === own)!;
        const server = JSON.parse((serverConfig['data'] as Record<string, string>)['config.json']!);
        assert.deepEqual(server.listen.allowedHosts, [own], 'the server allows the Host the manager sends');
        const policy = objects.find((o) => o.kind === 'NetworkPolicy' && o.metadata.name === own)!;
        const selected = ((policy['spec'] as Json)['podSelector'] as Json)['matchLabels'] as Record<
          string,
          string
        >;
        if (provider === 'agent-sandbox') {
          assert.equal(template.warmPool, own);
          assert.ok(names('SandboxWarmPool').includes(own));
          const pool = objects.find((o) => o.kind === 'SandboxWarmPool' && o.metadata.name === own)!;
          assert.equal(((pool['spec'] as Json)['sandboxTemplateRef'] as Json)['name'], own);
          const sandboxTemplate = objects.find(
            (o) => o.kind === 'SandboxTemplate' && o.metadata.name === own,
          )!;
          const podTemplate = (sandboxTemplate['spec'] as Json)['podTemplate'] as Json;
          const labels = (podTemplate['metadata'] as Json)['labels'] as Record<string, string>;
          for (const [k, v] of Object.entries(selected)) assert.equal(labels[k], v, `pod label ${k}`);
          const podSpec = podTemplate['spec'] as Json;
          assert.ok(names('ServiceAccount').includes(podSpec['serviceAccountName'] as string));
        } else {
          assert.equal(template.warmPool, undefined);
          const pod = template.pod!;
          const podLabels = pod.metadata.labels ?? {};
          for (const [k, v] of Object.entries(selected))
            assert.equal(podLabels[k], v, `the NetworkPolicy selects the manager's pods: ${k}`);
          assert.equal(podLabels['app.kubernetes.io/managed-by'], 'toolyard');
          assert.ok(names('ServiceAccount').includes(pod.spec['serviceAccountName'] as string));
          const volumes = pod.spec['volumes'] as { configMap?: { name: string } }[];
          for (const v of volumes.filter((v) => v.configMap))
            assert.ok(names('ConfigMap').includes(v.configMap!.name), `ConfigMap ${v.configMap!.name}`);
        }
      }
    });

  it('the values schema refuses a negative pool size, zero timeouts, negative retention, zero quotas and unreadable quantities; the chart what the spec refuses across fields', () => {
    const { chart, dir } = cases['agent-sandbox'];
    const refused: [Json, RegExp][] = [
      [
        { templates: { python: { warmPool: { replicas: -1 } } } },
        field('sandboxes.templates.python.warmPool.replicas'),
      ],
      [
        { templates: { python: { warmPool: { replicas: 1.5 } } } },
        field('sandboxes.templates.python.warmPool.replicas'),
      ],
      [
        { templates: { python: { idleTimeoutMinutes: 0 } } },
        field('sandboxes.templates.python.idleTimeoutMinutes'),
      ],
      [
        { templates: { offline: { retentionHours: -1 } } },
        field('sandboxes.templates.offline.retentionHours'),
      ],
      [{ templates: { python: { idleTimeout: 5 } } }, /sandboxes[./]templates[./]python\b[^\n]*idleTimeout/],
      [{ quota: { maxSandboxes: 0 } }, field('sandboxes.quota.maxSandboxes')],
      [{ quota: { maxSessions: 'many' } }, field('sandboxes.quota.maxSessions')],
      [{ quota: { cpu: 'lots' } }, field('sandboxes.quota.cpu')],
      [{ quota: { memory: '-1Gi' } }, field('sandboxes.quota.memory')],
    ];
    // Across fields, as the spec's checks: fewer kept than running, a quota below what one sandbox counts.
    const acrossFields: [Json, RegExp][] = [
      [
        { quota: { maxSandboxes: 50 } },
        /sandboxes\.quota\.maxSessions 40 is below sandboxes\.quota\.maxSandboxes 50/,
      ],
      [
        { quota: { cpu: '500m' } },
        /sandboxes\.quota\.cpu \(500m\) is below what one sandbox of template "python" counts \(1000m\)/,
      ],
      [
        { quota: { memory: '512Mi' } },
        /sandboxes\.quota\.memory \(536870912 bytes\) is below what one sandbox of template "python" counts/,
      ],
    ];
    for (const major of HELM_MAJORS)
      for (const [sandboxes, message] of [...refused, ...acrossFields]) {
        const result = helmTemplate(dir, {
          helm: major,
          release: chart.name,
          namespace: 'agents',
          skipTests: true,
          values: [{ sandboxes }],
        });
        assert.equal(result.ok, false, `Helm ${major} accepts ${JSON.stringify(sandboxes)}`);
        assert.match(result.stderr, message, `Helm ${major}: ${JSON.stringify(sandboxes)}`);
      }
    // Without the schema, the chart's own quantity reader still refuses what it cannot read.
    const skipped = helmTemplate(dir, {
      release: chart.name,
      namespace: 'agents',
      skipTests: true,
      skipSchemaValidation: true,
      values: [{ sandboxes: { quota: { cpu: 'lots' } } }],
    });
    assert.equal(skipped.ok, false);
    assert.match(skipped.stderr, /sandboxes\.quota\.cpu: "lots" is not a Kubernetes quantity/);
  });

  it("the notes an install prints show the quota and each template's pool and lifecycle as the values set them; the README documents the values", () => {
    const { chart, dir } = cases['agent-sandbox'];
    const notes = helmNotes(dir, {
      release: chart.name,
      namespace: 'agents',
      values: [{ sandboxes: { quota: { cpu: '' }, templates: { python: { warmPool: { replicas: 7 } } } } }],
    });
    assert.ok(notes.ok, notes.stderr);
    assert.match(notes.stdout, /quota: 6 running, 40 kept; cpu no limit, memory 12Gi/);
    assert.match(notes.stdout, /python: warm pool 7; stopped after 10 min idle, destroyed 24 h after stop/);
    assert.match(notes.stdout, /offline: warm pool 1; stopped after 15 min idle, destroyed 48 h after stop/);
    // And the chart's README documents them, with their defaults.
    const readme = chart.files.get('README.md')!;
    assert.match(
      readme,
      /- \*\*Sandboxes\*\*: `sandboxes\.templates\.<name>` hold each template's warm pool size/,
    );
    for (const row of [
      '| `sandboxes.quota.maxSandboxes` | integer | `6` |',
      '| `sandboxes.quota.cpu` | string | `"6"` |',
      '| `sandboxes.quota.memory` | string | `"12Gi"` |',
      '| `sandboxes.templates.python.warmPool.replicas` | integer | `3` |',
      '| `sandboxes.templates.python.idleTimeoutMinutes` | integer | `10` |',
      '| `sandboxes.templates.offline.retentionHours` | integer | `48` |',
    ])
      assert.ok(readme.includes(row), row);
  });

  for (const provider of PROVIDERS)
    it(`${provider}: helm lint --strict (Helm 3 and 4) and toolyard's chart lint pass, with defaults, overrides and every ci/ file`, () => {
      const { dir } = cases[provider];
      assert.deepEqual(helmLintStrict(dir), []);
      const file = join(mkdtempSync(join(tmpdir(), 'toolyard-sbx-values-')), 'values.yaml');
      writeFileSync(
        file,
        JSON.stringify({
          sandboxes: {
            quota: { maxSandboxes: 3, cpu: '3', memory: '6Gi' },
            templates: { python: { idleTimeoutMinutes: 5, retentionHours: 1 } },
          },
        }),
      );
      assert.deepEqual(helmLintStrict(dir, [file]), []);
      for (const ci of readdirSync(join(dir, 'ci')))
        assert.deepEqual(helmLintStrict(dir, [join(dir, 'ci', ci)]), [], ci);
    });
});
