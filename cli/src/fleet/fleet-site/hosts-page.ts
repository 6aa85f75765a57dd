/**
 * The by-host page: every host the fleet's containers reach through their brokers, with the containers that
 * reach it and how (a listed host, an ecosystem's, a route's upstream, any public host), and who holds each
 * model key and gateway token. Filterable like the other pages (the rows are the same stacked table cards on a
 * phone); a row's search also reads its list of containers by reference, so that text is not written twice.
 */
import { brokerRouteForModel } from '../../../../constructs/src/names.ts';
import { type Html, html } from '../../../../site/src/components/html.ts';
import { agentPage } from './fleet-data.ts';
import {
  type AgentReach,
  type HostGroup,
  type HostHolder,
  hostGroups,
  hostRows,
  IN_CLUSTER,
} from './host-reach.ts';
import { labelledCell, layout, options } from './pages.ts';

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

const BROKER = 'broker / broker';

const hostLabel = (host: string) =>
  host === '*'
    ? 'any public host (open)'
    : host === IN_CLUSTER
      ? "its own agent's deployed gateways (in-cluster Services)"
      : host;

/**
 * How one container reaches the row's hosts, where the row alone does not say it (a backend's own model route,
 * `model-<backend>`, goes without saying).
 */
function how(h: HostHolder, row: HostGroup): string {
  const ownModelRoute = h.route?.name === brokerRouteForModel(h.container);
  const plain = row.ways.length === 1 && row.ecosystems.length <= 1 && (!h.route || ownModelRoute);
  if (plain) return '';
  return [
    ...(h.listed ? ['listed'] : []),
    ...h.ecosystems,
    ...(h.route ? [`route ${h.route.name}`] : []),
  ].join(', ');
}

/** The containers of one row, grouped by agent: `ns/agent: container (how), …`. */
function holdersList(row: HostGroup, id: string): Html {
  const byAgent = new Map<string, HostHolder[]>();
  for (const h of row.holders) {
    const key = `${h.namespace}/${h.agent}`;
    byAgent.set(key, [...(byAgent.get(key) ?? []), h]);
  }
  const open = row.hosts.includes('*');
  return html`<ul class="calls" id="${id}">${[...byAgent].map(([key, holders]) => {
    const agent = holders[0]!.agent;
    return html`<li><a href="../${agentPage(agent)}">${key}</a>: ${holders.map((h, i) => {
      const detail = [h.pod === 'agent' ? '' : h.pod, how(h, row), open ? h.ports.join(', ') : '']
        .filter((s) => s !== '')
        .join('; ');
      return html`${i > 0 ? ', ' : ''}${h.container}${detail ? html` <span class="muted">(${detail})</span>` : ''}`;
    })}</li>`;
  })}</ul>`;
}

function hostsSection(groups: readonly HostGroup[], reach: readonly AgentReach[]): Html {
  const ways = [...new Set(groups.flatMap((r) => r.ways))].sort();
  const body = groups.map((row, i) => {
    const id = `holders-${i + 1}`;
    const namespaces = [...new Set(row.holders.map((h) => h.namespace))].join(' ');
    const routes = [...new Set(row.holders.flatMap((h) => (h.route ? [h.route.name] : [])))];
    const search = [
      ...row.hosts.map(hostLabel),
      ...row.ways,
      ...row.ecosystems,
      ...routes,
      ...row.ports.map(String),
    ];
    return html`<tr data-item data-namespace="${namespaces}" data-way="${row.ways.map((w) => w.replace(' ', '-')).join(' ')}" data-search="${search.join(' ')}" data-search-ref="${id}"><th scope="row"><span class="cell-label" aria-hidden="true">${row.hosts.length === 1 ? 'Host' : 'Hosts'}</span><div>${row.hosts.map((h, j) => html`${j > 0 ? html`<br>` : ''}<code>${hostLabel(h)}</code>`)}</div></th>${labelledCell(
      'Reached as',
      row.ways.map((w) => (w === 'ecosystem' ? `ecosystem ${row.ecosystems.join(', ')}` : w)).join('; '),
    )}${labelledCell('Ports', row.ports.join(', '))}${labelledCell(
      'Containers',
      html`<span class="muted">${plural(row.holders.length, 'container')} in ${plural(row.agents, 'agent')}</span>${holdersList(row, id)}`,
    )}</tr>`;
  });
  const open = groups.find((r) => r.hosts.includes('*'));
  const hosts = groups.reduce((n, r) => n + r.hosts.filter((h) => h !== '*' && h !== IN_CLUSTER).length, 0);
  const own = groups.find((r) => r.hosts.includes(IN_CLUSTER));
  return html`<section data-filter-root aria-labelledby="hosts-heading"><h2 id="hosts-heading">Hosts and the containers that reach them</h2>
<p>${plural(hosts, 'host')} outside the cluster reached by name${own ? html`, and ${own.agents === 1 ? "1 agent's" : `${own.agents} agents'`} own deployed gateways,` : ''} through ${plural(
    reach.filter((a) => a.broker).length,
    'broker',
  )}. ${open ? html`<strong class="warn">${plural(open.holders.length, 'container')} may reach any public host</strong> (<code>network.egress: open</code>).` : 'No container may reach any public host through a broker.'}</p>
<form class="filters" role="search" onsubmit="return false">
<label>Search <input type="search" data-filter="search" data-url placeholder="host, ecosystem, agent, container, route…"></label>
<label>Namespace <select data-filter="namespace"><option value="">all</option>${options(reach.map((a) => a.namespace))}</select></label>
<label>Reached as <select data-filter="way"><option value="">any</option>${ways.map((w) => html`<option value="${w.replace(' ', '-')}">${w}</option>`)}</select></label>
</form>
<p class="count" data-count="rows" aria-live="polite">${plural(groups.length, 'row')}</p>
<div class="ty-scroll" role="region" tabindex="0" aria-label="Hosts"><table class="fleet-table stack" id="hosts">
<caption>Each host (hosts reached by the same containers in the same way share a row), how it is reached, on which ports, and by which containers (through their agent's broker, each with its own token)</caption>
<thead><tr><th scope="col">Host</th><th scope="col">Reached as</th><th scope="col">Ports</th><th scope="col">Containers</th></tr></thead>
<tbody>${body}</tbody></table></div></section>`;
}

function credentialsSection(reach: readonly AgentReach[]): Html {
  const withCredentials = reach.filter((a) => a.credentials.length > 0);
  const outside = withCredentials.flatMap((a) => a.credentials.filter((c) => c.holder !== BROKER));
  const rows = withCredentials.map((a, index) => {
    // One line per key or token, with every container that holds it: the broker, or (marked) others.
    const lines = new Map<string, { first: AgentReach['credentials'][number]; holders: string[] }>();
    for (const c of a.credentials) {
      const key = `${c.secret} ${c.purpose}`;
      const line = lines.get(key) ?? { first: c, holders: [] };
      line.holders.push(c.holder === BROKER ? 'the broker' : c.holder.replace(/^agent \/ /, ''));
      lines.set(key, line);
    }
    const outsideBroker = a.credentials.some((c) => c.holder !== BROKER);
    const id = `c-${index + 1}`;
    return html`<tr id="${id}" data-item data-namespace="${a.namespace}" data-held="${outsideBroker ? 'containers' : 'broker'}" data-search-ref="${id}"><th scope="row"><span class="cell-label" aria-hidden="true">Agent</span><div><a href="../${agentPage(a.agent)}">${a.namespace}/${a.agent}</a>${a.broker ? '' : html`<br><span class="warn">no broker</span>`}</div></th>${labelledCell(
      'Keys and tokens, held by',
      html`<ul class="calls">${[...lines.values()].map(
        ({ first: c, holders }) =>
          html`<li><code>${c.secret}</code> <span class="muted">${c.kind}, ${c.purpose}</span> — ${
            c.holder === BROKER ? holders.join(', ') : html`<span class="warn">${holders.join(', ')}</span>`
          }</li>`,
      )}</ul>`,
    )}</tr>`;
  });
  return html`<section data-filter-root aria-labelledby="credentials-heading"><h2 id="credentials-heading">Who holds the model keys and gateway tokens</h2>
<p>With a broker, model keys and external gateways' tokens are files in the broker pod alone, and each backend holds a broker token worth nothing elsewhere. ${
    outside.length > 0
      ? html`<strong class="warn">${plural(outside.length, 'key or token', 'keys or tokens')} sit in other containers</strong> (agents without a broker, or gateway tokens no broker route carries).`
      : 'No model key or gateway token sits outside a broker.'
  }</p>
<form class="filters" role="search" onsubmit="return false">
<label>Search agents and keys <input type="search" data-filter="search" placeholder="agent, secret, route, backend…"></label>
<label>Namespace <select data-filter="namespace"><option value="">all</option>${options(withCredentials.map((a) => a.namespace))}</select></label>
<label>Held <select data-filter="held"><option value="">anywhere</option><option value="broker">by brokers only</option><option value="containers">also by other containers</option></select></label>
</form>
<p class="count" data-count="agents" aria-live="polite">${plural(rows.length, 'agent')}</p>
<div class="ty-scroll" role="region" tabindex="0" aria-label="Credential holders"><table class="fleet-table stack" id="credential-holders">
<caption>Each agent's model keys and gateway tokens, and the containers that can read them</caption>
<thead><tr><th scope="col">Agent</th><th scope="col">Keys and tokens, held by</th></tr></thead>
<tbody>${rows}</tbody></table></div></section>`;
}

export function hostsPage(reach: readonly AgentReach[], site: string): string {
  const groups = hostGroups(hostRows(reach));
  const without = reach.filter((a) => !a.broker).length;
  const body = html`<h1>Egress by host</h1>
<p class="lead">What each container reaches by name through its agent's broker — the hosts it lists, the hosts of its ecosystems, its model and gateway routes, or any public host — and who holds the credentials the broker adds. The <a href="../egress/">egress graph</a> shows what each pod's NetworkPolicies allow. ${
    without > 0
      ? html`<span class="warn">${plural(without, 'agent')} run${without === 1 ? 's' : ''} without a broker</span>: ${without === 1 ? 'its' : 'their'} pods reach CIDRs, not names.`
      : ''
  }</p>
${hostsSection(groups, reach)}
${credentialsSection(reach)}`;
  return layout({ title: 'Egress by host', site, depth: 1, section: 'hosts', body });
}
