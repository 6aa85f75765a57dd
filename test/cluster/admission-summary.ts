/**
 * What the API server's admission decided during a run, read from its audit log (Metadata level for every write):
 * how many pod admissions Pod Security evaluated under `restricted`, how many of those found a violation (the
 * tests' deliberate controls), and how many writes were refused at all.
 */
import { existsSync, readFileSync } from 'node:fs';

export interface AdmissionSummary {
  readonly writes: number;
  readonly refused: number;
  readonly restrictedEvaluations: number;
  readonly violations: number;
}

interface AuditEvent {
  readonly verb?: string;
  readonly stage?: string;
  readonly responseStatus?: { code?: number };
  readonly annotations?: Record<string, string>;
}

export function admissionSummary(auditLog: string): AdmissionSummary {
  let writes = 0;
  let refused = 0;
  let restrictedEvaluations = 0;
  let violations = 0;
  if (!existsSync(auditLog)) return { writes, refused, restrictedEvaluations, violations };
  for (const line of readFileSync(auditLog, 'utf8').split('\n')) {
    if (!line) continue;
    const event = JSON.parse(line) as AuditEvent;
    if (event.stage !== 'ResponseComplete') continue;
    writes++;
    if ((event.responseStatus?.code ?? 200) >= 400) refused++;
    const annotations = event.annotations ?? {};
    if (annotations['pod-security.kubernetes.io/enforce-policy']?.startsWith('restricted'))
      restrictedEvaluations++;
    if (annotations['pod-security.kubernetes.io/audit-violations']) violations++;
  }
  return { writes, refused, restrictedEvaluations, violations };
}
