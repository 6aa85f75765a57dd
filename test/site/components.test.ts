/**
 * The site's pure components (site/src/components/), in Node: the line diff is a shortest edit script, a
 * render diff names what was added, removed and changed, the RBAC tables group grants by rule set, the pod
 * model reads every workload of a render, and nothing from a spec reaches the markup unescaped.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { checkSpecText } from '../../constructs/src/check-spec-text.ts';
import { explainAgent } from '../../constructs/src/explain.ts';
import { type RenderResult, renderAgent, toYamlDocuments } from '../../constructs/src/render.ts';
import { html } from '../../site/src/components/html.ts';
import { diffRenders, lineDiff, renderDiffHtml } from '../../site/src/components/object-diff.ts';
import { podDiagramSvg } from '../../site/src/components/pod-diagram.ts';
import { podDiagramModel } from '../../site/src/components/pod-model.ts';
import { podTables, ruleSets, serviceAccountAccess } from '../../site/src/components/tables.ts';
import { REPO_ROOT } from '../support/golden.ts';

function render(example: string, edit = (text: string) => text): RenderResult {
  const checked = checkSpecText(
    edit(readFileSync(join(REPO_ROOT, 'examples', `${example}.yaml`), 'utf8')),
    example,
  );
  assert.ok(checked.ok, JSON.stringify(!checked.ok && checked.errors));
  return renderAgent(checked.specs[0]!.agent);
}

/** Longest common subsequence length, the slow way. */
function lcs(a: readonly string[], b: readonly string[]): number {
  const dp = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      dp[i]![j] = a[i] === b[j] ? dp[i + 1]![j + 1]! + 1 : Math.max(dp[i + 1]![j]!, dp[i]![j + 1]!);
  return dp[0]![0]!;
}

describe('lineDiff', () => {
  it('turns a into b with the fewest edits (1,000 random pairs against an LCS)', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const lines = () =>
      Array.from({ length: Math.floor(random() * 14) }, () => 'abcd'[Math.floor(random() * 4)]!);
    for (let run = 0; run < 1000; run++) {
      const a = lines();
      const b = lines();
      const diff = lineDiff(a, b);
      assert.deepEqual(
        diff.filter((l) => l.op !== '+').map((l) => l.text),
        a,
      );
      assert.deepEqual(
        diff.filter((l) => l.op !== '-').map((l) => l.text),
        b,
      );
      assert.equal(diff.filter((l) => l.op === ' ').length, lcs(a, b), `${a.join('')} → ${b.join('')}`);
    }
  });
});

describe('diffRenders', () => {
  const objects = (result: RenderResult) =>
    result.objects.map((o) => ({ id: `${o.kind} ${o.metadata.name}`, yaml: toYamlDocuments([o]) }));

  it('names the changed objects and shows the changed lines; unchanged ones are counted', () => {
    const before = objects(render('web-infra'));
    const after = objects(render('web-infra', (t) => t.replace('port: 8703', 'port: 8713')));
    const diff = diffRenders(before, after);
    assert.deepEqual(
      diff.changes.map((c) => [c.change, c.id]),
      [
        ['changed', 'ConfigMap web-infra-mcp-clients'],
        ['changed', 'ConfigMap web-infra-toolchain-node'],
        ['changed', 'StatefulSet web-infra'],
      ],
    );
    assert.equal(diff.unchanged, before.length - 3);
    const workload = diff.changes[2]!;
    assert.ok(workload.lines.some((l) => l.op === '-' && l.text.includes('containerPort: 9703')));
    assert.ok(workload.lines.some((l) => l.op === '+' && l.text.includes('containerPort: 9713')));
    const markup = renderDiffHtml(diff, 'the last render').markup;
    assert.match(
      markup,
      new RegExp(`3 objects changed against the last render; ${before.length - 3} unchanged\\.`),
    );
    assert.match(markup, /<span class="ty-del">- +- containerPort: 9703<\/span>/);
  });

  it('a renamed agent removes every object and adds every object', () => {
    const before = objects(render('web-infra'));
    const after = objects(render('web-infra', (t) => t.replace('name: web-infra', 'name: web-infra-2')));
    const diff = diffRenders(before, after);
    assert.equal(diff.changes.filter((c) => c.change === 'added').length, after.length);
    assert.equal(diff.changes.filter((c) => c.change === 'removed').length, before.length);
    assert.equal(diff.unchanged, 0);
  });
});

describe('RBAC tables', () => {
  it('group a ServiceAccount’s grants by rule set: one table for every namespace it applies in', () => {
    const report = explainAgent(render('cluster-operator').plan);
    const kubernetes = report.serviceAccounts.find((s) => s.serviceAccount === 'operator-kubernetes')!;
    assert.equal(kubernetes.grants.length, 2);
    const sets = ruleSets(kubernetes);
    assert.deepEqual(
      sets.map((s) => [s.preset, s.namespaces]),
      [['read-only', ['agents', 'apps']]],
    );
    const markup = serviceAccountAccess(kubernetes).markup;
    assert.equal(markup.match(/<table/g)?.length, 1);
    assert.match(
      markup,
      /<caption>operator-kubernetes: preset read-only in namespaces agents, apps<\/caption>/,
    );
    const agent = report.serviceAccounts.find((s) => s.serviceAccount === 'operator')!;
    assert.match(serviceAccountAccess(agent).markup, /Can do: nothing in the Kubernetes API\./);
  });
});

describe('pod model and diagram', () => {
  it('read every workload of a render: containers, listeners, shared volumes, MCP calls and egress', () => {
    const result = render('cluster-operator');
    const model = podDiagramModel(result.plan, result.objects);
    assert.deepEqual(
      model.pods.map((p) => `${p.kind} ${p.name}`),
      [
        'Deployment operator',
        'Deployment operator-kubernetes',
        'Deployment operator-helm',
        'Deployment operator-broker',
      ],
    );
    const agent = model.pods[0]!;
    assert.deepEqual(
      agent.containers.map((c) => `${c.name}:${c.role}`),
      ['toolyard-install:init', 'codex:backend', 'toolchain-helm:toolchain'],
    );
    assert.deepEqual(agent.containers[2]!.listens, [
      { port: 8705, host: '127.0.0.1', what: 'MCP' },
      { port: 9705, host: 'pod IP', what: 'probes' },
    ]);
    const workspace = agent.volumes.find((v) => v.name === 'workspace')!;
    assert.deepEqual(workspace.mounts, ['codex → /workspace', 'toolchain-helm → /workspace']);
    assert.deepEqual(
      model.calls.map(
        (c) => `${c.from.container} → ${c.server} (${'pod' in c.to ? c.to.pod : c.to.external})`,
      ),
      [
        'codex → toolchain-helm (operator)',
        'codex → kubernetes (operator-kubernetes)',
        'codex → helm (operator-helm)',
        'codex → github (mcp:github)',
      ],
    );
    assert.ok(
      model.egress.some((e) => e.pod === 'operator-kubernetes' && e.purpose === 'Kubernetes API server'),
    );
    const svg = podDiagramSvg(model, 'd').markup;
    assert.match(
      svg,
      /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" class="tyd" role="img" aria-labelledby="d-title d-desc"/,
    );
    for (const pod of model.pods) assert.match(svg, new RegExp(`data-pod="${pod.name}"`));
  });

  it('a StatefulSet’s claim template is a volume too', () => {
    const result = render('web-infra');
    const pod = podDiagramModel(result.plan, result.objects).pods[0]!;
    assert.equal(pod.kind, 'StatefulSet');
    assert.equal(pod.volumes.find((v) => v.name === 'workspace')?.source, 'claim template');
  });
});

describe('markup', () => {
  it('escapes whatever a spec carries; only markup built by the components is inserted as is', () => {
    assert.equal(
      html`<p>${'<script>alert(1)</script> & "x"'}</p>`.markup,
      '<p>&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;x&quot;</p>',
    );
    assert.equal(html`<div>${html`<b>${'<i>'}</b>`}</div>`.markup, '<div><b>&lt;i&gt;</b></div>');
    const result = render('polyglot-reviewer', (t) =>
      t.replace('team: platform', 'team: "<img src=x onerror=alert(1)>"'),
    );
    const report = explainAgent(result.plan);
    const markup = [
      podTables(report.pods[0]!, 'Deployment reviewer').markup,
      podDiagramSvg(podDiagramModel(result.plan, result.objects), 'd').markup,
    ].join('');
    assert.doesNotMatch(markup, /<img/);
  });
});
