import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { App, Chart, Testing } from 'cdk8s';
import * as plus from 'cdk8s-plus-28';
import { Agent, AgentSpecError } from '../../constructs/src/index.ts';
import {
  find,
  type Json,
  labelsFor,
  minimalAgent,
  modelKey,
  objectsOf,
  podSpecOf,
  rustToolchain,
} from './fixtures.ts';

describe('Agent', () => {
  it('renders exactly the objects of a minimal agent, in a stable order', () => {
    const objects = objectsOf(minimalAgent());
    assert.deepEqual(
      objects.map((o) => `${o.kind}/${o.metadata.namespace}/${o.metadata.name}`),
      [
        'ServiceAccount/agents/tiny',
        'ConfigMap/agents/tiny-mcp-clients',
        'Service/agents/tiny',
        'Deployment/agents/tiny',
        'ServiceAccount/agents/tiny-broker',
        'ConfigMap/agents/tiny-broker',
        'Deployment/agents/tiny-broker',
        'Service/agents/tiny-broker',
        'NetworkPolicy/agents/tiny',
        'NetworkPolicy/agents/tiny-broker',
      ],
    );
  });

  it('gives the agent its own ServiceAccount with no token', () => {
    assert.deepEqual(find(objectsOf(minimalAgent()), 'ServiceAccount', 'tiny'), {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { labels: labelsFor('tiny', 'agent'), name: 'tiny', namespace: 'agents' },
      automountServiceAccountToken: false,
    });
  });

  it('exposes the backends through a ClusterIP Service selecting only the agent pod', () => {
    assert.deepEqual(find(objectsOf(minimalAgent()), 'Service', 'tiny'), {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { labels: labelsFor('tiny', 'agent'), name: 'tiny', namespace: 'agents' },
      spec: {
        ports: [{ name: 'claude', port: 8080, protocol: 'TCP', targetPort: 'claude' }],
        selector: {
          'app.kubernetes.io/component': 'agent',
          'app.kubernetes.io/instance': 'tiny',
          'app.kubernetes.io/name': 'tiny',
        },
        type: 'ClusterIP',
      },
    });
  });

  it('mounts the workspace into every backend and toolchain at the same path', () => {
    const pod = podSpecOf(objectsOf(minimalAgent({ toolchains: [rustToolchain] })), 'tiny');
    for (const container of pod.containers) {
      assert.ok(
        container.volumeMounts.some(
          (m: { name: string; mountPath: string }) => m.name === 'workspace' && m.mountPath === '/workspace',
        ),
        container.name,
      );
    }
    assert.deepEqual(pod.volumes[0], { name: 'workspace', emptyDir: { sizeLimit: '10Gi' } });
  });

  it('renders a StatefulSet with a claim template and a headless Service for a claim-template workspace', () => {
    const objects = objectsOf(
      minimalAgent({
        workspace: { volume: { persistentVolumeClaim: { storage: '20Gi', storageClassName: 'fast' } } },
      }),
    );
    const sts = find(objects, 'StatefulSet', 'tiny') as Json;
    assert.equal(sts.spec['serviceName'], 'tiny');
    // The stored form (apiVersion, kind, volumeMode, status as the API server fills them in): a second field
    // manager applying the same template must not conflict with the first (test/cluster/e2e/gitops.e2e.ts).
    assert.deepEqual(sts.spec['volumeClaimTemplates'], [
      {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { labels: labelsFor('tiny', 'agent'), name: 'workspace' },
        spec: {
          accessModes: ['ReadWriteOnce'],
          resources: { requests: { storage: '20Gi' } },
          storageClassName: 'fast',
          volumeMode: 'Filesystem',
        },
        status: { phase: 'Pending' },
      },
    ]);
    assert.equal((find(objects, 'Service', 'tiny') as Json).spec.clusterIP, 'None');
    // The broker is the only Deployment: the agent pod is the StatefulSet's.
    assert.deepEqual(
      objects.filter((o) => o.kind === 'Deployment').map((o) => o.metadata.name),
      ['tiny-broker'],
    );
  });

  it('uses an existing claim with a Recreate Deployment', () => {
    const objects = objectsOf(
      minimalAgent({ workspace: { volume: { persistentVolumeClaim: { claimName: 'src' } } } }),
    );
    const deployment = find(objects, 'Deployment', 'tiny') as Json;
    assert.deepEqual(deployment.spec.strategy, { type: 'Recreate' });
    assert.deepEqual(podSpecOf(objects, 'tiny').volumes[0], {
      name: 'workspace',
      persistentVolumeClaim: { claimName: 'src' },
    });
  });

  it('projects an API token into backends only when rbac.preset is set', () => {
    const objects = objectsOf(
      minimalAgent({
        rbac: { preset: 'read-only' },
        toolchains: [rustToolchain],
        networkPolicy: { apiServerEgress: { cidrs: ['10.96.0.1/32'], ports: [443] } },
      }),
    );
    const pod = podSpecOf(objects, 'tiny');
    assert.equal(pod.automountServiceAccountToken, false);
    const mounts = (name: string) =>
      pod.containers
        .find((c: { name: string }) => c.name === name)
        .volumeMounts.map((m: { name: string }) => m.name);
    assert.ok(mounts('claude').includes('kube-api-access'));
    assert.ok(!mounts('toolchain-rust').includes('kube-api-access'));
    assert.equal(find(objects, 'Role', 'tiny').kind, 'Role');
    assert.deepEqual((find(objects, 'RoleBinding', 'tiny') as Json).subjects, [
      { kind: 'ServiceAccount', name: 'tiny', namespace: 'agents' },
    ]);
  });

  it("composes into anyone's cdk8s chart next to their own objects", () => {
    const app = Testing.app();
    const chart = new Chart(app, 'platform');
    new plus.ConfigMap(chart, 'theirs', { metadata: { name: 'theirs' }, data: { a: 'b' } });
    const spec = minimalAgent();
    const agent = new Agent(chart, 'reviewer', spec);
    const names = Testing.synth(chart).map(
      (o: { kind: string; metadata: { name: string } }) => `${o.kind}/${o.metadata.name}`,
    );
    assert.ok(names.includes('ConfigMap/theirs'));
    assert.ok(names.includes('Deployment/tiny'));
    assert.equal(agent.plan.name, 'tiny');
  });

  it('rejects an invalid spec with every problem and adds nothing to the chart', () => {
    const chart = new Chart(new App({ outdir: 'unused' }), 'c');
    const bad = minimalAgent({
      backends: [
        { name: 'a', type: 'claude', image: { repository: 'x', tag: '1' }, port: 8080, model: modelKey },
        { name: 'b', type: 'openai', image: { repository: 'y', tag: '1' }, port: 8080, model: modelKey },
      ],
      toolchains: [{ ...rustToolchain, tools: { mode: 'exec', presets: [], allowedCommands: [] } }],
    });
    assert.throws(
      () => new Agent(chart, 'bad', bad),
      (error: unknown) => {
        assert.ok(error instanceof AgentSpecError);
        assert.deepEqual(
          error.problems.map((p) => p.path),
          ['/spec/backends/1/port', '/spec/toolchains/0/tools/allowedCommands'],
        );
        return true;
      },
    );
    assert.equal(chart.node.children.length, 0);
  });

  it('rejects schema violations from typed callers too', () => {
    const chart = new Chart(new App({ outdir: 'unused' }), 'c');
    const spec = minimalAgent();
    assert.throws(
      () => new Agent(chart, 'bad', { metadata: { name: 'Not_A_Label' }, spec: spec.spec }),
      /\/metadata\/name/,
    );
  });
});

describe('imagePullSecrets', () => {
  it('reach every generated pod, and only when set', () => {
    const spec = minimalAgent({
      imagePullSecrets: ['registry'],
      gateways: [{ name: 'k8s', image: { repository: 'k', tag: '1' }, port: 8000 }],
    });
    const objects = objectsOf(spec);
    for (const name of ['tiny', 'tiny-k8s']) {
      assert.deepEqual(podSpecOf(objects, name).imagePullSecrets, [{ name: 'registry' }], name);
    }
    assert.equal(podSpecOf(objectsOf(minimalAgent()), 'tiny').imagePullSecrets, undefined);
  });
});
