/**
 * The `agent-sandbox` provider (kubernetes-sigs/agent-sandbox, API `v1beta1`): a session is a SandboxClaim
 * against its template's SandboxWarmPool. The controller hands the claim a ready Sandbox from the pool when it has
 * one (warm) or starts one from the SandboxTemplate (cold); the claim's status mirrors the Sandbox's Ready
 * condition and pod IPs, which is all the manager reads. Stop and resume set the claimed Sandbox's
 * `operatingMode` (Suspended deletes its pod and keeps its volume); destroy deletes the claim, and with it the
 * Sandbox, its pod and its workspace claim (owner references). The claim carries no `env` and no
 * `volumeClaimTemplates` — either would force a cold start — so every claim can be served from the pool.
 */
import {
  AGENT_SANDBOX_EXTENSIONS_GROUP,
  AGENT_SANDBOX_GROUP,
  AGENT_SANDBOX_LAUNCH_TYPE_LABEL,
  AGENT_SANDBOX_VERSION,
} from './api-versions.ts';
import type { SandboxManagerConfig, SandboxTemplateConfig } from './config.ts';
import { Informer } from './informer.ts';
import { type KubeClient, KubeError, type KubeObject } from './kube-client.ts';
import {
  lastUsedPatch,
  managedSelector,
  newSessionAnnotations,
  type SandboxProvider,
  sessionFields,
  sessionLabels,
  stateAnnotationsPatch,
} from './provider.ts';
import { type SandboxRecord, sessionHash } from './records.ts';

export { AGENT_SANDBOX_EXTENSIONS_GROUP, AGENT_SANDBOX_GROUP, AGENT_SANDBOX_VERSION };

interface Condition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
}

export interface SandboxClaim extends KubeObject {
  readonly spec: { readonly warmPoolRef: { readonly name: string } };
  readonly status?: {
    readonly conditions?: readonly Condition[];
    readonly sandbox?: { readonly name?: string; readonly podIPs?: readonly string[] };
  };
}

/** Ready=False reasons after which the claim will not become ready by waiting. */
const FAILED_REASONS = new Set([
  'TemplateNotFound',
  'WarmPoolNotFound',
  'InvalidMetadata',
  'EnvVarsInjectionRejected',
  'VolumeClaimTemplatesError',
  'ClaimExpired',
  'SandboxExpired',
]);

export function claimRecord(claim: SandboxClaim): SandboxRecord {
  const fields = sessionFields(claim);
  const ready = claim.status?.conditions?.find((c) => c.type === 'Ready');
  const ip = claim.status?.sandbox?.podIPs?.[0];
  const base = {
    name: claim.metadata.name,
    sessionKey: fields.sessionKey,
    template: fields.template,
    createdAt: fields.createdAt,
    lastUsedAt: fields.lastUsedAt,
    ...(fields.stoppedAt ? { stoppedAt: fields.stoppedAt } : {}),
  };
  if (fields.stoppedByManager) return { ...base, state: 'stopped' };
  if (ready?.status === 'True' && ip)
    return { ...base, state: 'running', endpoint: { ip, instance: `${claim.metadata.uid ?? ''}/${ip}` } };
  if (ready?.reason && FAILED_REASONS.has(ready.reason))
    return { ...base, state: 'failed', reason: `${ready.reason}: ${ready.message ?? ''}`.trim() };
  return {
    ...base,
    state: claim.status?.sandbox?.name ? 'starting' : 'creating',
    ...(ready?.reason ? { reason: ready.reason } : {}),
  };
}

export class AgentSandboxProvider implements SandboxProvider {
  private readonly claims: Informer<SandboxClaim>;
  private readonly claimsPath: string;
  private readonly sandboxesPath: string;

  private readonly client: KubeClient;
  private readonly config: SandboxManagerConfig;

  constructor(client: KubeClient, config: SandboxManagerConfig, onError: (error: Error) => void) {
    this.client = client;
    this.config = config;
    const ns = config.namespace;
    this.claimsPath = `/apis/${AGENT_SANDBOX_EXTENSIONS_GROUP}/${AGENT_SANDBOX_VERSION}/namespaces/${ns}/sandboxclaims`;
    this.sandboxesPath = `/apis/${AGENT_SANDBOX_GROUP}/${AGENT_SANDBOX_VERSION}/namespaces/${ns}/sandboxes`;
    this.claims = new Informer(client, this.claimsPath, managedSelector(config), onError);
  }

  start(): Promise<void> {
    return this.claims.start();
  }

  stop(): void {
    this.claims.stop();
  }

  records(): SandboxRecord[] {
    return this.claims.list().map(claimRecord);
  }

  record(name: string): SandboxRecord | undefined {
    const claim = this.claims.get(name);
    return claim ? claimRecord(claim) : undefined;
  }

  async create(name: string, sessionKey: string, template: SandboxTemplateConfig): Promise<void> {
    const claim: SandboxClaim = {
      apiVersion: `${AGENT_SANDBOX_EXTENSIONS_GROUP}/${AGENT_SANDBOX_VERSION}`,
      kind: 'SandboxClaim',
      metadata: {
        name,
        namespace: this.config.namespace,
        labels: sessionLabels(this.config, sessionHash(sessionKey), template.name),
        annotations: newSessionAnnotations(sessionKey, new Date()),
      },
      spec: { warmPoolRef: { name: template.warmPool ?? '' } },
    };
    this.claims.remember(await this.client.create(this.claimsPath, claim));
  }

  waitRunning(name: string, timeoutMs: number): Promise<SandboxRecord> {
    return this.claims.waitFor(
      name,
      (claim) => {
        if (!claim) {
          if (this.claims.deleted(name)) throw new Error(`sandbox ${name} was deleted while starting`);
          return undefined;
        }
        const record = claimRecord(claim);
        if (record.state === 'failed') throw new Error(`sandbox ${name} cannot start: ${record.reason}`);
        return record.state === 'running' ? record : undefined;
      },
      timeoutMs,
      `sandbox ${name} to run`,
    );
  }

  /** How the claim was served: the `agents.x-k8s.io/launch-type` label of its Sandbox. */
  async launchType(name: string): Promise<'warm' | 'cold' | undefined> {
    const sandbox = this.claims.get(name)?.status?.sandbox?.name;
    if (!sandbox) return undefined;
    try {
      const object = await this.client.get(`${this.sandboxesPath}/${sandbox}`);
      const type = object.metadata.labels?.[AGENT_SANDBOX_LAUNCH_TYPE_LABEL];
      return type === 'warm' || type === 'cold' ? type : undefined;
    } catch {
      return undefined;
    }
  }

  private sandboxName(name: string): string {
    const sandbox = this.claims.get(name)?.status?.sandbox?.name;
    if (!sandbox) throw new Error(`sandbox ${name} has no Sandbox yet`);
    return sandbox;
  }

  async suspend(name: string, at: Date): Promise<void> {
    const sandbox = this.sandboxName(name);
    this.claims.remember(
      await this.client.mergePatch(`${this.claimsPath}/${name}`, stateAnnotationsPatch('stopped', at)),
    );
    await this.client.mergePatch(`${this.sandboxesPath}/${sandbox}`, {
      spec: { operatingMode: 'Suspended' },
    });
  }

  async resume(name: string, at: Date): Promise<void> {
    const sandbox = this.sandboxName(name);
    this.claims.remember(
      await this.client.mergePatch(`${this.claimsPath}/${name}`, stateAnnotationsPatch('running', at)),
    );
    await this.client.mergePatch(`${this.sandboxesPath}/${sandbox}`, { spec: { operatingMode: 'Running' } });
  }

  async destroy(name: string): Promise<void> {
    await this.client.delete(`${this.claimsPath}/${name}`, 'Background');
  }

  async touch(name: string, at: Date): Promise<void> {
    try {
      this.claims.remember(await this.client.mergePatch(`${this.claimsPath}/${name}`, lastUsedPatch(at)));
    } catch (error) {
      if (!(error instanceof KubeError && error.status === 404)) throw error;
    }
  }

  waitGone(name: string, timeoutMs: number): Promise<void> {
    return this.claims
      .waitFor(name, (claim) => (claim ? undefined : true), timeoutMs, `${name} to go`)
      .then(() => undefined);
  }
}
