/**
 * An agent's render warnings after its acknowledgements: what is still a warning, what the spec accepted on
 * purpose (with the reason), and acknowledgements that no longer match anything (themselves warnings, so
 * they do not outlive the situation they accepted).
 */
import { wideEgressWarnings } from './api-server-egress.ts';
import { egressWarnings, type RenderWarning } from './effective-egress.ts';
import type { AgentPlan, PlannedAcknowledgement } from './plan.ts';

export interface AcknowledgedWarning extends RenderWarning {
  readonly reason: string;
  /** Where the acknowledgement is in the spec. */
  readonly acknowledgedAt: string;
}

export interface AgentWarnings {
  readonly warnings: readonly RenderWarning[];
  readonly acknowledged: readonly AcknowledgedWarning[];
}

function matches(ack: PlannedAcknowledgement, warning: RenderWarning): boolean {
  return ack.warning === warning.code && ack.subject === warning.subject;
}

export function agentWarnings(plan: AgentPlan): AgentWarnings {
  const raw = [...egressWarnings(plan), ...wideEgressWarnings(plan)];
  const warnings: RenderWarning[] = [];
  const acknowledged: AcknowledgedWarning[] = [];
  for (const warning of raw) {
    const ack = plan.acknowledgements.find((a) => matches(a, warning));
    if (ack) acknowledged.push({ ...warning, reason: ack.reason, acknowledgedAt: ack.path });
    else warnings.push(warning);
  }
  for (const ack of plan.acknowledgements) {
    if (raw.some((warning) => matches(ack, warning))) continue;
    const about = ack.subject === undefined ? '' : ` for "${ack.subject}"`;
    warnings.push({
      code: 'stale-acknowledgement',
      path: ack.path,
      message: `acknowledges a "${ack.warning}" warning${about} that does not occur: remove it`,
    });
  }
  return { warnings, acknowledged };
}
