/**
 * The explain report as HTML tables: per pod its containers and effective egress, per ServiceAccount what it
 * can do with its grants grouped by rule set. Each table sits in its own scroll region, so a narrow screen
 * scrolls the table, never the page.
 */
import { describeDestination, describePorts } from '../../../constructs/src/effective-egress.ts';
import type { PodReport, ServiceAccountReport } from '../../../constructs/src/explain.ts';
import type { PolicyRule } from '../../../constructs/src/rbac-presets.ts';
import { type Html, html } from './html.ts';

function table(
  caption: string,
  headers: readonly string[],
  rows: readonly (readonly (Html | string)[])[],
): Html {
  return html`<div class="ty-scroll" role="region" tabindex="0" aria-label="${caption}"><table class="ty-table">
<caption>${caption}</caption>
<thead><tr>${headers.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
<tbody>${rows.map((cells) => html`<tr>${cells.map((c, i) => html`<td data-label="${headers[i] ?? ''}">${c}</td>`)}</tr>`)}</tbody>
</table></div>`;
}

const code = (text: string) => html`<code>${text}</code>`;

export function containersTable(pod: PodReport): Html {
  return table(
    `Containers of ${pod.pod}`,
    ['Container', 'Role', 'Image', 'Listens', 'Credentials'],
    pod.containers.map((c) => [
      code(c.name),
      c.role,
      code(c.image),
      c.listens,
      c.credentials.length > 0 ? c.credentials.join('; ') : 'none',
    ]),
  );
}

export function egressTable(pod: PodReport): Html {
  if (!pod.egress.restricted) {
    return html`<p class="ty-note">Effective egress of ${pod.pod}: unrestricted (NetworkPolicies disabled).</p>`;
  }
  return table(
    `Effective egress of ${pod.pod} (pod-wide: a NetworkPolicy selects pods, not containers)`,
    ['Destination', 'Ports', 'Purpose', 'Needed by'],
    pod.egress.grants.map((g) => [
      describeDestination(g.to),
      describePorts(g.ports),
      g.purpose,
      g.neededBy.join(', '),
    ]),
  );
}

/** One pod: its heading, ServiceAccount, containers and egress. */
export function podTables(pod: PodReport, heading: string): Html {
  return html`<section class="ty-pod"><h3>${heading}</h3>
<p>ServiceAccount <code>${pod.serviceAccount}</code></p>
${containersTable(pod)}
${egressTable(pod)}</section>`;
}

/** Grants of one ServiceAccount that carry the same rules: one table, every namespace it applies in. */
export interface RuleSet {
  readonly preset: string;
  readonly rules: readonly PolicyRule[];
  readonly namespaces: readonly string[];
}

export function ruleSets(account: ServiceAccountReport): RuleSet[] {
  const groups = new Map<string, { preset: string; rules: readonly PolicyRule[]; namespaces: string[] }>();
  for (const grant of account.grants) {
    const key = `${grant.preset}\u0000${JSON.stringify(grant.rules)}`;
    const group = groups.get(key) ?? { preset: grant.preset, rules: grant.rules, namespaces: [] };
    group.namespaces.push(grant.namespace);
    groups.set(key, group);
  }
  return [...groups.values()];
}

const apiGroup = (group: string) => (group === '' ? 'core' : group);

export function serviceAccountAccess(account: ServiceAccountReport): Html {
  const token =
    account.tokenMountedInto.length > 0
      ? `Token mounted into: ${account.tokenMountedInto.join(', ')}.`
      : 'No token is mounted into any container.';
  const sets = ruleSets(account);
  return html`<section class="ty-sa"><h3>ServiceAccount ${account.serviceAccount}</h3>
<p>${token}</p>
${
  sets.length === 0
    ? html`<p>Can do: nothing in the Kubernetes API.</p>`
    : sets.map((set) =>
        table(
          `${account.serviceAccount}: preset ${set.preset} in namespace${set.namespaces.length === 1 ? '' : 's'} ${set.namespaces.join(', ')}`,
          ['Verbs', 'Resources', 'API groups'],
          set.rules.map((rule) => [
            rule.verbs.join(', '),
            rule.resources.join(', '),
            rule.apiGroups.map(apiGroup).join(', '),
          ]),
        ),
      )
}</section>`;
}
