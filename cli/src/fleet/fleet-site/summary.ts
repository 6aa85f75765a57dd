/**
 * The catalog's first screen: what the fleet can reach outside the cluster, who holds credentials, and who
 * holds authority in the Kubernetes API, each as a card with its count, the few lines that matter most and a
 * link to the page with every detail. Computed from the same fleet data as the pages it summarises.
 */
import { type Html, html } from '../../../../site/src/components/html.ts';
import type { FleetAgent } from '../fleet-model.ts';
import type { FleetData } from './fleet-data.ts';

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The largest groups first, then by name; at most `limit` lines and a count of the rest. */
function topLines(groups: ReadonlyMap<string, ReadonlySet<string>>, limit: number, unit: string): Html {
  const sorted = [...groups].sort((a, b) => b[1].size - a[1].size || (a[0] < b[0] ? -1 : 1));
  const shown = sorted.slice(0, limit);
  return html`<ul>${shown.map(([what, who]) => html`<li><code>${what}</code> <span class="muted">${plural(who.size, unit)}</span></li>`)}${
    sorted.length > limit ? html`<li class="muted">and ${sorted.length - limit} more</li>` : ''
  }</ul>`;
}

function add(map: Map<string, Set<string>>, key: string, value: string): void {
  const set = map.get(key) ?? new Set<string>();
  set.add(value);
  map.set(key, set);
}

/** Destinations outside the cluster's pods: CIDRs and "anywhere", with the pods that may reach each. */
function reachCard(data: FleetData): Html {
  const outside = new Map<string, Set<string>>();
  let anywhere = 0;
  for (const e of data.egress) {
    if (e.peer.startsWith('pods ')) continue;
    const label = e.peer === '*' ? 'anywhere' : `${data.peers[e.peer] ?? e.peer} ${e.ports.join(', ')}`;
    add(outside, label, `${e.namespace}/${e.pod}`);
    if (e.peer === '*') anywhere += 1;
  }
  const pods = new Set(data.egress.map((e) => `${e.namespace}/${e.pod}`)).size;
  return html`<section class="card" aria-labelledby="card-reach"><h2 id="card-reach">What the fleet can reach</h2>
<p class="big">${plural(outside.size, 'destination')} <span>outside the cluster's pods, from ${plural(pods, 'pod')}</span></p>
${anywhere > 0 ? html`<p class="bad">${plural(anywhere, 'pod')} may reach anything.</p>` : html`<p class="ok">No pod may reach everything.</p>`}
${topLines(outside, 4, 'pod')}
<p><a href="egress/">Every connection on the egress page</a></p></section>`;
}

/** Containers that can read a secret: model API keys, and the tokens for toolchains and gateways. */
function credentialCard(agents: readonly FleetAgent[]): Html {
  const bySecret = new Map<string, Set<string>>();
  let holders = 0;
  let apiKeys = 0;
  for (const a of agents) {
    for (const [container, credentials] of Object.entries(a.credentials)) {
      holders += 1;
      if (credentials.some((c) => /_API_KEY\b/.test(c))) apiKeys += 1;
      for (const c of credentials) {
        const secret = /^secret (\S+?)\//.exec(c)?.[1] ?? c;
        add(bySecret, `${a.namespace}/${secret}`, `${a.name} ${container}`);
      }
    }
  }
  const agentsHolding = agents.filter((a) => Object.keys(a.credentials).length > 0).length;
  return html`<section class="card" aria-labelledby="card-credentials"><h2 id="card-credentials">Who holds credentials</h2>
<p class="big">${plural(holders, 'container')} <span>in ${plural(agentsHolding, 'agent')} read ${plural(bySecret.size, 'secret')}</span></p>
<p>${plural(apiKeys, 'container')} hold a model API key; the others hold a token for a toolchain or a gateway.</p>
${topLines(bySecret, 4, 'container')}
<p class="muted">Each agent's page lists what every container can read.</p>
<p><a href="hosts/">Egress by host, and who holds the model keys</a></p></section>`;
}

/** ServiceAccounts with Kubernetes API grants, by preset, and gateways callable across agents. */
function authorityCard(data: FleetData): Html {
  const byPreset = new Map<string, Set<string>>();
  const namespaces = new Set<string>();
  for (const a of data.authority) {
    add(byPreset, a.preset, `${a.agent}/${a.serviceAccount}`);
    namespaces.add(a.namespace);
  }
  const accounts = new Set(data.authority.map((a) => `${a.agent}/${a.serviceAccount}`)).size;
  const writers = data.authority.filter((a) =>
    a.can.some((c) => /^(create|update|patch|delete|deletecollection|\*) /.test(c)),
  );
  const crossing = data.matrix.filter((c) => c.owner !== c.agent).length;
  return html`<section class="card" aria-labelledby="card-authority"><h2 id="card-authority">Who holds cluster authority</h2>
<p class="big">${plural(accounts, 'ServiceAccount')} <span>with Kubernetes API access in ${plural(namespaces.size, 'namespace')}</span></p>
<p>${writers.length > 0 ? html`<span class="warn">${plural(new Set(writers.map((w) => `${w.agent}/${w.serviceAccount}`)).size, 'ServiceAccount')} can write.</span>` : 'None can write.'} ${
    crossing > 0
      ? html`<span class="bad">${plural(crossing, 'agent–gateway pair')} cross agents.</span>`
      : 'No agent can call another agent’s gateway.'
  }</p>
${topLines(byPreset, 4, 'account')}
<p><a href="authority/">The authority matrix and every grant</a></p></section>`;
}

function fleetCard(agents: readonly FleetAgent[]): Html {
  const namespaces = new Set(agents.map((a) => a.namespace)).size;
  const warned = agents.filter((a) => a.warnings.length > 0).length;
  const backends = new Map<string, Set<string>>();
  for (const a of agents) for (const b of a.backends) add(backends, b.type, a.name);
  return html`<section class="card" aria-labelledby="card-fleet"><h2 id="card-fleet">The fleet</h2>
<p class="big">${plural(agents.length, 'agent')} <span>in ${plural(namespaces, 'namespace')}</span></p>
<p>${warned > 0 ? html`<a class="warn" href="#warnings">${plural(warned, 'agent')} with warnings</a>` : 'No agent has a warning.'}</p>
${topLines(backends, 4, 'agent')}
<p><a href="#agents-heading">Search every agent</a></p></section>`;
}

export function summaryCards(agents: readonly FleetAgent[], data: FleetData): Html {
  return html`<div class="cards">${reachCard(data)}${credentialCard(agents)}${authorityCard(data)}${fleetCard(agents)}</div>`;
}
