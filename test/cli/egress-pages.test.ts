/** The egress view splits a large fleet's graph over pages of whole agents; a small fleet keeps one page. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { egressPages } from '../../cli/src/fleet/fleet-site/egress-pages.ts';
import type { FleetData } from '../../cli/src/fleet/fleet-site/fleet-data.ts';

/** `agents` agents in two namespaces, each with two pods reaching DNS and one reaching anything. */
function fleet(agents: number): FleetData {
  const names = Array.from({ length: agents }, (_, i) => `agent-${String(i).padStart(3, '0')}`);
  const namespace = (i: number) => (i % 2 === 0 ? 'team-a' : 'team-b');
  return {
    agents: names.map((name, i) => ({
      name,
      namespace: namespace(i),
      file: `${name}.yaml`,
      page: `agents/${name}/`,
    })),
    gateways: [],
    matrix: [],
    authority: [],
    peers: { dns: 'kube-dns 53', '*': 'anything' },
    egress: names.flatMap((agent, i) => [
      { agent, namespace: namespace(i), pod: `${agent}-backend`, peer: 'dns', ports: ['53/UDP'] },
      { agent, namespace: namespace(i), pod: `${agent}-tools`, peer: 'dns', ports: ['53/UDP'] },
      { agent, namespace: namespace(i), pod: `${agent}-tools`, peer: '*', ports: ['any'] },
    ]),
  } as unknown as FleetData;
}

const edgesOn = (page: string) => page.match(/<path class="edge/g)?.length ?? 0;

describe('egress pages', () => {
  it('keep one page, with every connection, while the graph fits', () => {
    const pages = egressPages(fleet(10), 'fleet');
    assert.deepEqual(
      pages.map((p) => p.path),
      ['egress/index.html'],
    );
    assert.equal(edgesOn(pages[0]!.content as string), 30);
    assert.doesNotMatch(pages[0]!.content as string, /class="pager"/);
  });

  it('split by whole agents, every connection on exactly one page, links one level deeper after the first', () => {
    const data = fleet(10);
    const pages = egressPages(data, 'fleet', 7);
    // 3 edges per agent, at most 7 per page: two agents a page.
    assert.deepEqual(
      pages.map((p) => p.path),
      [
        'egress/index.html',
        'egress/2/index.html',
        'egress/3/index.html',
        'egress/4/index.html',
        'egress/5/index.html',
      ],
    );
    const texts = pages.map((p) => p.content as string);
    assert.equal(
      texts.reduce((sum, t) => sum + edgesOn(t), 0),
      data.egress.length,
    );
    for (const text of texts) {
      assert.equal(edgesOn(text) % 3, 0, 'an agent is never split');
      assert.match(text, /10 pods may reach anything/, 'the fleet-wide count on every page');
      assert.match(text, /class="pager"/);
    }
    assert.match(texts[0]!, /href="\.\.\/agents\/agent-000\/"/);
    assert.match(texts[1]!, /href="\.\.\/\.\.\/agents\/agent-004\/"/, 'namespace order: team-a first');
    assert.match(texts[1]!, /href="\.\.\/\.\.\/egress\/"/, 'the pager links back to the first page');
    assert.match(texts[1]!, /aria-current="page">2: team-a\/agent-004 – team-a\/agent-006/);
  });
});
