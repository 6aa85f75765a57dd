/**
 * A toolchain's egress in the spec's own words (`network.egress`: none, open, or hosts and ecosystems by name
 * through the broker, possibly only while fetching), for the chart's NOTES and values descriptions: what
 * `explain` reports, never the renderer's internal posture names.
 */
import type { AgentPlan, PlannedToolchain } from './plan.ts';

export function toolchainEgressSummary(plan: AgentPlan, toolchain: PlannedToolchain): string {
  const egress = toolchain.namedEgress;
  switch (egress.kind) {
    case 'none':
      return 'no egress';
    case 'open':
      return 'open egress (any destination)';
    case 'named': {
      const what = [
        egress.ecosystems.length > 0 ? `ecosystems ${egress.ecosystems.join(', ')}` : '',
        egress.declaredHosts.length > 0 ? `hosts ${egress.declaredHosts.join(', ')}` : '',
      ]
        .filter((part) => part !== '')
        .join('; ');
      if (!plan.broker.enabled)
        return `egress to networkPolicy.registryEgress (the broker is off; by name: ${what || 'nothing'})`;
      const phase = toolchain.egressPhase === 'fetch' ? ', only while fetching' : '';
      return `egress by name through the broker (${what || 'nothing'})${phase}`;
    }
  }
}
