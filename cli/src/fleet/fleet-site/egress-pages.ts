/**
 * The egress view at any fleet size: one page while the graph is small, else the graph split over pages of
 * whole agents (in the graph's order: namespace, then agent), each page a complete graph and table of its
 * pods' connections with the fleet-wide open-egress count and a pager naming each page's first and last agent.
 * A thousand agents make thousands of pods and edges: one SVG of them all was 6.8 MB, too heavy for a browser
 * to filter and lay out again, and over the site's 2 MB page budget.
 */
import { html } from '../../../../site/src/components/html.ts';
import type { OutputFile } from '../../write-files.ts';
import type { FleetData } from './fleet-data.ts';
import { egressPage } from './pages.ts';

/** Connections per page: about 0.85 KB each in the graph and the table, so a page stays near 1 MB (budget: 2 MB). */
export const EGRESS_EDGES_PER_PAGE = 1200;

type Edge = FleetData['egress'][number];

/** Agents' edges in the graph's order, grouped into pages of at most `budget` edges (an agent is never split). */
function pagesOf(edges: readonly Edge[], budget: number): Edge[][] {
  const byAgent = new Map<string, Edge[]>();
  for (const edge of edges) {
    const key = `${edge.namespace}/${edge.agent}`;
    byAgent.set(key, [...(byAgent.get(key) ?? []), edge]);
  }
  const ordered = [...byAgent.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const pages: Edge[][] = [];
  let current: Edge[] = [];
  for (const [, agentEdges] of ordered) {
    if (current.length > 0 && current.length + agentEdges.length > budget) {
      pages.push(current);
      current = [];
    }
    current.push(...agentEdges);
  }
  if (current.length > 0 || pages.length === 0) pages.push(current);
  return pages;
}

/** `egress/index.html`, and `egress/<n>/index.html` for the further pages of a large fleet. */
export function egressPages(data: FleetData, site: string, budget = EGRESS_EDGES_PER_PAGE): OutputFile[] {
  const pages = pagesOf(data.egress, budget);
  if (pages.length === 1) return [{ path: 'egress/index.html', content: egressPage(data, site) }];
  const openPods = data.egress.filter((e) => e.peer === '*').length;
  const span = (edges: readonly Edge[]) => {
    const first = edges[0]!;
    const last = edges.at(-1)!;
    return `${first.namespace}/${first.agent} – ${last.namespace}/${last.agent}`;
  };
  return pages.map((edges, index) => {
    const depth = index === 0 ? 1 : 2;
    const root = '../'.repeat(depth);
    const href = (n: number) => (n === 0 ? `${root}egress/` : `${root}egress/${n + 1}/`);
    const pager = html`
<nav class="pager" aria-label="Egress pages"><p>The graph of ${data.egress.length} connections is split by agent over ${pages.length} pages; this is page ${index + 1}.</p><ol>${pages.map(
      (page, n) =>
        html`<li><a href="${href(n)}"${n === index ? html` aria-current="page"` : ''}>${n + 1}: ${span(page)}</a></li>`,
    )}</ol></nav>`;
    const agents = new Set(edges.map((e) => e.agent));
    const part: FleetData = { ...data, egress: edges, agents: data.agents.filter((a) => agents.has(a.name)) };
    return {
      path: index === 0 ? 'egress/index.html' : `egress/${index + 1}/index.html`,
      content: egressPage(part, site, { depth, openPods, pager }),
    };
  });
}
