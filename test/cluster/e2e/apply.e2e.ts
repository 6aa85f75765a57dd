/**
 * Everything toolyard renders, applied to a real API server (issue 28): every example as `toolyard synth` writes it
 * and every chart `ci/` scenario as real Helm renders it. Each goes through a server-side dry run, then a real
 * server-side apply into namespaces where Pod Security `restricted` is enforced — no error, no warning —, its
 * Deployments and StatefulSets become Available (kwok runs the pods), and a second apply of the same bytes changes
 * nothing (`kubectl diff` exits 0: the GitOps promise).
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { examples, helmTemplate, writeChart } from '../../chart/support.ts';
import { renderGoldenFiles } from '../../support/golden.ts';
import type { ClusterClient } from '../client.ts';
import { applyPrerequisites } from './prerequisites.ts';
import {
  type KubeObjectRef,
  namespacesOf,
  objectsOf,
  restrictedNamespace,
  useCluster,
  waitForWorkloads,
  warnings,
} from './support.ts';

const FIELD_MANAGER = 'toolyard';

interface Applied {
  readonly objects: number;
  readonly workloads: number;
}

/** Dry run, apply, wait, re-apply: the whole promise for one rendered output. */
async function applyAndCheck(cluster: ClusterClient, label: string, manifest: string): Promise<Applied> {
  const objects = objectsOf(manifest);
  for (const ns of namespacesOf(objects)) restrictedNamespace(cluster, ns);
  applyPrerequisites(cluster, objects);
  const apply = (extra: readonly string[]) =>
    cluster.kubectl(['apply', '--server-side', `--field-manager=${FIELD_MANAGER}`, ...extra, '-f', '-'], {
      input: manifest,
    });

  const dryRun = apply(['--dry-run=server']);
  assert.equal(dryRun.status, 0, `${label}: server-side dry run refused:\n${dryRun.stderr}`);
  assert.deepEqual(warnings(dryRun), [], `${label}: the API server warned on the dry run`);

  const real = apply([]);
  assert.equal(real.status, 0, `${label}: apply refused:\n${real.stderr}`);
  assert.deepEqual(warnings(real), [], `${label}: the API server warned on apply`);
  const appliedLines = real.stdout.split('\n').filter((line) => / serverside-applied$/.test(line));
  assert.equal(appliedLines.length, objects.length, `${label}: every object applied:\n${real.stdout}`);

  const workloads = await waitForWorkloads(cluster, objects);

  const diff = cluster.kubectl(['diff', '--server-side', `--field-manager=${FIELD_MANAGER}`, '-f', '-'], {
    input: manifest,
  });
  assert.equal(
    diff.status,
    0,
    `${label}: a second apply of the same output would change:\n${diff.stdout}${diff.stderr}`,
  );
  return { objects: objects.length, workloads };
}

describe('every rendered output applies to a real API server, restricted, warning-free, idempotent', () => {
  let cluster: ClusterClient;
  before(async () => {
    cluster = await useCluster();
  });

  it('every example, as toolyard synth writes it', async (t) => {
    let objects = 0;
    let workloads = 0;
    for (const [name, manifest] of renderGoldenFiles()) {
      const applied = await applyAndCheck(cluster, name, manifest);
      objects += applied.objects;
      workloads += applied.workloads;
    }
    t.diagnostic(`examples: ${objects} objects applied, ${workloads} workloads Available, re-apply a no-op`);
    assert.ok(objects > 0);
  });

  it('every chart ci/ scenario, as Helm 4 renders it (each in a namespace of its own)', async (t) => {
    let objects = 0;
    let scenarios = 0;
    for (const example of examples()) {
      const chartDir = writeChart(example.chart);
      for (const values of readdirSync(join(chartDir, 'ci'))
        .filter((f) => f.endsWith('.yaml'))
        .sort()) {
        const scenario = values.replace(/-values\.yaml$/, '');
        const namespace = `ci-${example.chart.name}-${scenario}`.slice(0, 63).replace(/-+$/, '');
        const rendered = helmTemplate(chartDir, {
          release: example.chart.name,
          namespace,
          values: [join(chartDir, 'ci', values)],
          skipTests: true,
        });
        assert.ok(rendered.ok, `${example.chart.name} ${values}: helm template failed:\n${rendered.stderr}`);
        // helm template leaves the release namespace off objects it does not template with one.
        const manifest = objectsOf(rendered.stdout)
          .map(
            (o): KubeObjectRef => ({
              ...o,
              metadata: { ...o.metadata, namespace: o.metadata.namespace ?? namespace },
            }),
          )
          .map((o) => JSON.stringify(o))
          .join('\n---\n');
        const applied = await applyAndCheck(cluster, `${example.chart.name}/${values}`, manifest);
        objects += applied.objects;
        scenarios++;
      }
    }
    t.diagnostic(`chart scenarios: ${scenarios} scenarios, ${objects} objects applied, re-apply a no-op`);
    assert.ok(scenarios > 0);
  });
});
