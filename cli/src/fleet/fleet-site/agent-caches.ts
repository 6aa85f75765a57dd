/**
 * An agent page's caches: each toolchain container's caches as `toolyard explain` reports them (path, access,
 * shared or its own, kind, storage, verified on read) and its egress phase. Nothing when it has none.
 */
import type { ExplainReport } from '../../../../constructs/src/explain.ts';
import { type Html, html } from '../../../../site/src/components/html.ts';

export function agentCachesSection(report: ExplainReport): Html | string {
  const caches = report.caches ?? [];
  if (caches.length === 0) return '';
  return html`<h2>Caches</h2>
<p>Mounted only in these toolchain containers (never in backends, gateways or the broker); see the fleet's <a href="../../caches/">Caches</a> page for claims other agents share.</p>
${caches.map(
  (
    c,
  ) => html`<h3><code>${c.container}</code> <span class="muted">(pod ${c.pod}; phase ${c.phase}${c.phase === 'fetch' ? ': only fetch calls have egress and write download caches' : ''})</span></h3>
${
  c.caches.length === 0
    ? html`<p class="muted">No caches.</p>`
    : html`<div class="ty-scroll" role="region" tabindex="0" aria-label="Caches of ${c.container}"><table class="ty-table">
<thead><tr><th scope="col">Path</th><th scope="col">Cache</th><th scope="col">Access</th><th scope="col">Shared</th><th scope="col">Storage</th><th scope="col">Verified on read</th></tr></thead>
<tbody>${c.caches.map(
        (m) =>
          html`<tr><td data-label="Path"><code>${m.path}</code></td><td data-label="Cache">${m.name} <span class="muted">(${m.ecosystem}, ${m.kind})</span></td><td data-label="Access">${m.access === 'read-write' && c.phase === 'fetch' && m.kind === 'download' ? 'read-write for fetch calls, read-only for the others' : m.access}</td><td data-label="Shared">${m.sharing === 'shared' ? html`<strong>shared with other agents</strong>` : "the agent's own"}</td><td data-label="Storage">${m.storage}</td><td data-label="Verified on read">${m.verifiesOnRead ? 'yes' : 'no'}</td></tr>`,
      )}</tbody></table></div>`
}`,
)}`;
}
