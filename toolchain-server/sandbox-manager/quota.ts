/**
 * The agent's sandbox quota: how many sandboxes may run at once, how many may be kept (running and stopped), and
 * how much CPU and memory the running ones may hold together (each counted at its template's limits, else
 * requests). A create or resume that would go beyond any of them is refused with the figures and the way out.
 */
import type { SandboxManagerConfig, SandboxTemplateConfig } from './config.ts';
import { SandboxError } from './errors.ts';
import type { SandboxRecord } from './records.ts';

/** States that hold a pod (or are about to). */
export function isActive(record: SandboxRecord): boolean {
  return record.state === 'creating' || record.state === 'starting' || record.state === 'running';
}

export interface QuotaUse {
  readonly running: number;
  readonly kept: number;
  readonly cpuMillis: number;
  readonly memoryBytes: number;
}

export function quotaUse(
  records: readonly SandboxRecord[],
  templates: readonly SandboxTemplateConfig[],
): QuotaUse {
  let running = 0;
  let cpuMillis = 0;
  let memoryBytes = 0;
  for (const record of records) {
    if (!isActive(record)) continue;
    running++;
    const template = templates.find((t) => t.name === record.template);
    cpuMillis += template?.cpuMillis ?? 0;
    memoryBytes += template?.memoryBytes ?? 0;
  }
  return { running, kept: records.length, cpuMillis, memoryBytes };
}

const MI = 1024 * 1024;

/** Throws TOOLYARD_SANDBOX_QUOTA when starting one more sandbox of `template` (`kind`) would exceed the quota. */
export function checkQuota(
  config: SandboxManagerConfig,
  records: readonly SandboxRecord[],
  template: SandboxTemplateConfig,
  kind: 'create' | 'resume',
): void {
  const use = quotaUse(records, config.templates);
  const quota = config.quota;
  const way = 'stop or destroy a sandbox of this agent (sandbox_list shows them)';
  if (kind === 'create' && use.kept + 1 > quota.maxSessions)
    throw new SandboxError(
      'TOOLYARD_SANDBOX_QUOTA',
      `the agent keeps ${use.kept} sandboxes, the most spec.sandboxes.quota.maxSessions allows (${quota.maxSessions})`,
      `destroy a sandbox (sandbox_destroy), or raise spec.sandboxes.quota.maxSessions`,
    );
  if (use.running + 1 > quota.maxSandboxes)
    throw new SandboxError(
      'TOOLYARD_SANDBOX_QUOTA',
      `${use.running} sandboxes of the agent are running, the most spec.sandboxes.quota.maxSandboxes allows (${quota.maxSandboxes})`,
      `${way}, or raise spec.sandboxes.quota.maxSandboxes`,
    );
  if (quota.cpuMillis > 0 && use.cpuMillis + template.cpuMillis > quota.cpuMillis)
    throw new SandboxError(
      'TOOLYARD_SANDBOX_QUOTA',
      `running sandboxes hold ${use.cpuMillis}m CPU; one more "${template.name}" (${template.cpuMillis}m) would exceed spec.sandboxes.quota.cpu (${quota.cpuMillis}m)`,
      `${way}, or raise spec.sandboxes.quota.cpu`,
    );
  if (quota.memoryBytes > 0 && use.memoryBytes + template.memoryBytes > quota.memoryBytes)
    throw new SandboxError(
      'TOOLYARD_SANDBOX_QUOTA',
      `running sandboxes hold ${Math.round(use.memoryBytes / MI)}Mi of memory; one more "${template.name}" (${Math.round(template.memoryBytes / MI)}Mi) would exceed spec.sandboxes.quota.memory (${Math.round(quota.memoryBytes / MI)}Mi)`,
      `${way}, or raise spec.sandboxes.quota.memory`,
    );
}
