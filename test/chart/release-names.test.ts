/**
 * Unique names for every release name Helm allows and no duplicate objects in any namespace: for every
 * example and generated spec, release names of 1 to 53 characters (with and without the chart name in
 * them) render objects whose names are unique per kind and namespace, valid for their kind (a StatefulSet's
 * at most 52 characters), and whose references all resolve; installing into each namespace a gateway's
 * authority names (the operator example into `apps`) renders no object twice.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../constructs/src/render.ts';
import { Random } from '../support/spec-generator.ts';
import { chartTargets } from './chart-targets.ts';
import { lintRendered } from './helm-lint.ts';
import { assertReferencesResolve } from './references.ts';
import { helmTemplate, identity, renderChart } from './support.ts';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789-';

/**
 * A release name of exactly `length` characters that Helm accepts and that starts with a letter (a leading
 * digit would make Service names Kubernetes refuses, in this chart as in any that names objects after the
 * release; docs/helm.md lists it as a limit).
 */
function releaseName(random: Random, length: number, containing = ''): string {
  let name = containing;
  while (name.length < length) {
    const c = ALPHABET[random.int(0, ALPHABET.length - 1)]!;
    name = random.bool() ? `${c}${name}` : `${name}${c}`;
  }
  name = name.slice(0, length);
  const first = /[a-z]/.test(name[0]!) ? name[0]! : 'r';
  const last = name.at(-1) === '-' ? 'x' : name.at(-1)!;
  return length === 1 ? first : first + name.slice(1, -1) + last;
}

function assertUnique(objects: readonly KubeObject[], what: string): void {
  const ids = objects.map(identity);
  const duplicates = ids.filter((id, i) => ids.indexOf(id) !== i);
  assert.deepEqual(duplicates, [], `${what}: duplicate objects`);
}

for (const t of chartTargets()) {
  const plan = t.rendered.plan;
  describe(`${t.label}: release names and namespaces`, () => {
    const random = new Random(t.chart.name.length * 7919 + plan.gateways.length);
    const releases = [
      releaseName(random, 1),
      releaseName(random, 53),
      releaseName(random, 52, t.chart.name.slice(0, 40)),
      releaseName(random, 53, t.chart.name.slice(0, 40)),
      releaseName(random, random.int(20, 45)),
    ];

    it(`release names of ${releases.map((r) => r.length).join(', ')} characters: unique, valid, resolvable names`, () => {
      const seen = new Map<string, string>();
      for (const release of releases) {
        assert.ok(release.length <= 53 && /^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(release), release);
        const out = helmTemplate(t.dir, { release, namespace: plan.namespace });
        assert.ok(out.ok, out.stderr);
        assert.deepEqual(lintRendered(out.stdout), [], `release ${release}`);
        const objects = renderChart(t.dir, { release, namespace: plan.namespace });
        assertUnique(objects, `release ${release}`);
        assertReferencesResolve(objects);
        for (const o of objects) {
          if (o.kind === 'StatefulSet') assert.ok(o.metadata.name.length <= 52, identity(o));
          // Releases never share an object: a name belongs to one release (in one namespace).
          const owner = seen.get(identity(o));
          assert.ok(
            owner === undefined || owner === release,
            `${identity(o)} in releases ${owner} and ${release}`,
          );
          seen.set(identity(o), release);
        }
      }
    });

    const namespaces = [
      ...new Set(
        plan.gateways.flatMap((g) => (g.kind === 'deployed' ? (g.kubernetes?.namespaces ?? []) : [])),
      ),
    ].filter((n) => n !== plan.namespace);
    for (const namespace of namespaces) {
      it(`installed into ${namespace} (a namespace a gateway's authority names): no object twice, authority kept`, () => {
        const objects = renderChart(t.dir, { release: t.chart.name, namespace });
        assert.ok(objects.length > 0);
        assertUnique(objects, `namespace ${namespace}`);
        assertReferencesResolve(objects);
        for (const gateway of plan.gateways) {
          if (gateway.kind !== 'deployed' || !gateway.kubernetes?.namespaces.includes(namespace)) continue;
          const roles = objects.filter(
            (o) =>
              o.kind === 'Role' &&
              o.metadata.namespace === namespace &&
              o.metadata.name === gateway.objectName,
          );
          assert.equal(roles.length, 1, `gateway ${gateway.name} keeps its Role in ${namespace}`);
        }
      });
    }
  });
}
