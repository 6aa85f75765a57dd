/**
 * Two ways into one cluster, and the controls that show the apply checks can fail (issue 28):
 * - `toolyard synth` output and `cdk8s synth` output (the repository's cdk8s app) applied server-side by two
 *   field managers give no conflict, and either re-applied changes nothing; a third manager that sets another
 *   value does get a conflict (control);
 * - a deliberately broken copy of an example is refused by the real admission: a pod with `privileged: true` is
 *   rejected by Pod Security `restricted`, and its Deployment draws the API server's warning that the apply
 *   checks fail on.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { exampleFiles, REPO_ROOT } from '../../support/golden.ts';
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

const BIN = join(REPO_ROOT, 'node_modules', '.bin');

interface PodSpecHolder extends KubeObjectRef {
  spec: {
    template: { metadata?: unknown; spec: { containers: { securityContext?: Record<string, unknown> }[] } };
  };
}

describe('GitOps with two field managers, and the checks that can fail', () => {
  let cluster: ClusterClient;
  let out: string;
  before(async () => {
    cluster = await useCluster();
    out = mkdtempSync(join(tmpdir(), 'toolyard-gitops-'));
    const env = { ...process.env, PATH: `${BIN}:${process.env.PATH}` };
    execFileSync(join(BIN, 'cdk8s'), ['synth', '--output', join(out, 'cdk8s')], {
      cwd: REPO_ROOT,
      env,
      stdio: 'pipe',
    });
    execFileSync(
      join(BIN, 'node'),
      ['cli/bin/toolyard.js', 'synth', ...exampleFiles(), '-o', join(out, 'toolyard')],
      { cwd: REPO_ROOT, env, stdio: 'pipe' },
    );
  });
  after(() => rmSync(out, { recursive: true, force: true }));

  it('toolyard synth and cdk8s synth applied by two field managers: no conflict, nothing to change', async (t) => {
    const files = readdirSync(join(out, 'toolyard')).sort();
    assert.deepEqual(readdirSync(join(out, 'cdk8s')).sort(), files);
    let objects = 0;
    for (const file of files) {
      const toolyard = readFileSync(join(out, 'toolyard', file), 'utf8');
      const cdk8s = readFileSync(join(out, 'cdk8s', file), 'utf8');
      const parsed = objectsOf(toolyard);
      for (const ns of namespacesOf(parsed)) restrictedNamespace(cluster, ns);
      applyPrerequisites(cluster, parsed);
      for (const [manager, manifest] of [
        ['toolyard', toolyard],
        ['cdk8s', cdk8s],
      ] as const) {
        const applied = cluster.kubectl(['apply', '--server-side', `--field-manager=${manager}`, '-f', '-'], {
          input: manifest,
        });
        assert.equal(applied.status, 0, `${file} by ${manager}: ${applied.stderr}`);
        assert.deepEqual(warnings(applied), [], `${file} by ${manager}`);
      }
      await waitForWorkloads(cluster, parsed);
      for (const manager of ['toolyard', 'cdk8s']) {
        const diff = cluster.kubectl(['diff', '--server-side', `--field-manager=${manager}`, '-f', '-'], {
          input: manager === 'cdk8s' ? cdk8s : toolyard,
        });
        assert.equal(
          diff.status,
          0,
          `${file}: re-apply by ${manager} would change:\n${diff.stdout}${diff.stderr}`,
        );
      }
      objects += parsed.length;
    }
    t.diagnostic(`GitOps: ${objects} objects co-owned by the toolyard and cdk8s field managers, no conflict`);
  });

  it('control: a third manager setting another value gets a conflict', () => {
    const [file] = readdirSync(join(out, 'toolyard')).sort();
    assert.ok(file);
    const deployment = objectsOf(readFileSync(join(out, 'toolyard', file), 'utf8')).find(
      (o) => o.kind === 'Deployment',
    ) as (KubeObjectRef & { spec: { replicas?: number } }) | undefined;
    assert.ok(deployment);
    const changed = {
      ...deployment,
      spec: { ...deployment.spec, replicas: (deployment.spec.replicas ?? 1) + 2 },
    };
    const result = cluster.kubectl(['apply', '--server-side', '--field-manager=someone-else', '-f', '-'], {
      input: JSON.stringify(changed),
    });
    assert.notEqual(result.status, 0);
    assert.match(result.stderr, /conflict/i);
  });

  it('control: privileged: true is refused by Pod Security restricted, and its Deployment draws a warning', () => {
    const [example] = exampleFiles();
    assert.ok(example);
    const ns = 'broken-copy';
    restrictedNamespace(cluster, ns);
    const rendered = objectsOf(
      readFileSync(join(out, 'toolyard', readdirSync(join(out, 'toolyard')).sort()[0] ?? ''), 'utf8'),
    );
    const found = structuredClone(rendered.find((o) => o.kind === 'Deployment')) as PodSpecHolder | undefined;
    assert.ok(found);
    // The namespace's default ServiceAccount: the copy is about the container, not the rendered account.
    const podSpec = { ...found.spec.template.spec, serviceAccountName: undefined };
    for (const container of podSpec.containers)
      container.securityContext = {
        ...container.securityContext,
        privileged: true,
        allowPrivilegeEscalation: true,
      };
    const deployment = {
      ...found,
      metadata: { name: 'broken', namespace: ns },
      spec: { ...found.spec, template: { ...found.spec.template, spec: podSpec } },
    };
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'broken', namespace: ns }, spec: podSpec };
    const refused = cluster.kubectl(['apply', '--server-side', '-f', '-'], { input: JSON.stringify(pod) });
    assert.notEqual(refused.status, 0, 'a privileged pod must be refused');
    assert.match(refused.stderr, /violates PodSecurity "restricted:latest".*privileged/s);
    const warned = cluster.kubectl(['apply', '--server-side', '-f', '-'], {
      input: JSON.stringify(deployment),
    });
    assert.equal(warned.status, 0);
    assert.ok(
      warnings(warned).some((w) => /would violate PodSecurity "restricted:latest".*privileged/.test(w)),
      warned.stderr,
    );
    cluster.kubectlOk(['delete', 'deployment', 'broken', '-n', ns]);
  });
});
