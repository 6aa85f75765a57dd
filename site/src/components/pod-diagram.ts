/**
 * The pod diagram as an SVG string: one box per pod (its containers with what they listen on, its volumes and
 * who mounts them), MCP calls as solid arrows from each backend to the servers its client config lists, and
 * each pod's effective egress as dashed arrows to its destinations. Colours come from CSS custom properties
 * (`--tyd-*`) with light defaults, so a page themes it; the text alternative is in `<title>`/`<desc>` and in
 * the tables next to it.
 *
 * The layout is computed, never searched, so the same model always gives the same picture: pods in one column
 * (the backends' pods first, then the pods they call), destinations below them; every MCP call runs in a lane
 * on the left (one lane per server), every egress in a lane on the right (one lane per destination). Arrows
 * only run in the lanes and in the short stubs into a box's edge, so no arrow crosses a box. Text wraps at
 * word boundaries instead of being cut, and the column is narrow enough to scale down onto a phone.
 */
import { type Html, html } from './html.ts';
import type { DiagramPod, PodDiagramModel } from './pod-model.ts';

const POD_WIDTH = 360;
const MARGIN = 16;
const LANE = 12;
const PAD = 10;
const LINE = 15;
const TITLE_LINE = 17;
const POD_GAP = 24;
/** Advance of a 12 px monospace glyph, and of the 13 px bold titles. */
const CHAR = 7.3;
const TITLE_CHAR = 8.1;
/** The widest text a container row and a pod's own lines hold. */
const ROW_TEXT = POD_WIDTH - 2 * PAD - 16;
const POD_TEXT = POD_WIDTH - 2 * PAD;

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
.tyd-dot{fill:var(--tyd-call,#0969da)}
`;

/**
 * A word longer than a line (a URL, a long host name) in pieces of at most `max` characters, each ending after a
 * `/`, `.`, `:` or `-` where one falls in the second half of the piece, else cut at `max`.
 */
function breakLongWord(word: string, max: number): string[] {
  const pieces: string[] = [];
  let rest = word;
  while (rest.length > max) {
    let cut = -1;
    for (let i = max; i > max / 2; i--) {
      if ('/.:-'.includes(rest[i - 1]!)) {
        cut = i;
        break;
      }
    }
    if (cut < 0) cut = max;
    pieces.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  if (rest !== '') pieces.push(rest);
  return pieces;
}

/**
 * Splits text into lines of at most `width` px, at spaces (after `, ` and ` · ` first); a word longer than a
 * whole line (a URL) is broken after its `/`, `.`, `:` or `-`, so nothing runs out of its box.
 */
export function wrapText(text: string, width: number, char = CHAR): string[] {
  const max = Math.max(8, Math.floor(width / char));
  const lines: string[] = [];
  let line = '';
  // Continuation lines are indented by two spaces, so a piece of a long word is kept two shorter.
  const words = text
    .split(' ')
    .flatMap((word) => (word.length > max - 2 ? breakLongWord(word, max - 2) : [word]));
  for (const word of words) {
    const next = line === '' ? word : `${line} ${word}`;
    if (next.length <= max || line === '') line = next;
    else {
      lines.push(line);
      line = `  ${word}`;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

/** Volumes more than one container mounts: what the containers of a pod share. */
function sharedVolumes(pod: DiagramPod): DiagramPod['volumes'] {
  return pod.volumes.filter((v) => v.mounts.length > 1);
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

interface ContainerBox {
  readonly container: DiagramPod['containers'][number];
  readonly top: number;
  readonly height: number;
  readonly title: readonly string[];
  readonly lines: readonly string[];
}

interface PlacedPod {
  readonly pod: DiagramPod;
  readonly y: number;
  readonly height: number;
  readonly head: readonly string[];
  readonly sa: readonly string[];
  readonly containers: readonly ContainerBox[];
  readonly volumesTop: number;
  readonly volumes: readonly { text: string; lines: readonly string[] }[];
}

interface PlacedExternal {
  readonly id: string;
  readonly y: number;
  readonly height: number;
  readonly label: readonly string[];
  readonly detail: readonly string[];
  readonly title: string;
}

function placePod(pod: DiagramPod, y: number): PlacedPod {
  const head = wrapText(`${pod.kind} ${pod.name}`, POD_TEXT, TITLE_CHAR);
  const sa = wrapText(`ServiceAccount ${pod.serviceAccount}`, POD_TEXT);
  let top = y + PAD + head.length * TITLE_LINE + sa.length * LINE + 4;
  const containers = pod.containers.map((container) => {
    const title = wrapText(`${container.name} ${container.role}`, ROW_TEXT, TITLE_CHAR);
    const lines = [...wrapText(listens(container), ROW_TEXT), ...wrapText(mountsLine(container), ROW_TEXT)];
    const height = 8 + title.length * TITLE_LINE + lines.length * LINE;
    const box = { container, top, height, title, lines };
    top += height + 4;
    return box;
  });
  const volumesTop = top + 4;
  const volumes = sharedVolumes(pod).map((v) => {
    const text = `${v.name} (${v.source}): ${v.mounts.map((m) => m.split(' → ')[0]).join(', ')}`;
    return { text, lines: wrapText(text, POD_TEXT) };
  });
  const volumeLines = 1 + volumes.reduce((n, v) => n + v.lines.length, 0);
  const height = volumesTop - y + volumeLines * LINE + PAD;
  return { pod, y, height, head, sa, containers, volumesTop, volumes };
}

function textLines(lines: readonly string[], x: number, y: number, step: number, className: string): Html[] {
  return lines.map(
    (line, i) =>
      html`<text class="${className}" x="${x}" y="${y + i * step}" xml:space="preserve">${line}</text>`,
  );
}

function drawPod(placed: PlacedPod, x: number): Html {
  const { pod, y, height } = placed;
  const rows = placed.containers.map((box) => {
    const c = box.container;
    const tx = x + PAD + 8;
    const titleY = box.top + 4 + 12;
    const linesY = box.top + 4 + box.title.length * TITLE_LINE + 11;
    // The role reads as muted text after the name on the title's last line.
    const title = box.title.map((line, i) => {
      const last = i === box.title.length - 1;
      const name = last ? line.slice(0, line.length - c.role.length - 1) : line;
      return html`<text x="${tx}" y="${titleY + i * TITLE_LINE}" xml:space="preserve"><tspan class="tyd-title">${name}</tspan>${last ? html`<tspan class="tyd-muted" dx="8">${c.role}</tspan>` : ''}</text>`;
    });
    return html`<g class="tyd-container" data-container="${c.name}"><title>${c.name} (${c.role}) ${c.image}: ${listens(c)}; mounts ${c.mounts.join(', ') || 'nothing'}</title>
<rect class="tyd-row ${c.role}" x="${x + PAD}" y="${box.top}" width="${POD_WIDTH - 2 * PAD}" height="${box.height}" rx="4"/>
${title}
${textLines(box.lines, tx, linesY, LINE, 'tyd-muted')}</g>`;
  });
  let volumeY = placed.volumesTop + 12;
  const heading = html`<text class="tyd-muted" x="${x + PAD}" y="${volumeY}">${placed.volumes.length > 0 ? 'shared volumes' : 'no shared volume'}</text>`;
  const volumes = placed.volumes.map((v) => {
    volumeY += LINE;
    const lines = textLines(v.lines, x + PAD, volumeY, LINE, 'tyd-volume');
    volumeY += (v.lines.length - 1) * LINE;
    return html`<g><title>${v.text}</title>${lines}</g>`;
  });
  const headY = y + PAD + 12;
  return html`<g class="tyd-pod-group" data-pod="${pod.name}">
<rect class="tyd-pod" x="${x}" y="${y}" width="${POD_WIDTH}" height="${height}" rx="8"/>
${textLines(placed.head, x + PAD, headY, TITLE_LINE, 'tyd-title')}
${textLines(placed.sa, x + PAD, headY + placed.head.length * TITLE_LINE - 2, LINE, 'tyd-muted')}
${rows}
${heading}
${volumes}</g>`;
}

/** The diagram; `id` prefixes the element ids (several diagrams may share a page). */
export function podDiagramSvg(model: PodDiagramModel, id: string): Html {
  // The pods whose containers call others first, then the pods they call, in the model's order otherwise.
  const callers = new Set(model.calls.map((c) => c.from.pod));
  const pods = [...model.pods].sort((a, b) => Number(callers.has(b.name)) - Number(callers.has(a.name)));

  // One lane per MCP server on the left, one per destination of egress on the right.
  const callLanes = [
    ...new Set(model.calls.map((c) => ('pod' in c.to ? `${c.to.pod}/${c.to.container}` : c.to.external))),
  ];
  const egressLanes = [...new Set(model.egress.map((e) => e.to))];
  const podX = MARGIN + callLanes.length * LANE + (callLanes.length > 0 ? 12 : 0);
  const width = podX + POD_WIDTH + (egressLanes.length > 0 ? 12 + egressLanes.length * LANE : 0) + MARGIN;
  const callLaneX = (key: string) => MARGIN + (callLanes.length - 1 - callLanes.indexOf(key)) * LANE + 4;
  const egressLaneX = (key: string) => podX + POD_WIDTH + 12 + egressLanes.indexOf(key) * LANE + 4;

  const placed = new Map<string, PlacedPod>();
  let y = MARGIN;
  for (const pod of pods) {
    const box = placePod(pod, y);
    placed.set(pod.name, box);
    y += box.height + POD_GAP;
  }
  const externals = new Map<string, PlacedExternal>();
  for (const e of model.externals) {
    const purposes = [
      ...new Set(model.egress.filter((g) => g.to === e.id).map((g) => `${g.ports} ${g.purpose}`)),
    ];
    const detail = e.id.startsWith('mcp:') ? 'MCP server, not deployed here' : purposes.join('; ');
    const label = wrapText(e.label, POD_WIDTH - 16, TITLE_CHAR);
    const lines = wrapText(detail, POD_WIDTH - 16);
    const height = 8 + label.length * TITLE_LINE + lines.length * LINE + 4;
    externals.set(e.id, { id: e.id, y, height, label, detail: lines, title: `${e.label}: ${detail}` });
    y += height + 10;
  }
  const legendY = y + 14;
  const legend = wrapText(
    'solid: MCP call (backend → server) · dashed: egress the NetworkPolicy allows',
    width - 2 * MARGIN,
  );
  const height = legendY + (legend.length - 1) * LINE + MARGIN;

  const rowMiddle = (pod: string, container: string) => {
    const box = placed.get(pod)?.containers.find((c) => c.container.name === container);
    return box ? box.top + box.height / 2 : undefined;
  };
  const edges: Html[] = [];
  // MCP calls: from the backend's row out to its server's lane, down or up the lane, into the server.
  for (const lane of callLanes) {
    const calls = model.calls.filter(
      (c) => ('pod' in c.to ? `${c.to.pod}/${c.to.container}` : c.to.external) === lane,
    );
    const first = calls[0]!;
    const laneX = callLaneX(lane);
    let targetY: number | undefined;
    let targetX = podX + PAD;
    if ('pod' in first.to) targetY = rowMiddle(first.to.pod, first.to.container);
    else {
      const external = externals.get(first.to.external);
      if (external) {
        targetY = external.y + 14;
        targetX = podX;
      }
    }
    const sources = calls.flatMap((c) => {
      const from = rowMiddle(c.from.pod, c.from.container);
      return from === undefined ? [] : [from];
    });
    if (targetY === undefined || sources.length === 0) continue;
    const ys = [...new Set(sources)];
    const top = Math.min(targetY, ...ys);
    const bottom = Math.max(targetY, ...ys);
    const who = [...new Set(calls.map((c) => c.from.container))].join(', ');
    edges.push(html`<g class="tyd-lane" data-lane="${lane}"><title>${who} call ${first.server} (${first.url})</title>
<path class="tyd-call" d="M${laneX} ${top} V${bottom}"/>
${ys.map((sy) => html`<path class="tyd-call" d="M${podX + PAD} ${sy} H${laneX}"/><circle class="tyd-dot" cx="${laneX}" cy="${sy}" r="2.5"/>`)}
<path class="tyd-call" d="M${laneX} ${targetY} H${targetX - 1}" marker-end="url(#${id}-call)"/></g>`);
  }
  // Egress: from the pod's right edge, at its title, to the destination's lane, down into the destination.
  for (const lane of egressLanes) {
    const grants = model.egress.filter((e) => e.to === lane);
    const external = externals.get(lane);
    if (!external) continue;
    const laneX = egressLaneX(lane);
    const ey = external.y + 14;
    const sources = [
      ...new Set(grants.flatMap((g) => (placed.has(g.pod) ? [placed.get(g.pod)!.y + 14] : []))),
    ];
    if (sources.length === 0) continue;
    const top = Math.min(...sources);
    edges.push(html`<g class="tyd-lane" data-lane="${lane}"><title>${grants.map((g) => `${g.pod} may reach ${lane.replace(/^net:/, '')} on ${g.ports} (${g.purpose})`).join('; ')}</title>
<path class="tyd-egress" d="M${laneX} ${top} V${ey}"/>
${sources.map((sy) => html`<path class="tyd-egress" d="M${podX + POD_WIDTH} ${sy} H${laneX}"/>`)}
<path class="tyd-egress" d="M${laneX} ${ey} H${podX + POD_WIDTH + 1}" marker-end="url(#${id}-egress)"/></g>`);
  }
  const externalBoxes = [...externals.values()].map(
    (e) => html`<g class="tyd-external" data-external="${e.id}"><title>${e.title}</title>
<rect class="tyd-ext" x="${podX}" y="${e.y}" width="${POD_WIDTH}" height="${e.height}" rx="6"/>
${textLines(e.label, podX + 8, e.y + 4 + 12, TITLE_LINE, 'tyd-title')}
${textLines(e.detail, podX + 8, e.y + 4 + e.label.length * TITLE_LINE + 11, LINE, 'tyd-muted')}</g>`,
  );

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
${textLines(legend, MARGIN, legendY, LINE, 'tyd-muted tyd-legend')}
${pods.map((p) => drawPod(placed.get(p.name)!, podX))}
${externalBoxes}
${edges}
</svg>`;
}
