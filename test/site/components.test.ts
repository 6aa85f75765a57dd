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

  for (const example of ['cluster-operator', 'polyglot-reviewer', 'web-infra']) {
    it(`${example}: no arrow crosses a box, no label is cut, every line fits its box`, () => {
      const result = render(example);
      const svg = podDiagramSvg(podDiagramModel(result.plan, result.objects), 'd').markup;
      assert.doesNotMatch(svg, /…/, 'a label was truncated');
      const number = (tag: string, name: string) => Number(new RegExp(`${name}="([\\d.]+)"`).exec(tag)![1]);
      const boxes = [...svg.matchAll(/<rect class="(tyd-pod|tyd-ext)"[^>]*>/g)].map((m) => ({
        x: number(m[0], 'x'),
        y: number(m[0], 'y'),
        w: number(m[0], 'width'),
        h: number(m[0], 'height'),
      }));
      assert.ok(boxes.length >= 3);
      // Arrows are drawn as orthogonal segments: M x y, then H x / V y.
      const segments: [number, number, number, number][] = [];
      for (const [, d] of svg.matchAll(/<path class="tyd-(?:call|egress)" d="([^"]+)"/g)) {
        let x = 0;
        let y = 0;
        for (const [, op, value] of d!.matchAll(/([MHV])([\d. -]+)/g)) {
          const [a, b] = value!.trim().split(/\s+/).map(Number) as [number, number];
          if (op === 'M') [x, y] = [a, b];
          else if (op === 'H') {
            segments.push([x, y, a, y]);
            x = a;
          } else {
            segments.push([x, y, x, a]);
            y = a;
          }
        }
      }
      assert.ok(segments.length >= 4);
      const inside = (b: (typeof boxes)[number], x: number, y: number) =>
        x > b.x && x < b.x + b.w && y > b.y && y < b.y + b.h;
      for (const [x1, y1, x2, y2] of segments) {
        for (const b of boxes) {
          // A stub into (or out of) a box ends inside it; any other segment stays clear of the box's inside.
          if (inside(b, x1, y1) || inside(b, x2, y2)) continue;
          const crosses =
            Math.max(x1, x2) > b.x &&
            Math.min(x1, x2) < b.x + b.w &&
            Math.max(y1, y2) > b.y &&
            Math.min(y1, y2) < b.y + b.h;
          assert.ok(!crosses, `segment ${x1},${y1} → ${x2},${y2} crosses the box at ${b.x},${b.y}`);
        }
      }
      // Text wraps inside its box: no line runs past the right edge of the boxes (12 px mono, 13 px bold titles).
      const right = Math.max(...boxes.map((b) => b.x + b.w));
      for (const [, tag, line] of svg.matchAll(/<text([^>]*)>([^<]*)<\/text>/g)) {
        if (tag!.includes('tyd-legend')) continue;
        const advance = tag!.includes('tyd-title') ? 8.1 : 7.3;
        const text = line!.replace(/&(quot|amp|lt|gt|#39);/g, '_');
        assert.ok(number(tag!, 'x') + text.length * advance <= right, `runs out of its box: ${text}`);
      }
    });
  }

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
    // The spec's schema refuses markup in the values these show (names, images, label values), so the payload
    // goes into the report and the model themselves: the components escape whatever they are given.
    const result = render('polyglot-reviewer');
    const payload = '<img src=x onerror=alert(1)>';
    const report = explainAgent(result.plan);
    const pod = report.pods[0]!;
    const tampered = {
      ...pod,
      containers: pod.containers.map((c, i) => (i === 0 ? { ...c, image: payload } : c)),
    };
    const model = podDiagramModel(result.plan, result.objects);
    const tamperedModel = {
      ...model,
      pods: model.pods.map((p, i) => (i === 0 ? { ...p, name: payload } : p)),
    };
    const markup = [
      podTables(tampered, 'Deployment reviewer').markup,
      podDiagramSvg(tamperedModel, 'd').markup,
    ].join('');
    assert.equal(
      markup.split('&lt;img src=x').length - 1 >= 2,
      true,
      'the payload is shown, escaped, in both',
    );
    assert.doesNotMatch(markup, /<img/);
  });
});
