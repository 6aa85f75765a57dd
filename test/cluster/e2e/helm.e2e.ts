/**
 * The published charts with real Helm 3 and Helm 4 against the real API server (issue 28), each chart in a
 * restricted namespace of its own per Helm major:
 * - `install --wait`: every workload Available;
 * - `upgrade --wait` with one changed value at a time, and exactly the workloads whose pod template that value
 *   changes roll (their pod-template hash changes, every other's stays): a broker egress list (the broker's
 *   config.json, which rolls the broker through its config hash) and the agent's pod annotations;
 * - `rollback` to the first revision: every workload back on its first pod-template hash;
 * - `helm test`: the test pod completes (on kwok, its stage plays the completion; docs/cluster.md);
 * - `uninstall --wait`: nothing of the release is left but what docs/helm.md says stays (a StatefulSet's
 *   volumeClaimTemplates claims, which Kubernetes keeps).
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { parse } from 'yaml';
import {
  examples,
  HELM_MAJORS,
  type HelmMajor,
  helmTemplate,
  runHelm,
  writeChart,
} from '../../chart/support.ts';
import type { ClusterClient } from '../client.ts';
import { applyPrerequisites } from './prerequisites.ts';
import { objectsOf, restrictedNamespace, useCluster } from './support.ts';

interface Workload {
  readonly kind: 'Deployment' | 'StatefulSet';
  readonly name: string;
  readonly template: unknown;
}

function workloadsOf(manifest: string): Workload[] {
  return objectsOf(manifest).flatMap((o) =>
    o.kind === 'Deployment' || o.kind === 'StatefulSet'
      ? [
          {
            kind: o.kind,
            name: o.metadata.name,
            template: (o as { spec?: { template?: unknown } }).spec?.template,
          },
        ]
      : [],
  );
}

/** The workloads whose pod template differs between two renders (what an upgrade must roll). */
function changedTemplates(before: string, after: string): string[] {
  const old = new Map(workloadsOf(before).map((w) => [`${w.kind}/${w.name}`, JSON.stringify(w.template)]));
  return workloadsOf(after)
    .filter((w) => old.get(`${w.kind}/${w.name}`) !== JSON.stringify(w.template))
    .map((w) => `${w.kind}/${w.name}`)
    .sort();
}

interface ReplicaSetList {
  items: {
    metadata: {
      labels?: Record<string, string>;
      annotations?: Record<string, string>;
      ownerReferences?: { kind: string; name: string }[];
    };
  }[];
}

/** Each workload's current pod-template hash: its newest ReplicaSet's, or a StatefulSet's update revision. */
function templateHashes(cluster: ClusterClient, namespace: string): Map<string, string> {
  const hashes = new Map<string, string>();
  const newest = new Map<string, number>();
  for (const rs of cluster.kubectlJson<ReplicaSetList>(['get', 'replicasets', '-n', namespace]).items) {
    const owner = rs.metadata.ownerReferences?.find((o) => o.kind === 'Deployment');
    if (!owner) continue;
    const revision = Number(rs.metadata.annotations?.['deployment.kubernetes.io/revision'] ?? 0);
    if (revision <= (newest.get(owner.name) ?? -1)) continue;
    newest.set(owner.name, revision);
    hashes.set(`Deployment/${owner.name}`, rs.metadata.labels?.['pod-template-hash'] ?? '');
  }
  const sets = cluster.kubectlJson<{
    items: { metadata: { name: string }; status?: { updateRevision?: string } }[];
  }>(['get', 'statefulsets', '-n', namespace]);
  for (const s of sets.items) hashes.set(`StatefulSet/${s.metadata.name}`, s.status?.updateRevision ?? '');
  return hashes;
}

function rolled(before: Map<string, string>, after: Map<string, string>): string[] {
  return [...after]
    .filter(([name, hash]) => before.get(name) !== hash)
    .map(([name]) => name)
    .sort();
}

/** The names of what is left in a namespace, but for what every namespace has. */
function leftovers(cluster: ClusterClient, namespace: string): string[] {
  const kinds =
    'deployments,statefulsets,replicasets,pods,services,configmaps,secrets,serviceaccounts,roles,rolebindings,networkpolicies,persistentvolumeclaims,jobs';
  return cluster
    .kubectlOk(['get', kinds, '-n', namespace, '-o', 'name'])
    .split('\n')
    .filter((line) => line && line !== 'serviceaccount/default' && line !== 'configmap/kube-root-ca.crt')
    .sort();
}

interface Values {
  broker?: { egress?: Record<string, { hosts?: string[]; ecosystems?: string[] }> };
}

describe('the charts with real Helm 3 and 4 against a real API server', () => {
  let cluster: ClusterClient;
  before(async () => {
    cluster = await useCluster();
  });

  for (const major of HELM_MAJORS)
    for (const example of examples())
      it(`Helm ${major}, chart ${example.chart.name}: install, upgrade rolls exactly what changed, rollback, test, uninstall`, (t) => {
        const chartDir = writeChart(example.chart);
        // A release name per Helm major: a gateway's Role lives in its authority namespace (e.g. `apps`), named after
        // the release, so two releases of one name granting authority there would collide — Helm refuses the second
        // (its ownership check), as docs/helm.md says.
        const release = `h${major}-${example.chart.name}`;
        const namespace = `helm${major}-${example.chart.name}`;
        const helm = (args: readonly string[]) => {
          const result = runHelm(major as HelmMajor, [
            ...args,
            '-n',
            namespace,
            `--kubeconfig=${cluster.kubeconfig}`,
          ]);
          assert.ok(result.ok, `helm ${major} ${args.join(' ')}:\n${result.stderr}${result.stdout}`);
          return result.stdout;
        };
        const render = (values: Record<string, unknown>[] = []) => {
          const out = helmTemplate(chartDir, {
            release,
            namespace,
            values,
            skipTests: true,
            helm: major as HelmMajor,
          });
          assert.ok(out.ok, out.stderr);
          return out.stdout;
        };
        restrictedNamespace(cluster, namespace);
        const first = render();
        applyPrerequisites(cluster, objectsOf(first));

        helm(['install', release, chartDir, '--wait', '--timeout=3m']);
        const installed = templateHashes(cluster, namespace);
        assert.equal(installed.size, workloadsOf(first).length, 'every workload has a pod-template hash');

        // One changed value at a time; each rolls exactly the workloads its render says.
        const defaults = parse(example.chart.files.get('values.yaml') ?? '') as Values;
        const [caller, egress] = Object.entries(defaults.broker?.egress ?? {})[0] ?? [];
        const changes: Record<string, unknown>[] = [
          ...(caller && egress
            ? [
                {
                  broker: {
                    egress: { [caller]: { ...egress, hosts: [...(egress.hosts ?? []), 'docs.example.org'] } },
                  },
                },
              ]
            : []),
          { agent: { podAnnotations: { 'toolyard.dev/e2e-upgrade': `helm-${major}` } } },
        ];
        let values: Record<string, unknown>[] = [];
        let previous = first;
        let hashes = installed;
        for (const change of changes) {
          values = [...values, change];
          const next = render(values);
          const expected = changedTemplates(previous, next);
          assert.equal(
            expected.length,
            1,
            `${JSON.stringify(change)} changes one pod template: ${expected.join(', ')}`,
          );
          helm([
            'upgrade',
            release,
            chartDir,
            '--wait',
            '--timeout=3m',
            ...values.flatMap((v) => ['--set-json', setJson(v)]),
          ]);
          const now = templateHashes(cluster, namespace);
          assert.deepEqual(
            rolled(hashes, now),
            expected,
            `${JSON.stringify(change)}: rolled exactly ${expected.join(', ')}`,
          );
          previous = next;
          hashes = now;
        }

        helm(['rollback', '--wait', '--timeout=3m', release, '1']);
        assert.deepEqual(
          templateHashes(cluster, namespace),
          installed,
          'rollback: every workload back on its first template',
        );

        helm(['test', release, '--timeout=3m']);

        const kept = keptClaims(first);
        helm(['uninstall', release, '--wait', '--timeout=3m']);
        assert.deepEqual(
          leftovers(cluster, namespace).filter((name) => !name.startsWith('pod/')),
          kept,
          'uninstall leaves only the StatefulSet claims Kubernetes keeps',
        );
        if (kept.length > 0) cluster.kubectlOk(['delete', '-n', namespace, '--wait=false', ...kept]);
        t.diagnostic(
          `Helm ${major} ${release}: ${installed.size} workloads, ${changes.length} upgrades each rolling exactly one, rollback, test, uninstall (kept ${kept.length} claims)`,
        );
      });
});

/** The claims a StatefulSet's volumeClaimTemplates make (`<template>-<set>-<ordinal>`), which uninstall leaves. */
function keptClaims(manifest: string): string[] {
  return objectsOf(manifest)
    .flatMap((o) => {
      if (o.kind !== 'StatefulSet') return [];
      const spec = (
        o as { spec?: { replicas?: number; volumeClaimTemplates?: { metadata: { name: string } }[] } }
      ).spec;
      return (spec?.volumeClaimTemplates ?? []).flatMap((claim) =>
        Array.from(
          { length: spec?.replicas ?? 1 },
          (_, i) => `persistentvolumeclaim/${claim.metadata.name}-${o.metadata.name}-${i}`,
        ),
      );
    })
    .sort();
}

/** `--set-json` takes `path=json` for one top-level key; a change object becomes one argument per key. */
function setJson(change: Record<string, unknown>): string {
  const [key, value] = Object.entries(change)[0] ?? [];
  if (!key) throw new Error('empty change');
  return `${key}=${JSON.stringify(value)}`;
}
