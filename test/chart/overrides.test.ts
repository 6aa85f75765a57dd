/**
 * Proof 2 (overrides): each lifted value, set through a values file, changes exactly the fields it should and
 * nothing else; networkPolicy.enabled=false removes every NetworkPolicy; a release name renames every object
 * consistently and keeps every reference (Service selectors, RoleBindings, ConfigMap mounts, gateway URLs in
 * the MCP client configs) intact.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../constructs/src/render.ts';
import { assertOnly, diff, esc } from './object-diff.ts';
import { assertReferencesResolve } from './references.ts';
import { type Example, examples, HELM_MAJORS, identity, renderChart, writeChart } from './support.ts';

type Json = Record<string, unknown>;

function workload(objects: readonly KubeObject[], component: string): KubeObject {
  const found = objects.find(
    (o) =>
      (o.kind === 'Deployment' || o.kind === 'StatefulSet') &&
      (o.metadata['labels'] as Json)['app.kubernetes.io/component'] === component,
  );
  assert.ok(found, `workload of ${component}`);
  return found;
}

function podSpec(object: KubeObject): Json {
  return ((object['spec'] as Json)['template'] as Json)['spec'] as Json;
}

function containerIndex(object: KubeObject, name: string): number {
  return (podSpec(object)['containers'] as Json[]).findIndex((c) => c['name'] === name);
}

for (const example of examples())
  for (const helm of HELM_MAJORS) {
    const name = example.chart.name;
    const namespace = example.rendered.plan.namespace;
    describe(`${example.file}: lifted values (Helm ${helm})`, () => {
      const dir = writeChart(example.chart);
      const render = (values: Json, release = name, ns = namespace): KubeObject[] =>
        renderChart(dir, { helm, release, namespace: ns, values: [values] });
      const base = render({});
      const agentWorkload = workload(base, 'agent');
      const agentId = esc(identity(agentWorkload));
      const backend = example.rendered.plan.backends[0]!;
      const backendKey = backend.name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
      const ci = containerIndex(agentWorkload, backend.name);
      const containerPath = `${agentId}:spec\\.template\\.spec\\.containers\\[${ci}\\]`;

      it('image tag changes only that container image', () => {
        const after = render({ agent: { containers: { [backendKey]: { image: { tag: '9.9.9' } } } } });
        const changes = diff(base, after);
        assertOnly(changes, new RegExp(`^${containerPath}\\.image$`), 'image tag');
        const image = (podSpec(workload(after, 'agent'))['containers'] as Json[])[ci]!['image'];
        assert.match(String(image), /:9\.9\.9$/);
      });

      it('image digest wins over the tag', () => {
        const digest = `sha256:${'ab'.repeat(32)}`;
        const after = render({ agent: { containers: { [backendKey]: { image: { digest } } } } });
        assertOnly(diff(base, after), new RegExp(`^${containerPath}\\.image$`), 'digest');
        const image = (podSpec(workload(after, 'agent'))['containers'] as Json[])[ci]!['image'];
        assert.ok(String(image).endsWith(`@${digest}`));
      });

      it('global.imageRegistry replaces every registry and touches nothing else', () => {
        const after = render({ global: { imageRegistry: 'mirror.example:5000' } });
        assertOnly(
          diff(base, after),
          /:spec\.(template\.spec\.)?(init)?[cC]ontainers\[\d+\]\.image$/,
          'registry',
        );
        for (const o of after) {
          const template = (o['spec'] as Json | undefined)?.['template'] as Json | undefined;
          const pod = o.kind === 'Pod' ? (o['spec'] as Json) : (template?.['spec'] as Json | undefined);
          if (!pod) continue;
          for (const c of [
            ...((pod['containers'] as Json[]) ?? []),
            ...((pod['initContainers'] as Json[]) ?? []),
          ]) {
            assert.ok(String(c['image']).startsWith('mirror.example:5000/'), String(c['image']));
          }
        }
      });

      it('pullPolicy, resources and extraEnv change only that container', () => {
        const after = render({
          agent: {
            containers: {
              [backendKey]: {
                image: { pullPolicy: 'Always' },
                resources: { requests: { cpu: '3' }, limits: { memory: '9Gi' } },
                extraEnv: [{ name: 'EXTRA', value: '1' }],
              },
            },
          },
        });
        const changes = diff(base, after);
        assertOnly(
          changes,
          new RegExp(`^${containerPath}\\.(imagePullPolicy|resources\\..*|env\\[\\d+\\](\\.(name|value))?)$`),
          'container values',
        );
        const container = (podSpec(workload(after, 'agent'))['containers'] as Json[])[ci]!;
        assert.equal(container['imagePullPolicy'], 'Always');
        // Helm merges maps: keys not set keep their defaults.
        const resources = container['resources'] as { limits: Json; requests: Json };
        assert.equal(resources.requests['cpu'], '3');
        assert.equal(resources.limits['memory'], '9Gi');
        assert.deepEqual((container['env'] as Json[]).at(-1), { name: 'EXTRA', value: '1' });
      });

      it('scheduling values reach only the agent pod spec', () => {
        const after = render({
          agent: {
            nodeSelector: { 'kubernetes.io/os': 'linux' },
            tolerations: [{ key: 'dedicated', operator: 'Exists', effect: 'NoSchedule' }],
            affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [] } },
            topologySpreadConstraints: [
              { maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: {} },
            ],
            priorityClassName: 'agents',
          },
        });
        assertOnly(
          diff(base, after),
          new RegExp(
            `^${agentId}:spec\\.template\\.spec\\.(nodeSelector|tolerations|affinity|topologySpreadConstraints|priorityClassName)(\\W|$)`,
          ),
          'scheduling',
        );
        const pod = podSpec(workload(after, 'agent'));
        assert.equal(pod['priorityClassName'], 'agents');
        assert.deepEqual(pod['nodeSelector'], { 'kubernetes.io/os': 'linux' });
      });

      it('pod labels and annotations reach the pod template, never a selector', () => {
        const after = render({ agent: { podLabels: { extra: 'yes' }, podAnnotations: { note: 'x' } } });
        assertOnly(
          diff(base, after),
          new RegExp(`^${agentId}:spec\\.template\\.metadata\\.(labels\\.extra|annotations(\\.note)?)$`),
          'pod labels',
        );
      });

      it('ServiceAccount annotations reach only the ServiceAccount', () => {
        const after = render({
          agent: { serviceAccount: { annotations: { 'iam.gke.io/gcp-service-account': 'a@b' } } },
        });
        assertOnly(
          diff(base, after),
          new RegExp(`^ServiceAccount/${esc(namespace)}/${esc(name)}:metadata\\.annotations(\\..*)?$`),
          'SA annotations',
        );
      });

      it('commonLabels reach every object and pod, never a selector', () => {
        const after = render({ commonLabels: { 'cost-center': 'x' } });
        const changes = diff(base, after);
        assertOnly(
          changes,
          /:(spec\.template\.|spec\.volumeClaimTemplates\[\d+\]\.)?metadata\.labels\.cost-center$/,
          'commonLabels',
        );
        assert.equal(changes.filter((c) => /:metadata\.labels\.cost-center$/.test(c)).length, base.length);
      });

      it('imagePullSecrets reach every pod spec (the test pod too)', () => {
        const after = render({ imagePullSecrets: [{ name: 'regcred' }] });
        const changes = diff(base, after);
        assertOnly(changes, /:spec\.(template\.spec\.)?imagePullSecrets/, 'imagePullSecrets');
        const pods = after.filter((o) => o.kind === 'Pod' || (o['spec'] as Json | undefined)?.['template']);
        assert.equal(changes.filter((c) => c.endsWith('imagePullSecrets')).length, pods.length);
      });

      const hasNetworkPolicies = base.some((o) => o.kind === 'NetworkPolicy');
      it('networkPolicy.enabled=false removes every NetworkPolicy and nothing else', {
        skip: !hasNetworkPolicies,
      }, () => {
        const after = render({ networkPolicy: { enabled: false } });
        assert.deepEqual(
          after.filter((o) => o.kind === 'NetworkPolicy'),
          [],
        );
        assert.deepEqual(
          diff(base, after),
          base
            .filter((o) => o.kind === 'NetworkPolicy')
            .map((o) => `${identity(o)}:-`)
            .sort(),
        );
      });

      const gateways = example.rendered.plan.gateways.filter((g) => g.kind === 'deployed');
      for (const gateway of gateways) {
        it(`gateway ${gateway.name}: replicas, image and resources change only its Deployment`, () => {
          const key = gateway.name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
          const after = render({
            gateways: {
              [key]: { replicas: 5, image: { tag: '7.7.7' }, resources: { limits: { memory: '1Gi' } } },
            },
          });
          const id = esc(identity(workload(base, `gateway-${gateway.name}`)));
          assertOnly(
            diff(base, after),
            new RegExp(
              `^${id}:spec\\.(replicas|template\\.spec\\.containers\\[0\\]\\.(image|resources\\..*))$`,
            ),
            'gateway',
          );
          assert.equal((workload(after, `gateway-${gateway.name}`)['spec'] as Json)['replicas'], 5);
        });
      }

      it('a release name renames every object and keeps every reference intact', () => {
        const release = 'prod';
        const ns = 'ops';
        const after = render({}, release, ns);
        const fullname = `${release}-${name}`;
        assertReferences(example, after, fullname, ns);
        // Same objects otherwise: names map one to one.
        assert.equal(after.length, base.length);
      });

      it('fullnameOverride renames every object and keeps every reference intact', () => {
        const after = render({ fullnameOverride: 'renamed' });
        assertReferences(example, after, 'renamed', namespace);
      });
    });
  }

/** Every name derives from `fullname`, every reference resolves, and no old name survives. */

function assertReferences(
  example: Example,
  objects: readonly KubeObject[],
  fullname: string,
  ns: string,
): void {
  const agent = example.chart.name;
  const spec = example.rendered.plan.namespace;
  const otherNamespaces = new Set(
    example.rendered.plan.gateways.flatMap((g) =>
      g.kind === 'deployed' ? (g.kubernetes?.namespaces ?? []) : [],
    ),
  );
  assertReferencesResolve(objects);
  for (const o of objects) {
    const id = identity(o);
    assert.ok(o.metadata.name === fullname || o.metadata.name.startsWith(`${fullname}-`), `${id}: name`);
    if (o.metadata.namespace !== ns) {
      assert.ok(
        ['Role', 'RoleBinding'].includes(o.kind) && otherNamespaces.has(String(o.metadata.namespace)),
        `${id}: namespace`,
      );
    }
    const text = JSON.stringify(o);
    assert.ok(!text.includes(`.${spec}.svc`) || ns === spec, `${id}: old namespace in a host`);
    for (const old of example.rendered.objects.map((x) => x.metadata.name)) {
      if (old.startsWith(fullname)) continue;
      assert.ok(!text.includes(`"${old}"`) || old === agent, `${id}: old name ${old}`);
      assert.ok(!text.includes(`${old}.`) || !text.includes(`//${old}.`), `${id}: old host ${old}`);
    }
  }
}
