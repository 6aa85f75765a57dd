/**
 * The caches page: every existing claim the fleet's agents mount as a package cache, with who writes it and who
 * reads it (a claim several agents mount is a shared cache: docs/caches.md), and the caches each agent keeps
 * for itself (emptyDir or a new claim of its own).
 */
import { html } from '../../../../site/src/components/html.ts';
import type { FleetCacheUse } from '../fleet-caches.ts';
import type { FleetAgent } from '../fleet-model.ts';
import { agentPage } from './fleet-data.ts';
import { labelledCell, layout } from './pages.ts';

function how(u: FleetCacheUse): string {
  if (u.access === 'read-only') return 'reads';
  return u.phase === 'fetch' && u.kind === 'download' ? 'writes (fetch calls only)' : 'writes';
}

export function cachesPage(agents: readonly FleetAgent[], site: string): string {
  const uses = agents.flatMap((a) => a.caches ?? []);
  const byClaim = new Map<string, FleetCacheUse[]>();
  for (const u of uses)
    if (u.claim !== undefined) {
      const key = `${u.namespace}/${u.claim}`;
      byClaim.set(key, [...(byClaim.get(key) ?? []), u]);
    }
  const claims = [...byClaim.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const userList = (list: readonly FleetCacheUse[]) =>
    html`<ul class="calls">${list.map(
      (u) =>
        html`<li><a href="../${agentPage(u.agent)}">${u.agent}</a>/${u.toolchain}: <span class="${u.access === 'read-write' ? 'warn' : 'yes'}">${how(u)}</span> <code>${u.cache}</code> <span class="muted">(${u.ecosystem}, ${u.kind}${u.verifiesOnRead ? ', verified on read' : ''})</span></li>`,
    )}</ul>`;
  const claimRows = claims.map(([key, list]) => {
    const sharers = new Set(list.map((u) => u.agent)).size;
    return html`<tr data-item data-search="${`${key} ${list.map((u) => `${u.agent} ${u.ecosystem}`).join(' ')}`}"><th scope="row"><code>${key}</code></th>${labelledCell(
      'Agents',
      html`${sharers > 1 ? html`<strong>shared by ${sharers} agents</strong>` : '1 agent'}${list.some((u) => u.shared) ? html` <span class="muted">(declared ReadWriteMany)</span>` : ''}`,
    )}${labelledCell('Who writes, who reads', userList(list))}</tr>`;
  });
  const own = agents
    .map((a) => ({ agent: a, list: (a.caches ?? []).filter((u) => u.claim === undefined) }))
    .filter((o) => o.list.length > 0);
  const ownRows = own.map(
    ({ agent, list }) =>
      html`<tr data-item><th scope="row"><a href="../${agentPage(agent.name)}">${agent.namespace}/${agent.name}</a></th>${labelledCell('Its own caches', userList(list))}</tr>`,
  );
  const body = html`<h1>Caches</h1>
<p>Package caches are mounted only in the toolchains that list them, never in backends, gateways or the broker. A claim several agents mount is shared: a build cache there has one writer at most, a download cache is written only where the tool verifies what it reads or by fetch calls (<code>phase: fetch</code>), which run no project code.</p>
<section data-filter-root aria-labelledby="claims-heading"><h2 id="claims-heading">Existing claims used as caches</h2>
${
  claimRows.length === 0
    ? html`<p class="muted">No agent mounts an existing claim as a cache.</p>`
    : html`<form class="filters" role="search" onsubmit="return false">
<label>Search claims <input type="search" data-filter="search" placeholder="claim, agent, ecosystem…"></label>
</form>
<p class="count" data-count="claims" aria-live="polite">${claimRows.length === 1 ? '1 claim' : `${claimRows.length} claims`}</p>
<div class="ty-scroll" role="region" tabindex="0" aria-label="Cache claims"><table class="fleet-table stack" id="cache-claims">
<thead><tr><th scope="col">Claim</th><th scope="col">Agents</th><th scope="col">Who writes, who reads</th></tr></thead>
<tbody>${claimRows}</tbody></table></div>`
}</section>
<section aria-labelledby="own-heading"><h2 id="own-heading">Caches agents keep for themselves</h2>
${
  ownRows.length === 0
    ? html`<p class="muted">None.</p>`
    : html`<div class="ty-scroll" role="region" tabindex="0" aria-label="Own caches"><table class="fleet-table stack" id="own-caches">
<thead><tr><th scope="col">Agent</th><th scope="col">Its own caches</th></tr></thead>
<tbody>${ownRows}</tbody></table></div>`
}</section>`;
  return layout({ title: 'Caches', site, depth: 1, section: 'caches', body });
}
