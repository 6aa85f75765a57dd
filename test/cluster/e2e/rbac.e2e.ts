/**
 * RBAC, as the real API server authorizes it (issue 28): every ServiceAccount of every example (and of each
 * example again with the agent's own `rbac.preset` set to each preset) may do exactly what docs/security-model.md
 * documents — `kubectl auth can-i --list` in every namespace that matters equals what any ServiceAccount may do
 * (measured on one with no bindings) plus its preset's rules (constructs/src/rbac-presets.ts, the table the docs
 * print) in its authority's namespaces, nothing more; every documented negative is "no"; a toolchain pod's and
 * the broker's ServiceAccounts can do nothing. A control proves the comparison bites: a Role with `*` shows.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { stringify } from 'yaml';
import { checkSpecText } from '../../../constructs/src/check-spec-text.ts';
import { RBAC_PRESETS } from '../../../constructs/src/rbac-presets.ts';
import { renderAgent, toYamlDocuments } from '../../../constructs/src/render.ts';
import type { ToolyardAgent } from '../../../schema/src/types.generated.ts';
import { exampleFiles, REPO_ROOT } from '../../support/golden.ts';
import type { ClusterClient } from '../client.ts';
import {
  type CanIRows,
  canI,
  canIAny,
  canIList,
  mergeRows,
  NEVER,
  rowLines,
  rowsOfRules,
  serviceAccountUser,
} from './can-i.ts';
import { applyPrerequisites } from './prerequisites.ts';
import { applyObjects, namespacesOf, objectsOf, restrictedNamespace, useCluster } from './support.ts';

type Preset = keyof typeof RBAC_PRESETS;

interface Case {
  readonly label: string;
  readonly agent: ToolyardAgent;
}

function loadAgent(file: string, text: string): ToolyardAgent {
  const checked = checkSpecText(text, file);
  if (!checked.ok)
    throw new Error(`${file}: ${checked.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`);
  const [first] = checked.specs;
  if (!first) throw new Error(`${file}: no agent`);
  return first.agent;
}

/** The examples, and each example's agent again with its own `rbac.preset` set to each preset. */
function cases(): Case[] {
  const out: Case[] = [];
  for (const file of exampleFiles()) {
    const text = readFileSync(join(REPO_ROOT, file), 'utf8');
    const agent = loadAgent(file, text);
    out.push({ label: file, agent });
  }
  const base = out[0];
  if (!base) throw new Error('no examples');
  for (const preset of Object.keys(RBAC_PRESETS) as Preset[]) {
    const copy = structuredClone(base.agent) as ToolyardAgent & { spec: { rbac?: { preset: string } } };
    copy.metadata = { ...copy.metadata, name: `rbac-${preset}`, namespace: `rbac-${preset}` };
    copy.spec.rbac = { preset };
    out.push({
      label: `${base.label} with rbac.preset ${preset}`,
      agent: loadAgent(`rbac-${preset}.yaml`, stringify(copy)),
    });
  }
  return out;
}

interface PodTemplateOwner {
  readonly kind: string;
  readonly metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  readonly spec?: { template?: { spec?: { serviceAccountName?: string } } };
}

interface Grant {
  readonly preset: Preset;
  readonly namespaces: readonly string[];
}

/** What the spec says a workload's ServiceAccount holds, by the workload's component label. */
function grantOf(agent: ToolyardAgent, component: string): Grant | undefined {
  const namespace = agent.metadata.namespace ?? 'default';
  if (component === 'agent') {
    const preset = (agent.spec as { rbac?: { preset?: string } }).rbac?.preset;
    return preset && preset !== 'none' ? { preset: preset as Preset, namespaces: [namespace] } : undefined;
  }
  for (const gateway of agent.spec.gateways ?? []) {
    if (component !== `gateway-${gateway.name}` || !('authority' in gateway)) continue;
    const kubernetes = gateway.authority?.kubernetes;
    if (kubernetes)
      return { preset: kubernetes.preset as Preset, namespaces: kubernetes.namespaces ?? [namespace] };
  }
  return undefined;
}

describe('every ServiceAccount may do exactly what its preset documents, as the real API server authorizes', () => {
  let cluster: ClusterClient;
  let baseline: CanIRows;
  const baselineNamespace = 'rbac-baseline';

  before(async () => {
    cluster = await useCluster();
    restrictedNamespace(cluster, baselineNamespace);
    applyObjects(cluster, [
      {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: 'nobody', namespace: baselineNamespace },
      },
    ]);
    baseline = canIList(cluster, serviceAccountUser(baselineNamespace, 'nobody'), baselineNamespace);
  });

  it('a ServiceAccount with no binding has only what Kubernetes gives everyone: self-reviews and discovery', () => {
    for (const line of rowLines(baseline)) {
      const [resource] = line.split(' ');
      assert.ok(
        resource === '' ||
          /^selfsubject(access|rules)?reviews?\.authentication|^selfsubject\w*reviews\.authorization|^selfsubjectreviews\.authentication/.test(
            resource ?? '',
          ),
        `unexpected default grant: ${line}`,
      );
    }
    assert.ok(baseline.size > 0);
  });

  it('every example and preset: can-i --list equals the default grants plus the documented preset, per namespace', (t) => {
    let compared = 0;
    let serviceAccounts = 0;
    for (const { label, agent } of cases()) {
      const objects = objectsOf(toYamlDocuments(renderAgent(agent).objects));
      for (const ns of namespacesOf(objects)) restrictedNamespace(cluster, ns);
      const grants = (agent.spec.gateways ?? []).flatMap((g) =>
        'authority' in g ? (g.authority?.kubernetes?.namespaces ?? []) : [],
      );
      for (const ns of grants) restrictedNamespace(cluster, ns);
      applyPrerequisites(cluster, objects);
      cluster.kubectlOk(['apply', '--server-side', '--field-manager=toolyard', '-f', '-'], {
        input: objects.map((o) => JSON.stringify(o)).join('\n---\n'),
      });
      const workloads = (objects as readonly PodTemplateOwner[]).filter(
        (o) => (o.kind === 'Deployment' || o.kind === 'StatefulSet') && o.spec?.template?.spec,
      );
      const agentNamespace = agent.metadata.namespace ?? 'default';
      const namespaces = [...new Set([agentNamespace, ...grants, 'default'])].sort();
      for (const workload of workloads) {
        const component = workload.metadata.labels?.['app.kubernetes.io/component'] ?? '';
        const sa = workload.spec?.template?.spec?.serviceAccountName ?? 'default';
        const ns = workload.metadata.namespace ?? agentNamespace;
        const user = serviceAccountUser(ns, sa);
        const grant = grantOf(agent, component);
        serviceAccounts++;
        for (const where of namespaces) {
          const expected = grant?.namespaces.includes(where)
            ? mergeRows(baseline, rowsOfRules(RBAC_PRESETS[grant.preset]))
            : baseline;
          const actual = canIList(cluster, user, where);
          assert.deepEqual(
            rowLines(actual),
            rowLines(expected),
            `${label}: ${user} (${component}) in namespace ${where}: can-i --list differs from ${grant?.namespaces.includes(where) ? `the ${grant.preset} preset` : 'no authority at all'}`,
          );
          compared += actual.size;
          assert.deepEqual(canIAny(cluster, user, where, NEVER), [], `${label}: ${user} in ${where} may`);
        }
        if (!grant)
          assert.ok(
            component.startsWith('toolchain-') || component === 'broker' || component === 'agent',
            `${label}: ${component} holds no authority`,
          );
      }
    }
    t.diagnostic(
      `RBAC: ${serviceAccounts} ServiceAccounts, ${compared} can-i rows compared exactly, ${NEVER.length} negatives each`,
    );
  });

  it('control: a Role with * grants show in can-i, and the negatives then answer yes', () => {
    const ns = 'rbac-control';
    restrictedNamespace(cluster, ns);
    applyObjects(cluster, [
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'broken', namespace: ns } },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'broken', namespace: ns },
        rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
      },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'broken', namespace: ns },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'broken' },
        subjects: [{ kind: 'ServiceAccount', name: 'broken', namespace: ns }],
      },
    ]);
    const user = serviceAccountUser(ns, 'broken');
    const actual = canIList(cluster, user, ns);
    assert.notDeepEqual(rowLines(actual), rowLines(baseline));
    assert.ok(rowLines(actual).includes('*.* [] []: *'), rowLines(actual).join('\n'));
    assert.equal(canI(cluster, user, ns, 'get', 'secrets'), true);
    assert.equal(canI(cluster, user, ns, 'create', 'pods/exec'), true);
    assert.deepEqual(
      canIAny(cluster, user, ns, NEVER),
      NEVER.map(([verb, resource]) => `${verb} ${resource}`),
      'the batched questions bite too',
    );
  });

  it('control: get on pods is not get on pods/exec (the subresource is asked as one)', () => {
    const ns = 'rbac-control';
    applyObjects(cluster, [
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'reader', namespace: ns } },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'reader', namespace: ns },
        rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
      },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'reader', namespace: ns },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
        subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace: ns }],
      },
    ]);
    const user = serviceAccountUser(ns, 'reader');
    assert.equal(canI(cluster, user, ns, 'get', 'pods'), true);
    assert.equal(canI(cluster, user, ns, 'get', 'pods/exec'), false);
    assert.deepEqual(
      canIAny(cluster, user, ns, [
        ['get', 'pods'],
        ['get', 'pods/exec'],
      ]),
      ['get pods'],
    );
  });
});
