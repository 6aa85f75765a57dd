/**
 * The fleet site's pages, as HTML text: the catalog (with search and filters), a page per agent and the
 * egress graph (the authority page is authority-page.ts). Agent pages are built from the playground's components
 * (`site/src/components/`): the pod diagram, the explain tables and the RBAC tables grouped by rule set.
 * Links are relative, so the site works from any directory of any static host.
 */
import type { ExplainReport } from '../../../../constructs/src/explain.ts';
import type { McpClientConfigFile } from '../../../../constructs/src/mcp-client-configs.ts';
import type { RenderResult } from '../../../../constructs/src/render.ts';
import { Html, html } from '../../../../site/src/components/html.ts';
import { podDiagramSvg } from '../../../../site/src/components/pod-diagram.ts';
import { podDiagramModel } from '../../../../site/src/components/pod-model.ts';
import { podTables, serviceAccountAccess } from '../../../../site/src/components/tables.ts';
import type { FleetAgent } from '../fleet-model.ts';
import { agentCachesSection } from './agent-caches.ts';
import { agentObservabilitySection } from './agent-observability.ts';
import { THEME_BOOT } from './assets.ts';
import { CATALOG_COLUMNS } from './column-labels.ts';
import { egressGraphSvg } from './egress-graph.ts';
import { agentPage, type FleetData } from './fleet-data.ts';
import { summaryCards } from './summary.ts';
import { keepWordsWhole } from './whole-words.ts';

type Section = 'catalog' | 'authority' | 'egress' | 'hosts' | 'caches' | 'agent';

const NAV: readonly { section: Section; label: string; path: string }[] = [
  { section: 'catalog', label: 'Catalog', path: '' },
  { section: 'authority', label: 'Authority', path: 'authority/' },
  { section: 'egress', label: 'Egress', path: 'egress/' },
  { section: 'hosts', label: 'Hosts', path: 'hosts/' },
  { section: 'caches', label: 'Caches', path: 'caches/' },
];

export function layout(options: {
  readonly title: string;
  readonly site: string;
  readonly depth: number;
  readonly section: Section;
  readonly body: Html;
}): string {
  const root = options.depth === 0 ? './' : '../'.repeat(options.depth);
  return `<!doctype html>\n${
    html`<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title} · ${options.site}</title>
<meta name="color-scheme" content="light dark">
<link rel="icon" href="${root}favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="${root}assets/fleet.css">
<script>${new Html(THEME_BOOT)}</script></head>
<body><header class="site"><a class="brand" href="${root}"><img src="${root}favicon.svg" alt="">${options.site}</a>
<nav aria-label="Fleet"><ul>${NAV.map(
      (n) =>
        html`<li><a href="${root}${n.path}"${n.section === options.section ? html` aria-current="page"` : ''}>${n.label}</a></li>`,
    )}<li><a href="${root}charts/index.yaml">Chart repository</a></li><li><a href="${root}schema/v1alpha1/agent.json">JSON Schema</a></li></ul></nav>
<button type="button" class="theme" data-theme-toggle hidden>Theme</button></header>
<main id="main">${new Html(keepWordsWhole(options.body.markup))}</main>
<script src="${root}assets/fleet.js" defer></script></body></html>`.markup
  }\n`;
}

const tags = (items: readonly string[]) =>
  items.length === 0
    ? html`<span class="muted">none</span>`
    : html`<ul class="tags">${items.map((i) => html`<li>${i}</li>`)}</ul>`;

const labelsOf = (a: FleetAgent) => Object.entries(a.labels).map(([k, v]) => `${k}=${v}`);

function counts(values: readonly string[]): [string, number][] {
  const map = new Map<string, number>();
  for (const v of values) map.set(v, (map.get(v) ?? 0) + 1);
  return [...map].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
}

function facet(title: string, values: readonly string[]): Html {
  const entries = counts(values);
  return html`<section><h3>${title} (${entries.length})</h3>${
    entries.length === 0
      ? html`<p class="muted">none</p>`
      : html`<ul>${entries.slice(0, 50).map(([v, n]) => html`<li><a href="./?q=${encodeURIComponent(v)}"><code>${v}</code></a> — ${n} agent${n === 1 ? '' : 's'}</li>`)}${
          entries.length > 50
            ? html`<li class="muted">… ${entries.length - 50} more (search the catalog)</li>`
            : ''
        }</ul>`
  }</section>`;
}

export function options(values: readonly string[]): Html {
  return html`${[...new Set(values)].sort().map((v) => html`<option value="${v}">${v}</option>`)}`;
}

/** A table cell that also carries its column's name, shown when the row becomes a card on a narrow screen. */
export const labelledCell = (label: string, content: Html | string) =>
  html`<td><span class="cell-label" aria-hidden="true">${label}</span><div>${content}</div></td>`;

/** The id of an agent's warnings in the catalog's list (agent names are unique in a site). */
const warningsId = (agent: string) => `warnings-${agent}`;

export function catalogPage(agents: readonly FleetAgent[], data: FleetData, site: string): string {
  const rows = agents.map((a) => {
    // What the row shows, as text: the search matches exactly this (and the images and warnings listed below).
    const shown = {
      labels: labelsOf(a),
      backends: a.backends.map((b) => `${b.name} (${b.type})`),
      toolchains: a.toolchains.map((t) => `${t.name} (${t.placement}, egress ${t.egress})`),
      gateways: a.gateways.map((g) =>
        g.kind === 'deployed' ? `${g.name}${g.preset ? ` (${g.preset})` : ''}` : `${g.name} (external)`,
      ),
    };
    // The search matches what the row shows (its own text, read by the page script), its images, and its
    // warnings, listed once at the bottom of the page and found by reference.
    const search = [`${a.images.length} images`, ...a.images, `${a.warnings.length} warnings`].join(' · ');
    const warningsRef = a.warnings.length > 0 ? html` data-search-ref="${warningsId(a.name)}"` : '';
    const cell = (content: Html | string) => html`<td><div>${content}</div></td>`;
    return html`<tr data-item data-search-self data-namespace="${a.namespace}" data-backend="${[...new Set(a.backends.map((b) => b.type))].join(' ')}" data-warnings="${a.warnings.length}" data-search="${search}"${warningsRef}>
${cell(html`<a href="${agentPage(a.name)}">${a.name}</a><br><span class="muted">${a.file}</span>`)}
${cell(a.namespace)}${cell(tags(shown.labels))}
${cell(tags(shown.backends))}
${cell(tags(shown.toolchains))}
${cell(tags(shown.gateways))}
${cell(String(a.images.length))}
${cell(a.warnings.length > 0 ? html`<span class="warn">${a.warnings.length}</span>` : '0')}</tr>`;
  });
  const warned = agents.filter((a) => a.warnings.length > 0);
  const warningCount = warned.reduce((n, a) => n + a.warnings.length, 0);
  const body = html`<h1>Fleet catalog</h1>
<p class="lead">What this repository's agents can reach, who holds credentials and authority, rendered by toolyard from its specs: the same renderer as <code>toolyard synth</code>.</p>
${summaryCards(agents, data)}
<section data-filter-root aria-labelledby="agents-heading"><h2 id="agents-heading">Agents</h2>
<form class="filters" role="search" onsubmit="return false">
<label>Search <input type="search" data-filter="search" data-url placeholder="anything a row shows: egress none, claude, team=…"></label>
<label>Namespace <select data-filter="namespace"><option value="">all</option>${options(agents.map((a) => a.namespace))}</select></label>
<label>Backend type <select data-filter="backend"><option value="">all</option>${options(agents.flatMap((a) => a.backends.map((b) => b.type)))}</select></label>
<label>Warnings <select data-filter="warnings"><option value="">any</option><option value="yes">with warnings</option><option value="no">without</option></select></label>
</form>
<p class="count" data-count="agents" aria-live="polite">${agents.length} agents</p>
<div class="ty-scroll" role="region" tabindex="0" aria-label="Agents"><table class="fleet-table stack" id="catalog">
<thead><tr>${CATALOG_COLUMNS.map((c) => html`<th scope="col">${c}</th>`)}</tr></thead>
<tbody>${rows}</tbody></table></div></section>
<h2>Across the fleet</h2>
<div class="facets">
${facet(
  'Namespaces',
  agents.map((a) => a.namespace),
)}
${facet('Labels', agents.flatMap(labelsOf))}
${facet(
  'Backends',
  agents.flatMap((a) => a.backends.map((b) => b.type)),
)}
${facet(
  'Toolchains',
  agents.flatMap((a) => a.toolchains.map((t) => t.name)),
)}
${facet(
  'Gateways',
  agents.flatMap((a) => a.gateways.map((g) => g.name)),
)}
${facet(
  'Images',
  agents.flatMap((a) => a.images),
)}
</div>
<h2 id="warnings">Warnings (${warningCount})</h2>
${
  warned.length === 0
    ? html`<p>No agent has a warning.</p>`
    : html`<ul>${warned.map((a) => html`<li id="${warningsId(a.name)}"><a href="${agentPage(a.name)}">${a.name}</a>: ${a.warnings.length === 1 ? a.warnings[0]! : html`<ul>${a.warnings.map((w) => html`<li>${w}</li>`)}</ul>`}</li>`)}</ul>`
}`;
  return layout({ title: 'Catalog', site, depth: 0, section: 'catalog', body });
}

export interface AgentPageInput {
  readonly agent: FleetAgent;
  readonly rendered: RenderResult;
  readonly report: ExplainReport;
  readonly manifests: string;
  readonly manifestsFile: string;
  readonly chartFile: string;
  readonly clientConfigs: readonly McpClientConfigFile[];
}

export function agentPageHtml(input: AgentPageInput, site: string): string {
  const { agent: a, rendered, report } = input;
  const diagram = podDiagramSvg(podDiagramModel(rendered.plan, rendered.objects), 'pods');
  const body = html`<p><a href="../../">Catalog</a> › ${a.namespace}</p>
<h1>Agent ${a.name}</h1>
<dl class="facts">
<dt>Namespace</dt><dd><code>${a.namespace}</code></dd>
<dt>Spec</dt><dd><code>${a.file}</code></dd>
<dt>Labels</dt><dd>${tags(labelsOf(a))}</dd>
${a.brokerTokensSecret ? html`<dt>Egress by name</dt><dd><a href="../../hosts/?q=${encodeURIComponent(`${a.namespace}/${a.name}`)}">the hosts its containers reach, across the fleet</a></dd>` : ''}
<dt>Downloads</dt><dd><a href="${input.manifestsFile}" download>${input.manifestsFile}</a> (rendered manifests) · <a href="../../charts/${input.chartFile}" download>${input.chartFile}</a> (Helm chart)</dd>
</dl>
${
  a.warnings.length > 0
    ? html`<h2>Warnings</h2><ul>${a.warnings.map((w) => html`<li class="warn">${w}</li>`)}</ul>`
    : ''
}
<h2>Pods</h2>
<div class="diagram" role="region" tabindex="0" aria-label="Pod diagram">${diagram}</div>
${report.pods.map((pod) => podTables(pod, `${pod.kind} ${pod.pod}`))}
${agentCachesSection(report)}
${agentObservabilitySection(report)}
<h2>Authority</h2>
${report.serviceAccounts.map(serviceAccountAccess)}
<h2>Generated MCP client configs</h2>
${
  input.clientConfigs.length === 0
    ? html`<p class="muted">No backend has a client config.</p>`
    : input.clientConfigs.map(
        (f) =>
          html`<details><summary>backend <code>${f.backend}</code> (${f.type}): <code>${f.path}</code></summary><pre>${f.content}</pre></details>`,
      )
}
<h2>Rendered manifests</h2>
<details><summary>${rendered.objects.length} objects (${input.manifestsFile})</summary><pre>${input.manifests}</pre></details>`;
  return layout({ title: `Agent ${a.name}`, site, depth: 2, section: 'agent', body });
}

/**
 * The egress graph and table of `data`. At fleet scale the graph is split over several pages (egress-pages.ts):
 * `part` then gives the page's depth, the fleet-wide count of open-egress pods and the pager to show.
 */
export function egressPage(
  data: FleetData,
  site: string,
  part: { readonly depth: number; readonly openPods: number; readonly pager: Html } = {
    depth: 1,
    openPods: data.egress.filter((e) => e.peer === '*').length,
    pager: html``,
  },
): string {
  const root = '../'.repeat(part.depth);
  const open = part.openPods;
  const body = html`<h1>Egress</h1>
<p>Who can reach what: every pod of the fleet and the destinations its NetworkPolicies allow (cluster DNS, gateways, toolchain pods, CIDRs), read from the policies toolyard renders. ${
    open > 0
      ? html`<strong class="warn">${open} pod${open === 1 ? '' : 's'} may reach anything</strong> (open egress, or NetworkPolicies disabled).`
      : 'No pod may reach everything.'
  }</p>${part.pager}
<section data-filter-root aria-labelledby="graph-heading"><h2 id="graph-heading">Egress graph</h2>
<form class="filters" role="search" onsubmit="return false">
<label>Namespace <select data-filter="namespace"><option value="">all</option>${options(data.agents.map((a) => a.namespace))}</select></label>
<label>Agent <select data-filter="agent"><option value="">all</option>${options(data.agents.map((a) => a.name))}</select></label>
<label>Destination or pod <input type="search" data-filter="search" data-url placeholder="0.0.0.0/0, 443, kube-dns, gateway…"></label>
</form>
<p class="count" data-count="connections" aria-live="polite">${data.egress.length} connections</p>
<div class="diagram" role="region" tabindex="0" aria-label="Egress graph">${egressGraphSvg(data)}</div>
</section>
<h2>As a table</h2>
<details><summary>${data.egress.length} allowed (pod, destination) pairs</summary>
<div class="ty-scroll" role="region" tabindex="0" aria-label="Egress table"><table class="fleet-table" id="egress-table"><thead><tr><th scope="col">Pod</th><th scope="col">Destination</th><th scope="col">Ports</th></tr></thead>
<tbody>${data.egress.map((e) => html`<tr><td><a href="${root}${agentPage(e.agent)}">${e.namespace}/${e.pod}</a></td><td>${data.peers[e.peer] ?? e.peer}</td><td>${e.ports.join(', ')}</td></tr>`)}</tbody></table></div></details>`;
  return layout({ title: 'Egress', site, depth: part.depth, section: 'egress', body });
}
