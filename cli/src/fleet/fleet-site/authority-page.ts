/**
 * The authority page: which agent can call which gateway (each agent's own gateways in its row, the gateways
 * that admit anyone described once and listed by link), and what each ServiceAccount can do where, as
 * `kubectl auth can-i --list` would answer, each distinct rule set shown once. Built to stay light at fleet
 * scale: its size follows the calls and the distinct rule sets, not agents × gateway names.
 */
import { html } from '../../../../site/src/components/html.ts';
import { agentPage, type FleetData } from './fleet-data.ts';
import { layout, options } from './pages.ts';

export function authorityPage(data: FleetData, site: string): string {
  const byAgent = new Map<string, FleetData['matrix'][number][]>();
  for (const cell of data.matrix) byAgent.set(cell.agent, [...(byAgent.get(cell.agent) ?? []), cell]);
  const one = (c: FleetData['matrix'][number]) => {
    if (c.kind === 'external')
      return html`<span class="yes">can call</span> <span class="muted">external ${c.url}</span>`;
    const what = c.preset
      ? html`${c.preset} in ${c.namespaces.join(', ')}`
      : html`<span class="muted">no Kubernetes API access</span>`;
    if (c.owner !== c.agent)
      return html`<span class="warn">can call ${c.owner}'s</span> <code>${c.serviceAccount ?? ''}</code> (it admits anyone: NetworkPolicies disabled)<br>${what}`;
    return html`<span class="yes">can call</span> <code>${c.serviceAccount ?? ''}</code><br>${what}`;
  };
  const crossing = data.matrix.filter((c) => c.owner !== c.agent).length;
  // Gateways that admit anyone are callable by every agent whose egress reaches them: the same long list for
  // many agents. Each distinct list is shown once, below the table, and the rows link to it.
  const openLists = new Map<string, { id: string; cells: FleetData['matrix'][number][]; agents: number }>();
  const openListOf = (cells: readonly FleetData['matrix'][number][]) => {
    const key = cells
      .map((c) => `${c.owner}/${c.gateway}`)
      .sort()
      .join(' ');
    const list = openLists.get(key) ?? { id: `open-${openLists.size + 1}`, cells: [...cells], agents: 0 };
    list.agents += 1;
    openLists.set(key, list);
    return list;
  };
  const rows = data.agents.map((a) => {
    const mine = byAgent.get(a.name) ?? [];
    const own = mine.filter((c) => c.owner === c.agent);
    const others = mine.filter((c) => c.owner !== c.agent);
    const list = others.length > 0 ? openListOf(others) : undefined;
    const search = [
      `${a.namespace}/${a.name}`,
      ...own.map((c) => `${c.gateway} ${c.serviceAccount ?? ''}`),
    ].join(' ');
    const items = [
      ...own.map((c) => html`<li data-gateway="${c.gateway}"><strong>${c.gateway}</strong>: ${one(c)}</li>`),
      list
        ? html`<li data-crossing="${others.length}"><span class="warn">can call ${others.length} gateway${others.length === 1 ? '' : 's'} of other agents</span> that admit anyone: <a href="#${list.id}">list ${list.id.slice(5)}</a></li>`
        : '',
    ];
    return html`<tr data-item data-namespace="${a.namespace}" data-search="${search}"><th scope="row"><a href="../${a.page}">${a.namespace}/${a.name}</a></th><td><div>${
      mine.length === 0 ? html`<span class="muted">none</span>` : html`<ul class="calls">${items}</ul>`
    }</div></td></tr>`;
  });
  // Every gateway that admits anyone, described once; the lists name them by link.
  const byKey = new Map<string, FleetData['matrix'][number]>();
  for (const list of openLists.values()) for (const c of list.cells) byKey.set(`${c.owner}/${c.gateway}`, c);
  const openGateways = new Map(
    [...byKey.keys()].sort().map((key, i) => [key, { id: `og-${i + 1}`, cell: byKey.get(key)! }] as const),
  );
  const lists =
    openLists.size === 0
      ? ''
      : html`<h3 id="open-gateways">Gateways that admit anyone</h3>
<p class="muted">Their agents disable NetworkPolicies: any pod whose egress reaches them may call them.</p>
<ul class="calls">${[...openGateways.values()].map(
          ({ id, cell: c }) =>
            html`<li id="${id}" data-open-gateway="${c.gateway}"><strong>${c.gateway}</strong> of <a href="../${agentPage(c.owner)}">${c.owner}</a>: <code>${c.serviceAccount ?? ''}</code>, ${c.preset ? html`${c.preset} in ${c.namespaces.join(', ')}` : html`<span class="muted">no Kubernetes API access</span>`}</li>`,
        )}</ul>
${[...openLists.values()].map(
  (
    l,
  ) => html`<section id="${l.id}" class="open-list"><h4>List ${l.id.slice(5)}: ${l.cells.length} gateway${l.cells.length === 1 ? '' : 's'} that admit anyone, callable by ${l.agents} agent${l.agents === 1 ? '' : 's'}</h4>
<p>${l.cells.map((c, i) => {
    const gateway = openGateways.get(`${c.owner}/${c.gateway}`)!;
    return html`${i > 0 ? ', ' : ''}<a href="#${gateway.id}">${c.owner}/${c.gateway}</a>`;
  })}</p></section>`,
)}`;
  // One row per agent listing the gateways it can call: its size grows with the calls, not with agents ×
  // gateway names (a sparse grid of every gateway name was most of the page's weight at 1,000 agents).
  const matrix = html`<section data-filter-root aria-labelledby="matrix-heading"><h2 id="matrix-heading">Which agent can call which gateway</h2>
<p>A gateway's NetworkPolicy admits the agent that references it and no one else; a gateway whose agent disables NetworkPolicies admits anyone whose egress reaches it. ${
    crossing > 0
      ? html`<strong class="warn">${crossing} agent–gateway pair${crossing === 1 ? '' : 's'} cross agents.</strong>`
      : 'No agent can call another agent’s gateway.'
  }</p>
<form class="filters" role="search" onsubmit="return false"><label>Search agents <input type="search" data-filter="search" placeholder="agent, namespace or gateway"></label>
<label>Namespace <select data-filter="namespace"><option value="">all</option>${options(data.agents.map((a) => a.namespace))}</select></label></form>
<p class="count" data-count="agents" aria-live="polite">${data.agents.length} agents</p>
<div class="ty-scroll" role="region" tabindex="0" aria-label="Authority matrix"><table class="fleet-table stack" id="matrix">
<caption>Each agent and the gateways it can call, with what each gateway may do in the Kubernetes API</caption>
<thead><tr><th scope="col">Agent</th><th scope="col">Gateways it can call</th></tr></thead>
<tbody>${rows}</tbody></table></div>${lists}</section>`;
  // kubectl auth can-i, per ServiceAccount and namespace: the verbs on each resource.
  const accounts = data.authority.map((a) => {
    const grants = new Map<string, string[]>();
    for (const can of a.can) {
      const [verb = '', target = ''] = can.split(' ');
      const dot = target.indexOf('.');
      const resource = dot < 0 ? `${target} (core)` : `${target.slice(0, dot)} (${target.slice(dot + 1)})`;
      grants.set(resource, [...(grants.get(resource) ?? []), verb]);
    }
    return { agent: a.agent, sa: a.serviceAccount, namespace: a.namespace, preset: a.preset, grants };
  });
  const agentNamespace = new Map(data.agents.map((a) => [a.name, a.namespace]));
  // The grants of one preset are the same for every ServiceAccount that has it: each distinct set is shown
  // once, the rows link it (and the search reads it through the link).
  const ruleSets = new Map<string, { id: string; lines: string[]; presets: Set<string>; accounts: number }>();
  const rows2 = accounts.map((a) => {
    const byVerbs = new Map<string, string[]>();
    for (const [resource, verbs] of a.grants) {
      const key = verbs.join(', ');
      byVerbs.set(key, [...(byVerbs.get(key) ?? []), resource]);
    }
    const lines = [...byVerbs].map(([verbs, resources]) => `${verbs}: ${resources.sort().join(', ')}`);
    const key = lines.join('\n');
    const set = ruleSets.get(key) ?? {
      id: `rules-${ruleSets.size + 1}`,
      lines,
      presets: new Set(),
      accounts: 0,
    };
    set.presets.add(a.preset);
    set.accounts += 1;
    ruleSets.set(key, set);
    const ns = agentNamespace.get(a.agent) ?? '';
    return html`<tr data-item data-search="${`${ns}/${a.sa} agent ${a.agent} ${a.namespace} ${a.preset}`}" data-search-ref="${set.id}"><th scope="row"><div><code>${ns}/${a.sa}</code><br><span class="muted">agent <a href="../${agentPage(a.agent)}">${a.agent}</a></span></div></th><td><div><code>${a.namespace}</code></div></td><td><div>${a.preset}: <a href="#${set.id}">rule set ${set.id.slice(6)}</a> <span class="muted">(${lines.length} rule${lines.length === 1 ? '' : 's'})</span></div></td></tr>`;
  });
  const canI = html`<section data-filter-root aria-labelledby="can-i-heading"><h2 id="can-i-heading">What each ServiceAccount can do, where</h2>
<p>As <code>kubectl auth can-i --list --as=system:serviceaccount:&lt;namespace&gt;:&lt;name&gt; -n &lt;namespace&gt;</code> would answer it, from the Roles and RoleBindings toolyard renders. A ServiceAccount that is not listed can do nothing in the Kubernetes API; no agent pod mounts a token unless its spec sets <code>rbac.preset</code>.</p>
<form class="filters" role="search" onsubmit="return false"><label>Search grants <input type="search" data-filter="search" placeholder="ServiceAccount, namespace, verb, resource"></label></form>
<p class="count" data-count="grants" aria-live="polite">${accounts.length} grants</p>
<div class="ty-scroll" role="region" tabindex="0" aria-label="ServiceAccount grants"><table class="fleet-table stack" id="can-i">
<thead><tr><th scope="col">ServiceAccount</th><th scope="col">In namespace</th><th scope="col">Can (verbs on resources)</th></tr></thead>
<tbody>${rows2}</tbody></table></div>
<h3 id="rule-sets-heading">Rule sets</h3>
<p class="muted">Each distinct set of grants once; the rows above link theirs (ServiceAccounts of one preset share one).</p>
${[...ruleSets.values()].map(
  (r) =>
    html`<section id="${r.id}" class="rule-set" aria-label="Rule set ${r.id.slice(6)}"><h4>Rule set ${r.id.slice(6)} <span class="muted">(${[...r.presets].join(', ')}; ${r.accounts} ServiceAccount${r.accounts === 1 ? '' : 's'})</span></h4><ul>${r.lines.map((l) => html`<li>${l}</li>`)}</ul></section>`,
)}</section>`;
  const body = html`<h1>Authority</h1>${matrix}${canI}`;
  return layout({ title: 'Authority', site, depth: 1, section: 'authority', body });
}
