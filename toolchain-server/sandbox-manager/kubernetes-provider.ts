/**
 * The `kubernetes` provider, for clusters without agent-sandbox: a session is a PersistentVolumeClaim (its
 * workspace, and where the session's state is kept) and, while it runs, a Pod of the template's shape on that
 * claim, both created by the manager. There is no pool: every create and resume is a cold start. Stop deletes
 * the pod, resume creates it again, destroy deletes both.
 */
import type { SandboxManagerConfig, SandboxTemplateConfig } from './config.ts';
import { Informer, waitOn } from './informer.ts';
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

interface Pod extends KubeObject {
  readonly status?: {
    readonly phase?: string;
    readonly podIP?: string;
    readonly conditions?: readonly { readonly type: string; readonly status: string }[];
  };
}

type Claim = KubeObject;

export function podRecord(claim: Claim, pod: Pod | undefined): SandboxRecord {
  const fields = sessionFields(claim);
  const base = {
    name: claim.metadata.name,
    sessionKey: fields.sessionKey,
    template: fields.template,
    createdAt: fields.createdAt,
    lastUsedAt: fields.lastUsedAt,
    launch: 'cold' as const,
    ...(fields.stoppedAt ? { stoppedAt: fields.stoppedAt } : {}),
  };
  if (fields.stoppedByManager) return { ...base, state: 'stopped' };
  if (!pod || pod.metadata.deletionTimestamp) return { ...base, state: 'starting', reason: 'PodMissing' };
  const phase = pod.status?.phase;
  if (phase === 'Failed' || phase === 'Succeeded')
    return { ...base, state: 'failed', reason: `the sandbox pod ended (${phase})` };
  const ready = pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
  const ip = pod.status?.podIP;
  if (ready && ip) return { ...base, state: 'running', endpoint: { ip, instance: pod.metadata.uid ?? ip } };
  return { ...base, state: 'starting' };
}

export class KubernetesProvider implements SandboxProvider {
  private readonly pods: Informer<Pod>;
  private readonly claims: Informer<Claim>;
  private readonly podsPath: string;
  private readonly claimsPath: string;

  private readonly client: KubeClient;
  private readonly config: SandboxManagerConfig;

  constructor(client: KubeClient, config: SandboxManagerConfig, onError: (error: Error) => void) {
    this.client = client;
    this.config = config;
    this.podsPath = `/api/v1/namespaces/${config.namespace}/pods`;
    this.claimsPath = `/api/v1/namespaces/${config.namespace}/persistentvolumeclaims`;
    const selector = managedSelector(config);
    this.pods = new Informer(client, this.podsPath, selector, onError);
    this.claims = new Informer(client, this.claimsPath, selector, onError);
  }

  async start(): Promise<void> {
    await Promise.all([this.pods.start(), this.claims.start()]);
  }

  stop(): void {
    this.pods.stop();
    this.claims.stop();
  }

  private recordOf(claim: Claim): SandboxRecord {
    return podRecord(claim, this.pods.get(claim.metadata.name));
  }

  records(): SandboxRecord[] {
    return this.claims.list().map((claim) => this.recordOf(claim));
  }

  record(name: string): SandboxRecord | undefined {
    const claim = this.claims.get(name);
    return claim ? this.recordOf(claim) : undefined;
  }

  private template(name: string): SandboxTemplateConfig {
    const template = this.config.templates.find((t) => t.name === name);
    if (!template?.pod) throw new Error(`no pod template for sandbox template "${name}"`);
    return template;
  }

  private podFor(name: string, claim: Claim): Pod {
    const fields = sessionFields(claim);
    const template = this.template(fields.template);
    const pod = template.pod as NonNullable<SandboxTemplateConfig['pod']>;
    const spec = structuredClone(pod.spec) as { volumes?: Record<string, unknown>[] };
    spec.volumes = [
      ...(spec.volumes ?? []).filter((volume) => volume.name !== pod.workspaceClaimVolume),
      { name: pod.workspaceClaimVolume, persistentVolumeClaim: { claimName: name } },
    ];
    return {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        namespace: this.config.namespace,
        labels: {
          ...pod.metadata.labels,
          ...sessionLabels(this.config, sessionHash(fields.sessionKey), template.name),
        },
        ...(Object.keys(pod.metadata.annotations).length > 0
          ? { annotations: pod.metadata.annotations }
          : {}),
      },
      spec,
    };
  }

  async create(name: string, sessionKey: string, template: SandboxTemplateConfig): Promise<void> {
    const pod = this.template(template.name).pod as NonNullable<SandboxTemplateConfig['pod']>;
    const claim: Claim = {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: {
        name,
        namespace: this.config.namespace,
        labels: sessionLabels(this.config, sessionHash(sessionKey), template.name),
        annotations: newSessionAnnotations(sessionKey, new Date()),
      },
      spec: pod.workspaceClaim,
    };
    const created = await this.client.create(this.claimsPath, claim);
    this.claims.remember(created);
    await this.createPod(name, created);
  }

  private async createPod(name: string, claim: Claim): Promise<void> {
    try {
      this.pods.remember(await this.client.create(this.podsPath, this.podFor(name, claim)));
    } catch (error) {
      if (!(error instanceof KubeError && error.status === 409)) throw error;
    }
  }

  waitRunning(name: string, timeoutMs: number): Promise<SandboxRecord> {
    const check = (): SandboxRecord | undefined => {
      const claim = this.claims.get(name);
      if (!claim) {
        if (this.claims.deleted(name)) throw new Error(`sandbox ${name} was deleted while starting`);
        return undefined;
      }
      const record = this.recordOf(claim);
      if (record.state === 'failed') throw new Error(`sandbox ${name} cannot start: ${record.reason}`);
      return record.state === 'running' ? record : undefined;
    };
    // Either cache may move the record on: one wait on both.
    return waitOn([this.pods, this.claims], check, timeoutMs, `sandbox ${name} to run`);
  }

  async suspend(name: string, at: Date): Promise<void> {
    this.claims.remember(
      await this.client.mergePatch(`${this.claimsPath}/${name}`, stateAnnotationsPatch('stopped', at)),
    );
    await this.client.delete(`${this.podsPath}/${name}`);
  }

  async resume(name: string, at: Date): Promise<void> {
    const claim = await this.client.mergePatch<Claim>(
      `${this.claimsPath}/${name}`,
      stateAnnotationsPatch('running', at),
    );
    this.claims.remember(claim);
    // A pod of the last run may still be terminating: wait until it is gone before creating its successor.
    await this.pods.waitFor(
      name,
      (pod) => (pod ? undefined : true),
      this.config.readyTimeoutSeconds * 1000,
      `the old pod of ${name} to go`,
    );
    await this.createPod(name, claim);
  }

  async destroy(name: string): Promise<void> {
    await this.client.delete(`${this.podsPath}/${name}`);
    await this.client.delete(`${this.claimsPath}/${name}`);
  }

  async touch(name: string, at: Date): Promise<void> {
    try {
      this.claims.remember(await this.client.mergePatch(`${this.claimsPath}/${name}`, lastUsedPatch(at)));
    } catch (error) {
      if (!(error instanceof KubeError && error.status === 404)) throw error;
    }
  }

  async waitGone(name: string, timeoutMs: number): Promise<void> {
    await this.pods.waitFor(name, (pod) => (pod ? undefined : true), timeoutMs, `pod ${name} to go`);
    await this.claims.waitFor(name, (claim) => (claim ? undefined : true), timeoutMs, `claim ${name} to go`);
  }
}
