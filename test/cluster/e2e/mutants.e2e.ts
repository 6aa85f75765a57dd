/**
 * `validate` is the truth (issue 31), checked against a real API server: a deterministic sample of spec mutants
 * that `toolyard validate` accepts — examples with fields changed, removed or set to edge values — rendered as
 * `toolyard synth` writes them and sent through the API server's whole write path (schema validation, defaulting,
 * Pod Security `restricted` admission, every other admission plugin) with a server-side dry run. Every accepted
 * mutant must pass without an error or a warning: a spec validate accepts that the cluster refuses is a validate
 * defect. The seed is fixed so a failure reproduces; TOOLYARD_MUTANT_SEED and TOOLYARD_MUTANT_COUNT widen the
 * search by hand.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { acceptedMutantManifests, MUTANT_SEED } from '../../support/spec-mutants.ts';
import type { ClusterClient } from '../client.ts';
import { applyPrerequisites } from './prerequisites.ts';
import { type KubeObjectRef, objectsOf, restrictedNamespace, useCluster, warnings } from './support.ts';

const SEED = Number(process.env.TOOLYARD_MUTANT_SEED ?? MUTANT_SEED);
const COUNT = Number(process.env.TOOLYARD_MUTANT_COUNT ?? 40);

describe('accepted spec mutants pass the real API server (validate is the truth)', () => {
  let cluster: ClusterClient;
  before(async () => {
    cluster = await useCluster();
  });

  it(`${COUNT} mutants validate accepts: server-side dry run, no error, no warning`, (t) => {
    const sample = acceptedMutantManifests(COUNT, SEED);
    assert.equal(
      sample.length,
      COUNT,
      `the mutant stream of seed ${SEED} gave only ${sample.length} accepted`,
    );
    const failures: string[] = [];
    const created = new Set<string>();
    after(() => {
      if (created.size > 0) cluster.kubectl(['delete', 'namespace', '--wait=false', ...created]);
    });
    let objects = 0;
    const examples = new Set<string>();
    for (const accepted of sample) {
      const { index, example, edits } = accepted.mutant;
      const label = `mutant ${index} of ${example} (${edits.join('; ')})`;
      const parsed = inNamespacesOfItsOwn(objectsOf(accepted.yaml), index);
      objects += parsed.length;
      examples.add(example);
      for (const ns of accepted.namespaces) {
        restrictedNamespace(cluster, ownNamespace(ns, index));
        created.add(ownNamespace(ns, index));
      }
      applyPrerequisites(cluster, parsed);
      const result = cluster.kubectl(
        ['apply', '--server-side', '--field-manager=toolyard', '--dry-run=server', '-f', '-'],
        { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: parsed }) },
      );
      if (result.status !== 0) failures.push(`${label}: refused:\n${result.stderr.trim()}`);
      else if (warnings(result).length > 0)
        failures.push(`${label}: warned:\n${warnings(result).join('\n')}`);
    }
    t.diagnostic(
      `seed ${SEED}: ${sample.length} accepted mutants of ${examples.size} examples, ${objects} objects, ` +
        `${failures.length} refused or warned`,
    );
    assert.deepEqual(failures, [], `accepted by validate, refused or warned by the API server:\n`);
  });

  it('control: the same check catches what the API server refuses or warns on', () => {
    const [first] = acceptedMutantManifests(1, SEED);
    assert.ok(first);
    const objects = inNamespacesOfItsOwn(objectsOf(first.yaml), 'control') as unknown as Mutable[];
    for (const ns of first.namespaces) restrictedNamespace(cluster, ownNamespace(ns, 'control'));
    const deployment = objects.find((o) => o.kind === 'Deployment');
    assert.ok(deployment, 'the sampled mutant renders a Deployment');
    const dryRun = (items: readonly unknown[]) =>
      cluster.kubectl(['apply', '--server-side', '--field-manager=toolyard', '--dry-run=server', '-f', '-'], {
        input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items }),
      });
    const container = () => deployment.spec.template.spec.containers[0] as Record<string, unknown>;

    const original = structuredClone(container());
    // Pod Security restricted: a Deployment whose pods would be refused draws a warning, not an error.
    container().securityContext = { ...(original.securityContext as object), allowPrivilegeEscalation: true };
    const warned = dryRun([deployment]);
    assert.equal(warned.status, 0, warned.stderr);
    assert.match(warnings(warned).join('\n'), /allowPrivilegeEscalation/);

    // Server-side validation: a container name no pod may have.
    deployment.spec.template.spec.containers[0] = { ...original, name: 'Not_A_DNS_Label' };
    const refused = dryRun([deployment]);
    assert.notEqual(refused.status, 0, 'an invalid container name is refused');
    assert.match(refused.stderr, /Not_A_DNS_Label/);
  });
});

interface Mutable {
  kind: string;
  spec: { template: { spec: { containers: unknown[] } } };
}

/**
 * Each mutant in namespaces of its own: every dry run is then a create, as a first install is — not an update of
 * the objects other files of this run left in the examples' namespaces (their field managers would conflict, and
 * an update is held to rules a create is not, such as a StatefulSet's immutable fields).
 */
function ownNamespace(namespace: string, index: number | string): string {
  return `m${index}-${namespace}`.slice(0, 63).replace(/-+$/, '');
}

function inNamespacesOfItsOwn(objects: readonly KubeObjectRef[], index: number | string): KubeObjectRef[] {
  return objects.map((o) => {
    const metadata = { ...o.metadata };
    if (metadata.namespace) metadata.namespace = ownNamespace(metadata.namespace, index);
    if (o.kind === 'Namespace') metadata.name = ownNamespace(metadata.name, index);
    return { ...o, metadata };
  });
}
