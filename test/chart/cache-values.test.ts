/**
 * Caches as chart values (`agent.caches.<name>`), with real Helm on the example whose toolchain uses caches:
 * each value changes exactly the fields it should (a new claim's size and class, an emptyDir's sizeLimit), and
 * an existing claim replaces a cache's generated claim (which is then not rendered) in the pods that mount it.
 * At the defaults the chart renders what synth does (test/chart/parity.test.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../constructs/src/render.ts';
import { assertOnly, diff, esc } from './object-diff.ts';
import { DEFAULT_HELM, examples, helmNotes, renderChart, writeChart } from './support.ts';

type Json = Record<string, unknown>;

const example = examples().find((e) => e.rendered.plan.caches.length > 0);

describe('caches as chart values', { skip: example ? false : 'no example declares caches' }, () => {
  const { chart, rendered } = example!;
  const dir = writeChart(chart);
  const release = chart.name;
  const namespace = rendered.plan.namespace;
  const render = (values: Json): KubeObject[] =>
    renderChart(dir, { helm: DEFAULT_HELM, release, namespace, values: [values] });
  const base = render({});
  const claimCache = rendered.plan.caches.find((c) => c.volume.kind === 'newClaim')!;
  const emptyDirCache = rendered.plan.caches.find((c) => c.volume.kind === 'emptyDir')!;
  const claimName = `${release}-cache-${claimCache.name}`;
  const claimId = esc(`PersistentVolumeClaim/${namespace}/${claimName}`);
  const volumesOf = (objects: readonly KubeObject[], name: string) =>
    objects
      .filter((o) => o.kind === 'Deployment' || o.kind === 'StatefulSet')
      .flatMap(
        (o) => ((((o['spec'] as Json)['template'] as Json)['spec'] as Json)['volumes'] as Json[]) ?? [],
      )
      .filter((v) => v['name'] === name);

  it('the example has a cache on a new claim and one on an emptyDir', () => {
    assert.ok(claimCache && emptyDirCache);
    assert.ok(base.some((o) => o.kind === 'PersistentVolumeClaim' && o.metadata.name === claimName));
  });

  it('size and storageClass change only the cache claim', () => {
    const after = render({
      agent: { caches: { [claimCache.name]: { size: '99Gi', storageClass: 'fast' } } },
    });
    assertOnly(
      diff(base, after),
      new RegExp(`^${claimId}:spec\\.(resources\\.requests\\.storage|storageClassName)$`),
      'size',
    );
    const claim = after.find((o) => o.metadata.name === claimName)!;
    assert.equal((((claim['spec'] as Json)['resources'] as Json)['requests'] as Json)['storage'], '99Gi');
    assert.equal((claim['spec'] as Json)['storageClassName'], 'fast');
  });

  it('sizeLimit changes only the emptyDir cache volume', () => {
    const after = render({ agent: { caches: { [emptyDirCache.name]: { sizeLimit: '3Gi' } } } });
    assertOnly(
      diff(base, after),
      /^Deployment\/.*:spec\.template\.spec\.volumes\[\d+\]\.emptyDir\.sizeLimit$/,
      'sizeLimit',
    );
    for (const volume of volumesOf(after, emptyDirCache.volumeName))
      assert.deepEqual(volume, { emptyDir: { sizeLimit: '3Gi' }, name: emptyDirCache.volumeName });
  });

  it('existingClaim replaces the generated claim in every pod that mounts the cache', () => {
    const after = render({ agent: { caches: { [claimCache.name]: { existingClaim: 'team-gomod' } } } });
    assert.ok(!after.some((o) => o.kind === 'PersistentVolumeClaim' && o.metadata.name === claimName));
    const volumes = volumesOf(after, claimCache.volumeName);
    assert.ok(volumes.length > 0);
    for (const volume of volumes)
      assert.deepEqual(volume, {
        name: claimCache.volumeName,
        persistentVolumeClaim: { claimName: 'team-gomod' },
      });
    const changes = diff(base, after);
    assertOnly(
      changes,
      new RegExp(
        `^(${claimId}:-|Deployment/.*:spec\\.template\\.spec\\.volumes\\[\\d+\\]\\.persistentVolumeClaim\\.claimName)$`,
      ),
      'existingClaim',
    );
  });
});

describe('caches in the notes an install prints', {
  skip: example ? false : 'no example declares caches',
}, () => {
  it('Helm 4: a new cache claim is listed, and not when an existing claim replaces it', () => {
    const { chart, rendered } = example!;
    const dir = writeChart(chart);
    const cache = rendered.plan.caches.find((c) => c.volume.kind === 'newClaim')!;
    const notes = (values: Json[]) => {
      const out = helmNotes(dir, { release: chart.name, namespace: rendered.plan.namespace, values });
      assert.ok(out.ok, out.stderr);
      return out.stdout;
    };
    const line = new RegExp(
      `PersistentVolumeClaim/${chart.name}-cache-${cache.name}: the ${cache.ecosystem} cache "${cache.name}" at /var/cache/toolyard/${cache.name}`,
    );
    assert.match(notes([]), line);
    assert.doesNotMatch(notes([{ agent: { caches: { [cache.name]: { existingClaim: 'team-x' } } } }]), line);
  });
});
