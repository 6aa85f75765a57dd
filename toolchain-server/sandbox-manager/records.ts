/**
 * What the manager knows of a sandbox, whatever the provider: the session it belongs to, its template, where it
 * is in its lifecycle and, while it runs, where its server is. The state lives in the API server (labels and
 * annotations of the claim, or of the workspace claim with the `kubernetes` provider), so a restarted manager
 * picks up where the last one left off.
 */
import { createHash, createHmac } from 'node:crypto';

/**
 * creating → running ⇄ stopped → destroyed (docs/sandboxes.md has the diagram). `starting`: a resume waiting
 * for its pod; `failed`: the provider reports the sandbox cannot become ready.
 */
export type SandboxState = 'creating' | 'starting' | 'running' | 'stopped' | 'failed';

export interface SandboxEndpoint {
  /** The pod IP of the sandbox's server. */
  readonly ip: string;
  /**
   * What identifies this one server process (claim and pod IP, or the pod's UID): the per-sandbox token is
   * derived from it, so a new pod after a resume gets a new token.
   */
  readonly instance: string;
}

export interface SandboxRecord {
  /** The name of the manager's object for this session (the SandboxClaim, or the pod and its claim). */
  readonly name: string;
  readonly sessionKey: string;
  readonly template: string;
  readonly state: SandboxState;
  readonly createdAt: string;
  readonly lastUsedAt: string;
  readonly stoppedAt?: string;
  /** Set while the sandbox runs and its pod has an address. */
  readonly endpoint?: SandboxEndpoint;
  /** `warm`: taken from the warm pool; `cold`: started for this session. Unknown until it runs. */
  readonly launch?: 'warm' | 'cold';
  /** Why the provider says it is not ready, when it says so. */
  readonly reason?: string;
}

/** Labels and annotations of the manager's objects. */
export const SANDBOX_LABELS = {
  session: 'toolyard.dev/sandbox-session',
  template: 'toolyard.dev/sandbox-template',
} as const;

export const SANDBOX_ANNOTATIONS = {
  sessionKey: 'toolyard.dev/sandbox-session-key',
  state: 'toolyard.dev/sandbox-state',
  lastUsed: 'toolyard.dev/sandbox-last-used',
  stoppedAt: 'toolyard.dev/sandbox-stopped-at',
} as const;

/** Session keys: what a backend names its session by (a conversation id, a user id): printable, bounded. */
export const SESSION_KEY_PATTERN = /^[\x21-\x7e]{1,200}$/;

/** The label value (and name suffix) of a session: 20 hex digits of the key's SHA-256. */
export function sessionHash(sessionKey: string): string {
  return createHash('sha256').update(sessionKey).digest('hex').slice(0, 20);
}

/** The name of a session's objects: `<agent>-sbx-<hash>` (34 characters for a 10-character agent name). */
export function sessionObjectName(agent: string, sessionKey: string): string {
  return `${agent}-sbx-${sessionHash(sessionKey)}`;
}

/** The per-sandbox token: HMAC-SHA-256 of the server instance under the bootstrap token, hex. */
export function sandboxToken(bootstrapToken: string, instance: string): string {
  return createHmac('sha256', bootstrapToken).update(instance).digest('hex');
}
