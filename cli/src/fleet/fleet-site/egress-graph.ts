/**
 * The fleet's egress graph as SVG: pods on the left (grouped by namespace and agent), the peers their
 * NetworkPolicies let them reach on the right, one edge per (pod, peer) with its ports. Each edge and node
 * carries data attributes the page's filters match (namespace, agent, peer text) and the geometry its script
 * needs to lay the graph out again without the filtered-out nodes; the text alternative is the table next to it.
 */
import { type Html, html } from '../../../../site/src/components/html.ts';
import type { FleetData } from './fleet-data.ts';

const ROW = 22;
const TOP = 30;
const GAP = 200;
const CHAR = 7.3;

/** Wide enough for the longest label: nothing is cut. */
const widthFor = (labels: readonly string[], least: number) =>
  Math.max(least, Math.ceil(Math.max(0, ...labels.map((l) => l.length)) * CHAR + 14));

export function egressGraphSvg(data: FleetData): Html {
  const pods = [...new Map(data.egress.map((e) => [`${e.namespace}/${e.pod}`, e])).values()].sort((a, b) =>
    `${a.namespace}/${a.agent}/${a.pod}` < `${b.namespace}/${b.agent}/${b.pod}` ? -1 : 1,
  );
  const peerIds = [...new Set(data.egress.map((e) => e.peer))].sort((a, b) => {
    const la = data.peers[a] ?? a;
    const lb = data.peers[b] ?? b;
    return la < lb ? -1 : la > lb ? 1 : 0;
  });
  const POD_WIDTH = widthFor(
    pods.map((p) => `${p.namespace}/${p.pod}`),
    200,
  );
  const PEER_WIDTH = widthFor(
    peerIds.map((p) => data.peers[p] ?? p),
    240,
  );
  const podY = new Map(pods.map((p, i) => [`${p.namespace}/${p.pod}`, TOP + i * ROW]));
  const peerY = new Map(peerIds.map((p, i) => [p, TOP + i * ROW]));
  const peerIndex = new Map(peerIds.map((p, i) => [p, i]));
  const peerX = POD_WIDTH + GAP;
  const width = peerX + PEER_WIDTH + 10;
  const height = TOP + Math.max(pods.length, peerIds.length) * ROW + 10;
  const edges = data.egress.map((e) => {
    const y1 = podY.get(`${e.namespace}/${e.pod}`)! + ROW / 2 - 2;
    const y2 = peerY.get(e.peer)! + ROW / 2 - 2;
    const mid = POD_WIDTH + GAP / 2;
    const label = data.peers[e.peer] ?? e.peer;
    return html`<path class="edge${e.peer === '*' ? ' open' : ''}" data-item data-namespace="${e.namespace}" data-agent="${e.agent}" data-search="${`${e.namespace}/${e.pod} ${label} ${e.peer} ${e.ports.join(' ')}`.toLowerCase()}" data-ends="pod:${e.namespace}/${e.pod} peer:${peerIndex.get(e.peer)!}" d="M${POD_WIDTH} ${y1} C${mid} ${y1} ${mid} ${y2} ${peerX} ${y2}"><title>${e.namespace}/${e.pod} → ${label} ${e.ports.join(', ')}</title></path>`;
  });
  const podNodes = pods.map((p) => {
    const y = podY.get(`${p.namespace}/${p.pod}`)!;
    return html`<g class="node" data-node="pod:${p.namespace}/${p.pod}" data-y="${y}"><rect x="0" y="${y}" width="${POD_WIDTH}" height="${ROW - 4}" rx="3"/><text x="6" y="${y + 13}">${p.namespace}/${p.pod}</text><title>pod ${p.namespace}/${p.pod} (agent ${p.agent})</title></g>`;
  });
  const peerNodes = peerIds.map((peer) => {
    const y = peerY.get(peer)!;
    const label = data.peers[peer] ?? peer;
    return html`<g class="node peer" data-node="peer:${peerIndex.get(peer)!}" data-y="${y}"><rect x="${peerX}" y="${y}" width="${PEER_WIDTH}" height="${ROW - 4}" rx="3"/><text x="${peerX + 6}" y="${y + 13}">${label}</text><title>${label}: ${peer}</title></g>`;
  });
  return html`<svg xmlns="http://www.w3.org/2000/svg" class="fleet-graph" data-graph data-row="${ROW}" data-top="${TOP}" data-pod-width="${POD_WIDTH}" data-peer-x="${peerX}" role="img" aria-labelledby="egress-graph-title" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">
<title id="egress-graph-title">Egress graph: ${pods.length} pods, ${peerIds.length} destinations, ${data.egress.length} allowed connections (the table below lists them)</title>
<text x="0" y="16" class="muted">pods</text><text x="${peerX}" y="16" class="muted">destinations their NetworkPolicies allow</text>
${edges}
${podNodes}
${peerNodes}
</svg>`;
}
