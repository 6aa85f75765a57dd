/**
 * "Install anywhere": for every example and generated spec, each value of issue #12 — persistence, Secret
 * names, security contexts (and OpenShift's adaptation), extension points, extraEnv replacing by name, open
 * `global` and pull secrets, existing ServiceAccounts, agent replicas, the test hooks — is first validated
 * against values.schema.json as Helm merges it with the defaults, then rendered by the real Helm, and its
 * effect asserted: the fields it should change change as intended, and nothing else does.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../constructs/src/render.ts';
import {
  assertValid,
  byKind,
  type ChartTarget,
  chartTargets,
  type Json,
  podOf,
  valuesKey,
} from './chart-targets.ts';
import { helmValues } from './helm-values.ts';
import { assertOnly, diff, esc } from './object-diff.ts';
import { helmTemplate, identity, isTestHook, renderChart } from './support.ts';

/** Validates `values` as Helm would, renders them, and returns the objects. */
function apply(t: ChartTarget, values: Json, options = {}): KubeObject[] {
  assertValid(t, values);
  return t.render(values, options);
}

/** Every Secret name the objects reference, in document order. */
function secretNamesIn(objects: readonly KubeObject[]): string[] {
  const names: string[] = [];
  const walk = (value: unknown, key?: string): void => {
    if (Array.isArray(value)) for (const v of value) walk(v);
    else if (typeof value === 'object' && value !== null) {
      for (const [k, v] of Object.entries(value)) {
        const ref =
          (k === 'name' && (key === 'secretKeyRef' || key === 'secretRef' || key === 'secret')) ||
          (k === 'secretName' && key === 'secret');
        if (ref && typeof v === 'string') names.push(v);
        else walk(v, k);
      }
    }
  };
  for (const o of objects) walk(o);
  return names;
}

for (const t of chartTargets()) {
  const plan = t.rendered.plan;
  const base = t.render();
  const agentPod = podOf(base, 'agent');
  const agentId = esc(identity(agentPod.object));
  const workloadKind = agentPod.object.kind;
  const gateways = plan.gateways.filter((g) => g.kind === 'deployed');
  const firstContainer = agentPod.containers[0]!;
  const containerKey = valuesKey(String(firstContainer['name']));
  const secretNames = Object.keys((t.defaults['secretNames'] as Json | undefined) ?? {});
  const hasTest = base.some(isTestHook);
  // The agent pod and every toolchain pod mount the workspace that agent.persistence describes.
  const toolchainPods = plan.toolchains.flatMap((tc) => (tc.pod ? [podOf(base, tc.pod.component)] : []));
  const workspacePods = [agentPod, ...toolchainPods];
  const workspacePodIds = `(${workspacePods.map((p) => esc(identity(p.object))).join('|')})`;
  const workspaceOf = (objects: readonly KubeObject[], component: string) =>
    (podOf(objects, component).spec['volumes'] as Json[]).find((v) => v['name'] === 'workspace');

  describe(`${t.label}: install anywhere`, () => {
    // ------------------------------------------------------------------ persistence
    const volume = plan.workspace.volume;
    if (volume.kind === 'claimTemplate') {
      it('agent.persistence: storageClass and size set the claim template; "-" and "" as documented', () => {
        const after = apply(t, { agent: { persistence: { storageClass: 'fast-ssd', size: '77Gi' } } });
        assertOnly(
          diff(base, after),
          new RegExp(
            `^${agentId}:spec\\.volumeClaimTemplates\\[0\\]\\.spec\\.(storageClassName|resources\\.requests\\.storage)$`,
          ),
          'persistence',
        );
        const claim = ((podOf(after, 'agent').object['spec'] as Json)['volumeClaimTemplates'] as Json[])[0]!;
        assert.equal((claim['spec'] as Json)['storageClassName'], 'fast-ssd');
        assert.equal(
          ((claim['spec'] as Json)['resources'] as { requests: Json }).requests['storage'],
          '77Gi',
        );
        const none = apply(t, { agent: { persistence: { storageClass: '-' } } });
        const noneClaim = (
          (podOf(none, 'agent').object['spec'] as Json)['volumeClaimTemplates'] as Json[]
        )[0]!;
        assert.equal((noneClaim['spec'] as Json)['storageClassName'], '');
        const clusterDefault = apply(t, { agent: { persistence: { storageClass: '' } } });
        const defaultClaim = (
          (podOf(clusterDefault, 'agent').object['spec'] as Json)['volumeClaimTemplates'] as Json[]
        )[0]!;
        assert.ok(!('storageClassName' in (defaultClaim['spec'] as Json)));
      });
      it('agent.persistence.existingClaim replaces the claim template with that claim', () => {
        const after = apply(t, { agent: { persistence: { existingClaim: 'shared-workspace' } } });
        const sts = podOf(after, 'agent');
        assert.ok(!('volumeClaimTemplates' in (sts.object['spec'] as Json)));
        const workspace = (sts.spec['volumes'] as Json[]).find((v) => v['name'] === 'workspace');
        assert.deepEqual(workspace, {
          name: 'workspace',
          persistentVolumeClaim: { claimName: 'shared-workspace' },
        });
        assertOnly(
          diff(base, after),
          new RegExp(`^${agentId}:spec\\.(volumeClaimTemplates|template\\.spec\\.volumes\\[\\d+\\].*)$`),
          'existingClaim',
        );
      });
    } else if (volume.kind === 'emptyDir') {
      it('agent.persistence.existingClaim mounts that claim instead of the emptyDir, with the Recreate strategy', () => {
        const after = apply(t, { agent: { persistence: { existingClaim: 'shared-workspace' } } });
        const pod = podOf(after, 'agent');
        const workspace = (pod.spec['volumes'] as Json[]).find((v) => v['name'] === 'workspace');
        assert.deepEqual(workspace, {
          name: 'workspace',
          persistentVolumeClaim: { claimName: 'shared-workspace' },
        });
        assert.deepEqual((pod.object['spec'] as Json)['strategy'], { type: 'Recreate' });
        assertOnly(
          diff(base, after),
          new RegExp(`^${agentId}:spec\\.(strategy\\.type|template\\.spec\\.volumes\\[\\d+\\]\\..*)$`),
          'existingClaim',
        );
      });
    } else if (volume.kind === 'sharedClaim') {
      const claimId = esc(`PersistentVolumeClaim/${plan.namespace}/${volume.claimName}`);
      it('agent.persistence: storageClass and size set the shared claim, which every pod mounts', () => {
        const after = apply(t, { agent: { persistence: { storageClass: 'cephfs', size: '77Gi' } } });
        assertOnly(
          diff(base, after),
          new RegExp(`^${claimId}:spec\\.(storageClassName|resources\\.requests\\.storage)$`),
          'persistence',
        );
        // The workspace's claim (an agent with cache claims has more than one).
        const claim = byKind(after, 'PersistentVolumeClaim').find(
          (c) => c.metadata.name === volume.claimName,
        )!;
        assert.deepEqual((claim['spec'] as Json)['accessModes'], ['ReadWriteMany']);
        assert.equal((claim['spec'] as Json)['storageClassName'], 'cephfs');
        for (const pod of workspacePods) {
          const component = String((pod.object.metadata['labels'] as Json)['app.kubernetes.io/component']);
          assert.deepEqual(workspaceOf(after, component), {
            name: 'workspace',
            persistentVolumeClaim: { claimName: claim.metadata.name },
          });
        }
      });
      it('agent.persistence.existingClaim replaces the shared claim in the agent pod and every toolchain pod', () => {
        const after = apply(t, { agent: { persistence: { existingClaim: 'team-rwx-claim' } } });
        assert.deepEqual(
          byKind(after, 'PersistentVolumeClaim').filter((c) => c.metadata.name === volume.claimName),
          [],
        );
        assertOnly(
          diff(base, after),
          new RegExp(
            `^(${claimId}:-|${workspacePodIds}:spec\\.template\\.spec\\.volumes\\[0\\]\\.persistentVolumeClaim\\.claimName)$`,
          ),
          'existingClaim',
        );
        for (const pod of workspacePods) {
          const component = String((pod.object.metadata['labels'] as Json)['app.kubernetes.io/component']);
          assert.deepEqual(workspaceOf(after, component), {
            name: 'workspace',
            persistentVolumeClaim: { claimName: 'team-rwx-claim' },
          });
        }
      });
    } else {
      it('agent.persistence.existingClaim names the workspace claim (in every pod that mounts it)', () => {
        const after = apply(t, { agent: { persistence: { existingClaim: 'other-claim' } } });
        assertOnly(
          diff(base, after),
          new RegExp(
            `^${workspacePodIds}:spec\\.template\\.spec\\.volumes\\[0\\]\\.persistentVolumeClaim\\.claimName$`,
          ),
          'existingClaim',
        );
        assert.equal(
          diff(base, after).length,
          workspacePods.length,
          'each pod that mounts the workspace follows it',
        );
      });
    }

    // ------------------------------------------------------------------ secretNames
    if (secretNames.length > 0) {
      it('secretNames: every secretKeyRef and Secret mount follows the mapping, nothing else changes', () => {
        const mapping = Object.fromEntries(secretNames.map((n) => [n, `${n}-external`]));
        const after = apply(t, { secretNames: mapping });
        const before = secretNamesIn(base);
        assert.ok(before.length > 0);
        assert.deepEqual(
          secretNamesIn(after),
          before.map((n) => mapping[n]),
        );
        assertOnly(diff(base, after), /\.(secretKeyRef|secretRef|secret)\.(name|secretName)$/, 'secretNames');
      });
    }

    // ------------------------------------------------------------------ security contexts
    it('agent.podSecurityContext merges over the restricted defaults; null removes a field', () => {
      const after = apply(t, {
        agent: {
          podSecurityContext: { runAsUser: null, fsGroup: null, runAsGroup: 1000, supplementalGroups: [5] },
        },
      });
      const sc = podOf(after, 'agent').spec['securityContext'] as Json;
      const expected = {
        ...(agentPod.spec['securityContext'] as Json),
        runAsGroup: 1000,
        supplementalGroups: [5],
      };
      delete (expected as Json)['runAsUser'];
      delete (expected as Json)['fsGroup'];
      assert.deepEqual(sc, expected);
      assertOnly(
        diff(base, after),
        new RegExp(`^${agentId}:spec\\.template\\.spec\\.securityContext\\.`),
        'pod',
      );
    });

    it(`agent.containers.${containerKey}.securityContext merges over the defaults of that container only`, () => {
      const after = apply(t, {
        agent: {
          containers: {
            [containerKey]: {
              securityContext: {
                runAsUser: null,
                readOnlyRootFilesystem: false,
                capabilities: { add: ['NET_BIND_SERVICE'] },
              },
            },
          },
        },
      });
      const sc = podOf(after, 'agent').containers[0]!['securityContext'] as Json;
      const expected = {
        ...(firstContainer['securityContext'] as Json),
        readOnlyRootFilesystem: false,
        capabilities: { add: ['NET_BIND_SERVICE'], drop: ['ALL'] },
      };
      delete (expected as Json)['runAsUser'];
      assert.deepEqual(sc, expected);
      assertOnly(
        diff(base, after),
        new RegExp(`^${agentId}:spec\\.template\\.spec\\.containers\\[0\\]\\.securityContext\\.`),
        'container',
      );
    });

    it('OpenShift: runAsUser, runAsGroup and fsGroup leave every security context ("force", or "auto" on OpenShift)', () => {
      const force = apply(t, { global: { compatibility: { openshift: { adaptSecurityContext: 'force' } } } });
      const auto = t.render({}, { apiVersions: ['security.openshift.io/v1'] });
      assert.deepEqual(auto, force);
      const changes = diff(base, force);
      assertOnly(changes, /[sS]ecurityContext\.(runAsUser|runAsGroup|fsGroup)$/, 'openshift');
      assert.ok(!JSON.stringify(force).match(/"(runAsUser|runAsGroup|fsGroup)"/));
      const disabled = t.render(
        { global: { compatibility: { openshift: { adaptSecurityContext: 'disabled' } } } },
        {
          apiVersions: ['security.openshift.io/v1'],
        },
      );
      assert.deepEqual(disabled, base);
    });

    // ------------------------------------------------------------------ extension points
    it('extraVolumes, extraVolumeMounts and extraEnvFrom are appended to the pod and that container', () => {
      const after = apply(t, {
        agent: {
          extraVolumes: [{ name: 'ca-bundle', configMap: { name: 'corporate-ca' } }],
          containers: {
            [containerKey]: {
              extraVolumeMounts: [{ name: 'ca-bundle', mountPath: '/etc/ssl/corp', readOnly: true }],
              extraEnvFrom: [{ secretRef: { name: 'more-settings' } }],
            },
          },
        },
      });
      const pod = podOf(after, 'agent');
      assert.deepEqual((pod.spec['volumes'] as Json[]).at(-1), {
        configMap: { name: 'corporate-ca' },
        name: 'ca-bundle',
      });
      const c = pod.containers[0]!;
      assert.deepEqual((c['volumeMounts'] as Json[]).at(-1), {
        mountPath: '/etc/ssl/corp',
        name: 'ca-bundle',
        readOnly: true,
      });
      assert.deepEqual(c['envFrom'], [{ secretRef: { name: 'more-settings' } }]);
      assert.equal(
        (c['volumeMounts'] as Json[]).length,
        (firstContainer['volumeMounts'] as Json[]).length + 1,
      );
      assertOnly(
        diff(base, after),
        new RegExp(
          `^${agentId}:spec\\.template\\.spec\\.(volumes\\[\\d+\\]|containers\\[0\\]\\.(volumeMounts\\[\\d+\\]|envFrom))`,
        ),
        'extension points',
      );
    });

    it('extraEnv replaces a generated variable of the same name and appends the others', () => {
      const env = firstContainer['env'] as Json[];
      const replaced = String(env[0]!['name']);
      const after = apply(t, {
        agent: {
          containers: {
            [containerKey]: {
              extraEnv: [
                { name: replaced, value: 'from-values' },
                { name: 'ADDED', value: '1' },
              ],
            },
          },
        },
      });
      const afterEnv = podOf(after, 'agent').containers[0]!['env'] as Json[];
      assert.deepEqual(
        afterEnv.filter((e) => e['name'] === replaced),
        [{ name: replaced, value: 'from-values' }],
      );
      assert.equal(afterEnv.length, env.length + 1);
      assert.deepEqual(
        afterEnv.slice(0, -2).map((e) => e['name']),
        env.slice(1).map((e) => e['name']),
        'the other generated variables stay, in order',
      );
    });

    it('extraObjects are rendered through tpl, maps and strings alike', () => {
      const after = apply(t, {
        extraObjects: [
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: '{{ .Release.Name }}-extra', namespace: '{{ .Release.Namespace }}' },
            data: { chart: '{{ .Chart.Name }}' },
          },
          'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ printf "%s-text" .Release.Name }}\n',
        ],
      });
      assert.deepEqual(
        diff(base, after),
        [`ConfigMap/${plan.namespace}/${t.chart.name}-extra:+`, `ConfigMap//${t.chart.name}-text:+`].sort(),
      );
      const extra = after.find((o) => o.metadata.name === `${t.chart.name}-extra`)!;
      assert.deepEqual(extra['data'], { chart: t.chart.name });
    });

    // ------------------------------------------------------------------ global and pull secrets
    it('global takes unknown keys (subcharts); pull secrets as strings or {name}, global first, no duplicates', () => {
      assert.deepEqual(apply(t, { global: { parentSetting: { any: ['thing'] } } }), base);
      const after = apply(t, {
        global: { imagePullSecrets: ['mirror', { name: 'shared' }] },
        imagePullSecrets: [{ name: 'shared' }, 'own'],
      });
      const pods = after.filter((o) => o.kind === 'Pod' || (o['spec'] as Json | undefined)?.['template']);
      for (const o of pods) {
        const spec =
          o.kind === 'Pod'
            ? (o['spec'] as Json)
            : (((o['spec'] as Json)['template'] as Json)['spec'] as Json);
        assert.deepEqual(
          spec['imagePullSecrets'],
          [{ name: 'mirror' }, { name: 'shared' }, { name: 'own' }],
          identity(o),
        );
      }
      assertOnly(diff(base, after), /:spec\.(template\.spec\.)?imagePullSecrets/, 'pull secrets');
    });

    // ------------------------------------------------------------------ ServiceAccounts
    it('agent.serviceAccount create: false uses the named existing ServiceAccount; without a name it fails', () => {
      const after = apply(t, { agent: { serviceAccount: { create: false, name: 'workload-identity' } } });
      const own = base.find(
        (o) =>
          o.kind === 'ServiceAccount' &&
          (o.metadata['labels'] as Json)['app.kubernetes.io/component'] === 'agent',
      )!;
      assert.ok(!after.some((o) => identity(o) === identity(own)), 'no ServiceAccount created');
      assert.equal(podOf(after, 'agent').spec['serviceAccountName'], 'workload-identity');
      for (const binding of byKind(after, 'RoleBinding')) {
        for (const s of binding['subjects'] as Json[]) assert.notEqual(s['name'], own.metadata.name);
      }
      const failed = helmTemplate(t.dir, {
        release: t.chart.name,
        namespace: plan.namespace,
        values: [{ agent: { serviceAccount: { create: false } } }],
      });
      assert.ok(!failed.ok);
      assert.match(failed.stderr, /agent\.serviceAccount\.name: name the existing ServiceAccount/);
      const renamed = apply(t, { agent: { serviceAccount: { name: 'agent-identity' } } });
      assert.ok(renamed.some((o) => o.kind === 'ServiceAccount' && o.metadata.name === 'agent-identity'));
      assert.equal(podOf(renamed, 'agent').spec['serviceAccountName'], 'agent-identity');
    });

    // ------------------------------------------------------------------ replicas
    if (workloadKind === 'Deployment') {
      it('agent.replicas sets the agent Deployment replicas', () => {
        const after = apply(t, { agent: { replicas: 3 } });
        assert.deepEqual(diff(base, after), [`${identity(agentPod.object)}:spec.replicas`]);
        assert.equal((podOf(after, 'agent').object['spec'] as Json)['replicas'], 3);
      });
    }

    // ------------------------------------------------------------------ gateways
    for (const gateway of gateways) {
      const key = valuesKey(gateway.name);
      const component = `gateway-${gateway.name}`;
      const gatewayPod = podOf(base, component);
      const id = esc(identity(gatewayPod.object));
      it(`gateway ${gateway.name}: security contexts, extension points and an existing ServiceAccount`, () => {
        const after = apply(t, {
          gateways: {
            [key]: {
              podSecurityContext: { fsGroup: null },
              securityContext: { runAsUser: 20000 },
              extraVolumes: [{ name: 'extra', emptyDir: {} }],
              extraVolumeMounts: [{ name: 'extra', mountPath: '/extra' }],
              extraEnvFrom: [{ configMapRef: { name: 'gateway-settings' } }],
              extraEnv: [{ name: 'HOME', value: '/extra' }],
              serviceAccount: { create: false, name: 'gateway-identity' },
            },
          },
        });
        const pod = podOf(after, component);
        assert.ok(!('fsGroup' in (pod.spec['securityContext'] as Json)));
        const c = pod.containers[0]!;
        assert.equal((c['securityContext'] as Json)['runAsUser'], 20000);
        assert.deepEqual((pod.spec['volumes'] as Json[]).at(-1), { emptyDir: {}, name: 'extra' });
        assert.deepEqual((c['volumeMounts'] as Json[]).at(-1), { mountPath: '/extra', name: 'extra' });
        assert.deepEqual(c['envFrom'], [{ configMapRef: { name: 'gateway-settings' } }]);
        assert.deepEqual(
          (c['env'] as Json[]).filter((e) => e['name'] === 'HOME'),
          [{ name: 'HOME', value: '/extra' }],
        );
        assert.equal(pod.spec['serviceAccountName'], 'gateway-identity');
        const bindings = byKind(after, 'RoleBinding').filter(
          (b) => (b.metadata['labels'] as Json)['app.kubernetes.io/component'] === component,
        );
        for (const b of bindings)
          assert.deepEqual(
            (b['subjects'] as Json[]).map((s) => s['name']),
            ['gateway-identity'],
          );
        const sa = `ServiceAccount/${plan.namespace}/${gateway.objectName}:-`;
        const changes = diff(base, after);
        assert.ok(changes.includes(sa));
        assertOnly(
          changes.filter((c) => c !== sa),
          new RegExp(`^(${id}:spec\\.template\\.spec\\.|RoleBinding/[^:]+:subjects\\[0\\]\\.name$)`),
          'gateway',
        );
      });
    }

    // ------------------------------------------------------------------ toolchain pods
    for (const toolchain of plan.toolchains) {
      const own = toolchain.pod;
      if (!own) continue;
      const key = valuesKey(toolchain.name);
      const component = own.component;
      const id = esc(identity(podOf(base, component).object));
      const containerKey = valuesKey(toolchain.containerName);
      it(`toolchain ${toolchain.name} (its own pod): replicas, scheduling, security contexts, extension points, an existing ServiceAccount`, () => {
        const after = apply(t, {
          toolchains: {
            [key]: {
              replicas: 2,
              nodeSelector: { 'example.com/pool': 'builds' },
              podSecurityContext: { fsGroupChangePolicy: 'Always' },
              extraVolumes: [{ name: 'extra', emptyDir: {} }],
              serviceAccount: { create: false, name: 'builds-identity' },
              containers: {
                [containerKey]: {
                  securityContext: { runAsUser: 20000 },
                  extraVolumeMounts: [{ name: 'extra', mountPath: '/extra' }],
                  extraEnv: [{ name: 'HOME', value: '/extra' }],
                },
              },
            },
          },
        });
        const pod = podOf(after, component);
        assert.equal((pod.object['spec'] as Json)['replicas'], 2);
        assert.deepEqual(pod.spec['nodeSelector'], { 'example.com/pool': 'builds' });
        assert.equal((pod.spec['securityContext'] as Json)['fsGroupChangePolicy'], 'Always');
        assert.equal(
          (pod.spec['securityContext'] as Json)['fsGroup'],
          65532,
          'the same fsGroup as the agent pod',
        );
        const c = pod.containers.find((x) => x['name'] === toolchain.containerName)!;
        assert.equal((c['securityContext'] as Json)['runAsUser'], 20000);
        assert.deepEqual((c['volumeMounts'] as Json[]).at(-1), { mountPath: '/extra', name: 'extra' });
        assert.deepEqual(
          (c['env'] as Json[]).filter((e) => e['name'] === 'HOME'),
          [{ name: 'HOME', value: '/extra' }],
        );
        assert.equal(pod.spec['serviceAccountName'], 'builds-identity');
        assert.equal(pod.spec['automountServiceAccountToken'], false, 'still no token');
        const sa = `ServiceAccount/${plan.namespace}/${own.objectName}:-`;
        const changes = diff(base, after);
        assert.ok(changes.includes(sa));
        assertOnly(
          changes.filter((x) => x !== sa),
          new RegExp(`^${id}:spec\\.(replicas|template\\.spec\\.)`),
          'toolchain pod',
        );
      });
    }

    // ------------------------------------------------------------------ tests
    if (hasTest) {
      it('tests.enabled=false removes exactly the test hooks', () => {
        const after = apply(t, { tests: { enabled: false } });
        assert.deepEqual(
          after,
          base.filter((o) => !isTestHook(o)),
        );
      });
    }

    it('several values files merge as Helm merges them before validation and rendering', () => {
      const files: Json[] = [
        { agent: { podSecurityContext: { runAsUser: 4242 }, podLabels: { a: 'b' } } },
        { agent: { podSecurityContext: { runAsUser: null }, podLabels: { c: 'd' } } },
      ];
      assertValid(t, ...files);
      const merged = helmValues(t.defaults, ...files);
      assert.ok(!('runAsUser' in ((merged['agent'] as Json)['podSecurityContext'] as Json)));
      const viaFiles = renderChart(t.dir, {
        release: t.chart.name,
        namespace: plan.namespace,
        values: files,
      });
      const helmMerged = helmTemplate(t.dir, {
        release: t.chart.name,
        namespace: plan.namespace,
        values: files,
        printValues: true,
      });
      assert.deepEqual(
        JSON.parse(helmMerged.stdout),
        merged,
        'Helm merges the files as the test support does',
      );
      const sc = { ...(agentPod.spec['securityContext'] as Json) };
      delete sc['runAsUser'];
      assert.deepEqual(podOf(viaFiles, 'agent').spec['securityContext'], sc);
      assert.deepEqual(
        (podOf(viaFiles, 'agent').object['spec'] as { template: { metadata: { labels: Json } } }).template
          .metadata.labels['c'],
        'd',
      );
    });
  });
}
