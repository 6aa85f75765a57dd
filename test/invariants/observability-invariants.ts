/**
 * What `spec.observability` adds to an agent's network and broker, written from docs/observability.md and
 * independently of the renderer: every toolchain becomes a broker caller of the `otlp` route (toolchain pods
 * without egress get DNS and the broker), the broker reaches an in-cluster collector's pods on the URL's port,
 * and `metrics.scrapeFrom` reaches each pod's metrics ports — nothing else.
 */
import type { ToolyardAgent } from '../../schema/src/types.generated.ts';

/** Observability in effect: asked for, with an endpoint, and the broker on (the spec check refuses otherwise). */
export function observabilityOn(agent: ToolyardAgent): boolean {
  const o = agent.spec.observability;
  return o?.enabled === true && o.endpoint?.url !== undefined && (agent.spec.broker?.enabled ?? true);
}

export interface CollectorPeer {
  readonly namespace: string;
  readonly labels: Readonly<Record<string, string | undefined>>;
  readonly port: number;
}

/** The collector the broker's NetworkPolicy must reach: a `<service>.<namespace>.svc` URL with pod labels. */
export function collectorPeer(agent: ToolyardAgent): CollectorPeer | undefined {
  if (!observabilityOn(agent)) return undefined;
  const endpoint = agent.spec.observability?.endpoint;
  if (!endpoint?.collectorPodLabels) return undefined;
  const match = /^(https?):\/\/[a-z0-9-]+\.([a-z0-9-]+)\.svc(?:\.cluster\.local)?(?::([0-9]+))?(?:\/|$)/.exec(
    endpoint.url,
  );
  if (!match) return undefined;
  const port = match[3] ? Number(match[3]) : match[1] === 'https' ? 443 : 80;
  return { namespace: match[2] as string, labels: endpoint.collectorPodLabels, port };
}

/** The scrapers' peers as a NetworkPolicy writes them (namespace selector by name, the agent's by default). */
export function scrapePeers(agent: ToolyardAgent): Record<string, unknown>[] {
  if (!observabilityOn(agent)) return [];
  const namespace = agent.metadata.namespace ?? 'default';
  return (agent.spec.observability?.metrics?.scrapeFrom ?? []).map((peer) => ({
    podSelector: { matchLabels: { ...peer.podLabels } },
    namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': peer.namespace ?? namespace } },
  }));
}

/** JSON with object keys sorted, to compare rendered objects whatever their key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );
}
