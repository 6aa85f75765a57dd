/**
 * The pod diagram as an SVG string: one box per pod (its containers with what they listen on, its volumes and
 * who mounts them), MCP calls as solid arrows from each backend to the servers its client config lists (a
 * bracket for the servers in its own pod, reached on 127.0.0.1), and each pod's effective egress as dashed
 * arrows to its destinations. Colours come from CSS custom properties (`--tyd-*`) with light defaults, so a
 * page themes it; the text alternative is in `<title>`/`<desc>` and in the tables next to it.
 */
import { type Html, html } from './html.ts';
import type { DiagramPod, PodDiagramModel } from './pod-model.ts';

const POD_WIDTH = 380;
const EXTERNAL_WIDTH = 250;
const GAP = 110;
const MARGIN = 28;
const HEADER = 44;
const ROW = 52;
const VOLUME_ROW = 17;
const PAD = 10;
const CHAR = 7.3;
/** The lane above the pods that egress from the left column takes, over the gateway pods. */
const CHANNEL = MARGIN + 8;

const STYLE = `
.tyd-pod{fill:var(--tyd-pod,#f6f8fa);stroke:var(--tyd-line,#57606a);stroke-width:1.2}
.tyd-row{fill:var(--tyd-row,#ffffff);stroke:var(--tyd-faint,#d0d7de)}
.tyd-row.backend{fill:var(--tyd-backend,#ddf4ff)}
.tyd-row.toolchain{fill:var(--tyd-toolchain,#dafbe1)}
.tyd-row.gateway{fill:var(--tyd-gateway,#fbefff)}
.tyd-row.init{fill:var(--tyd-init,#f6f8fa);stroke-dasharray:3 2}
.tyd-ext{fill:var(--tyd-ext,#fff8c5);stroke:var(--tyd-line,#57606a)}
text{fill:var(--tyd-text,#1f2328);font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.tyd-title{font-weight:700;font-size:13px}
.tyd-muted{fill:var(--tyd-muted,#57606a)}
.tyd-call{stroke:var(--tyd-call,#0969da);stroke-width:1.5;fill:none}
.tyd-egress{stroke:var(--tyd-egress,#9a6700);stroke-width:1.2;fill:none;stroke-dasharray:5 4}
.tyd-arrow-call{fill:var(--tyd-call,#0969da)}
.tyd-arrow-egress{fill:var(--tyd-egress,#9a6700)}
`;

function fit(text: string, width: number): string {
  const max = Math.max(4, Math.floor(width / CHAR));
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

interface PlacedPod {
  readonly pod: DiagramPod;
  readonly x: number;
  readonly y: number;
  readonly height: number;
  /** Vertical centre of each container's row. */
  readonly rows: ReadonlyMap<string, number>;
}

/** Volumes more than one container mounts: what the containers of a pod share. */
function sharedVolumes(pod: DiagramPod): DiagramPod['volumes'] {
  return pod.volumes.filter((v) => v.mounts.length > 1);
}

function podHeight(pod: DiagramPod): number {
  return HEADER + pod.containers.length * ROW + PAD + 20 + sharedVolumes(pod).length * VOLUME_ROW + PAD;
}

/** A container's mounts, short: its own volumes without the `<container>-` prefix of their names. */
function mountsLine(container: DiagramPod['containers'][number]): string {
  if (container.mounts.length === 0) return 'mounts nothing';
  const short = container.mounts.map((m) => {
    const [volume = m] = m.split(' → ');
    const name = volume.startsWith(`${container.name}-`) ? volume.slice(container.name.length + 1) : volume;
    return m.endsWith(' (ro)') ? `${name} (ro)` : name;
  });
  return `mounts ${short.join(', ')}`;
}

function listens(container: DiagramPod['containers'][number]): string {
  if (container.listens.length === 0)
    return container.role === 'init' ? 'init container: runs, then exits' : 'listens on nothing';
  return container.listens
    .map((l) => `${l.host === '127.0.0.1' ? '127.0.0.1' : ''}:${l.port} ${l.what}`)
    .join(' · ');
}

function drawPod(placed: PlacedPod): Html {
  const { pod, x, y, height } = placed;
  const rows = pod.containers.map((c, i) => {
    const top = y + HEADER + i * ROW;
    const inner = POD_WIDTH - 2 * PAD - 16;
    return html`<g class="tyd-container" data-container="${c.name}"><title>${c.name} (${c.role}) ${c.image}: ${listens(c)}; mounts ${c.mounts.join(', ') || 'nothing'}</title>
<rect class="tyd-row ${c.role}" x="${x + PAD}" y="${top}" width="${POD_WIDTH - 2 * PAD}" height="${ROW - 4}" rx="4"/>
<text x="${x + PAD + 8}" y="${top + 14}"><tspan class="tyd-title">${fit(c.name, 170)}</tspan><tspan class="tyd-muted" dx="8">${c.role}</tspan></text>
<text class="tyd-muted" x="${x + PAD + 8}" y="${top + 28}">${fit(listens(c), inner)}</text>
<text class="tyd-muted" x="${x + PAD + 8}" y="${top + 42}">${fit(mountsLine(c), inner)}</text></g>`;
  });
  const volumesTop = y + HEADER + pod.containers.length * ROW + PAD;
  const shared = sharedVolumes(pod);
  const volumes = shared.map((v, i) => {
    const who = v.mounts.map((m) => m.split(' → ')[0]);
    const line = `${v.name} (${v.source}): ${who.join(', ')}`;
    return html`<text class="tyd-volume" x="${x + PAD}" y="${volumesTop + 34 + i * VOLUME_ROW}"><title>${line}</title>${fit(line, POD_WIDTH - 2 * PAD)}</text>`;
  });
  return html`<g class="tyd-pod-group" data-pod="${pod.name}">
<rect class="tyd-pod" x="${x}" y="${y}" width="${POD_WIDTH}" height="${height}" rx="8"/>
<text class="tyd-title" x="${x + PAD}" y="${y + 18}">${fit(`${pod.kind} ${pod.name}`, POD_WIDTH - 2 * PAD)}</text>
<text class="tyd-muted" x="${x + PAD}" y="${y + 34}">${fit(`ServiceAccount ${pod.serviceAccount}`, POD_WIDTH - 2 * PAD)}</text>
${rows}
<text class="tyd-muted" x="${x + PAD}" y="${volumesTop + 14}">${shared.length > 0 ? 'shared volumes' : 'no shared volume'}</text>
${volumes}</g>`;
}

/** The diagram; `id` prefixes the element ids (several diagrams may share a page). */
export function podDiagramSvg(model: PodDiagramModel, id: string): Html {
  // Pods with backends or toolchains on the left, gateway pods in the middle, destinations on the right.
  const isGatewayPod = (pod: DiagramPod) =>
    pod.containers.every((c) => c.role === 'gateway' || c.role === 'init');
  const columns = [model.pods.filter((p) => !isGatewayPod(p)), model.pods.filter(isGatewayPod)];
  const placed = new Map<string, PlacedPod>();
  const columnX = [MARGIN + 24, MARGIN + 24 + POD_WIDTH + GAP];
  let bottom = MARGIN;
  columns.forEach((pods, column) => {
    let y = MARGIN + 24;
    for (const pod of pods) {
      const height = podHeight(pod);
      const rows = new Map(pod.containers.map((c, i) => [c.name, y + HEADER + i * ROW + (ROW - 4) / 2]));
      placed.set(pod.name, { pod, x: columnX[column]!, y, height, rows });
      y += height + 28;
    }
    bottom = Math.max(bottom, y);
  });
  const externalX = columnX[columns[1]!.length > 0 ? 1 : 0]! + POD_WIDTH + GAP;
  const externalY = new Map<string, number>();
  model.externals.forEach((e, i) => {
    externalY.set(e.id, MARGIN + 24 + i * 56);
  });
  bottom = Math.max(bottom, MARGIN + 24 + model.externals.length * 56);
  const width = externalX + (model.externals.length > 0 ? EXTERNAL_WIDTH : 0) + MARGIN;
  const height = bottom + MARGIN + 10;

  const edges: Html[] = [];
  // Calls inside one pod: a bracket on the pod's left, from the calling backends to the servers.
  for (const [podName, pod] of placed) {
    const inside = model.calls.filter((c) => c.from.pod === podName && 'pod' in c.to && c.to.pod === podName);
    if (inside.length === 0) continue;
    const from = [...new Set(inside.map((c) => pod.rows.get(c.from.container)!))];
    const to = [...new Set(inside.map((c) => pod.rows.get((c.to as { container: string }).container)!))];
    const busX = pod.x - 14;
    const top = Math.min(...from, ...to);
    const end = Math.max(...from, ...to);
    edges.push(html`<g class="tyd-bus"><title>${[...new Set(inside.map((c) => c.from.container))].join(', ')} call ${[...new Set(inside.map((c) => `${c.server} (${c.url})`))].join(', ')}</title>
<path class="tyd-call" d="M${busX} ${top} V${end}"/>
${from.map((yy) => html`<path class="tyd-call" d="M${pod.x + PAD} ${yy} H${busX}"/>`)}
${to.map((yy) => html`<path class="tyd-call" d="M${busX} ${yy} H${pod.x + PAD - 1}" marker-end="url(#${id}-call)"/>`)}</g>`);
  }
  // Calls to other pods and to external MCP servers.
  for (const call of model.calls) {
    const from = placed.get(call.from.pod);
    if (!from) continue;
    const fy = from.rows.get(call.from.container)!;
    let tx: number;
    let ty: number;
    if ('pod' in call.to) {
      if (call.to.pod === call.from.pod) continue;
      const target = placed.get(call.to.pod);
      if (!target) continue;
      tx = target.x + PAD - 1;
      ty = target.rows.get(call.to.container)!;
    } else {
      tx = externalX;
      ty = externalY.get(call.to.external)! + 20;
    }
    const fx = from.x + POD_WIDTH - PAD;
    const mid = (fx + tx) / 2;
    edges.push(
      html`<path class="tyd-call" d="M${fx} ${fy} C${mid} ${fy} ${mid} ${ty} ${tx} ${ty}" marker-end="url(#${id}-call)"><title>${call.from.container} calls ${call.server} (${call.url})</title></path>`,
    );
  }
  // Egress: from each pod to its destinations; pods left of the gateway column go over it, in the channel.
  for (const edge of model.egress) {
    const from = placed.get(edge.pod);
    const ty = externalY.get(edge.to);
    if (!from || ty === undefined) continue;
    const ey = ty + 20;
    const viaChannel = from.x + POD_WIDTH + GAP < externalX;
    const approach = externalX - GAP / 2;
    const d = viaChannel
      ? `M${from.x + POD_WIDTH - 24} ${from.y} V${CHANNEL} H${approach} C${approach + 30} ${CHANNEL} ${externalX - 30} ${ey} ${externalX} ${ey}`
      : `M${from.x + POD_WIDTH} ${from.y + 22} C${approach} ${from.y + 22} ${approach} ${ey} ${externalX} ${ey}`;
    edges.push(
      html`<path class="tyd-egress" d="${d}" marker-end="url(#${id}-egress)"><title>${edge.pod} may reach ${edge.to.replace(/^net:/, '')} on ${edge.ports} (${edge.purpose})</title></path>`,
    );
  }
  const externals = model.externals.map((e) => {
    const y = externalY.get(e.id)!;
    const purposes = [
      ...new Set(model.egress.filter((g) => g.to === e.id).map((g) => `${g.ports} ${g.purpose}`)),
    ];
    const detail = e.id.startsWith('mcp:') ? 'MCP server, not deployed here' : purposes.join('; ');
    return html`<g class="tyd-external" data-external="${e.id}"><title>${e.label}: ${detail}</title>
<rect class="tyd-ext" x="${externalX}" y="${y}" width="${EXTERNAL_WIDTH}" height="40" rx="6"/>
<text class="tyd-title" x="${externalX + 8}" y="${y + 16}">${fit(e.label, EXTERNAL_WIDTH - 16)}</text>
<text class="tyd-muted" x="${externalX + 8}" y="${y + 31}">${fit(detail, EXTERNAL_WIDTH - 16)}</text></g>`;
  });

  const summary = [
    `${model.pods.length} pod${model.pods.length === 1 ? '' : 's'}: ${model.pods.map((p) => `${p.kind} ${p.name} (${p.containers.map((c) => c.name).join(', ')})`).join('; ')}.`,
    model.calls.length > 0
      ? `MCP calls: ${[...new Set(model.calls.map((c) => `${c.from.container} → ${c.server}`))].join(', ')}.`
      : 'No MCP calls.',
    model.egress.length > 0
      ? `Egress: ${model.egress.map((e) => `${e.pod} → ${e.to.replace(/^(net|mcp):/, '')} ${e.ports}`).join(', ')}.`
      : 'No egress.',
  ].join(' ');
  return html`<svg xmlns="http://www.w3.org/2000/svg" class="tyd" role="img" aria-labelledby="${id}-title ${id}-desc" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">
<title id="${id}-title">Pods, containers, MCP calls and egress</title>
<desc id="${id}-desc">${summary}</desc>
<style>${STYLE}</style>
<defs><marker id="${id}-call" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path class="tyd-arrow-call" d="M0 0 L10 5 L0 10 z"/></marker>
<marker id="${id}-egress" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path class="tyd-arrow-egress" d="M0 0 L10 5 L0 10 z"/></marker></defs>
<text class="tyd-muted" x="${MARGIN}" y="${height - 10}">solid: MCP call (backend → server) · dashed: egress the pod's NetworkPolicy allows</text>
${[...placed.values()].map(drawPod)}
${externals}
${edges}
</svg>`;
}
