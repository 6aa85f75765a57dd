/**
 * A sandbox provider: how sessions become objects in the API server. `agent-sandbox` makes a SandboxClaim
 * against the template's SandboxWarmPool (warm when the pool has a ready sandbox) and suspends or resumes the
 * claimed Sandbox; `kubernetes` creates a PersistentVolumeClaim and a Pod per session itself (always cold).
 * Both keep the session's state in labels and annotations of their objects and read it from informer caches.
 */
import type { SandboxManagerConfig, SandboxTemplateConfig } from './config.ts';
import type { KubeObject } from './kube-client.ts';
import { SANDBOX_ANNOTATIONS, SANDBOX_LABELS, type SandboxRecord } from './records.ts';

export interface SandboxProvider {
  /** Lists and starts watching; resolves once the caches hold the current objects. */
  start(): Promise<void>;
  stop(): void;
  /** Every sandbox of this agent. */
  records(): SandboxRecord[];
  record(name: string): SandboxRecord | undefined;
  /** Creates the session's objects; the sandbox is `creating` until it runs. */
  create(name: string, sessionKey: string, template: SandboxTemplateConfig): Promise<void>;
  /** Resolves once the sandbox runs and has an address (or fails with why it does not). */
  waitRunning(name: string, timeoutMs: number): Promise<SandboxRecord>;
  /** Removes the pod, keeps the workspace volume. */
  suspend(name: string, at: Date): Promise<void>;
  /** Starts a pod again on the same workspace volume. */
  resume(name: string, at: Date): Promise<void>;
  /** Deletes the sandbox and its workspace volume. */
  destroy(name: string): Promise<void>;
  /** Records that the sandbox was used at `at` (for the idle timeout). */
  touch(name: string, at: Date): Promise<void>;
  /** Resolves once the sandbox's objects are gone. */
  waitGone(name: string, timeoutMs: number): Promise<void>;
}

/** The labels of every object the manager creates for a session. */
export function sessionLabels(
  config: SandboxManagerConfig,
  hash: string,
  template: string,
): Record<string, string> {
  return { ...config.labels, [SANDBOX_LABELS.session]: hash, [SANDBOX_LABELS.template]: template };
}

/** The label selector of the manager's own objects. */
export function managedSelector(config: SandboxManagerConfig): string {
  return Object.entries(config.labels)
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
}

/** The session fields every provider reads the same way from its object's metadata. */
export function sessionFields(object: KubeObject): {
  sessionKey: string;
  template: string;
  createdAt: string;
  lastUsedAt: string;
  stoppedAt?: string;
  stoppedByManager: boolean;
} {
  const annotations = object.metadata.annotations ?? {};
  const createdAt = object.metadata.creationTimestamp ?? new Date(0).toISOString();
  const stoppedAt = annotations[SANDBOX_ANNOTATIONS.stoppedAt];
  return {
    sessionKey: annotations[SANDBOX_ANNOTATIONS.sessionKey] ?? '',
    template: object.metadata.labels?.[SANDBOX_LABELS.template] ?? '',
    createdAt,
    lastUsedAt: annotations[SANDBOX_ANNOTATIONS.lastUsed] ?? createdAt,
    ...(stoppedAt ? { stoppedAt } : {}),
    stoppedByManager: annotations[SANDBOX_ANNOTATIONS.state] === 'stopped',
  };
}

/** The annotations of a new session object. */
export function newSessionAnnotations(sessionKey: string, at: Date): Record<string, string> {
  return {
    [SANDBOX_ANNOTATIONS.sessionKey]: sessionKey,
    [SANDBOX_ANNOTATIONS.state]: 'running',
    [SANDBOX_ANNOTATIONS.lastUsed]: at.toISOString(),
  };
}

/** A merge patch of the state annotations: stopped at `at`, or running and used at `at`. */
export function stateAnnotationsPatch(state: 'running' | 'stopped', at: Date): unknown {
  return {
    metadata: {
      annotations:
        state === 'stopped'
          ? { [SANDBOX_ANNOTATIONS.state]: 'stopped', [SANDBOX_ANNOTATIONS.stoppedAt]: at.toISOString() }
          : {
              [SANDBOX_ANNOTATIONS.state]: 'running',
              [SANDBOX_ANNOTATIONS.stoppedAt]: null,
              [SANDBOX_ANNOTATIONS.lastUsed]: at.toISOString(),
            },
    },
  };
}

export function lastUsedPatch(at: Date): unknown {
  return { metadata: { annotations: { [SANDBOX_ANNOTATIONS.lastUsed]: at.toISOString() } } };
}
