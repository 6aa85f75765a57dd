/**
 * A small Kubernetes API client for the sandbox manager: JSON requests over HTTPS with the pod's own
 * ServiceAccount token (re-read from its file, so a rotated projected token is picked up) and the cluster CA,
 * plus list-then-watch streams. Nothing beyond what the manager's Role allows is ever asked for; a refusal comes
 * back as a `KubeError` with the API server's status and message.
 */
import { readFileSync, statSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { Agent, request } from 'node:https';

export interface KubeConnection {
  /** `https://host:port` */
  readonly server: string;
  readonly tokenFile: string;
  readonly caFile: string;
}

/** A refusal or failure of the API server: its HTTP status, reason and message. */
export class KubeError extends Error {
  readonly status: number;
  readonly reason: string;
  constructor(status: number, reason: string, message: string) {
    super(message);
    this.name = 'KubeError';
    this.status = status;
    this.reason = reason;
  }
}

export interface KubeObjectMeta {
  readonly name: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
  readonly creationTimestamp?: string;
  readonly deletionTimestamp?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
}

export interface KubeObject {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: KubeObjectMeta;
  readonly spec?: unknown;
  readonly status?: unknown;
}

export interface WatchEvent<T extends KubeObject> {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  readonly object: T;
}

/** The API server's address from a pod's environment (what client-go's in-cluster config reads). */
export function inClusterServer(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) return undefined;
  return `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

export class KubeClient {
  private readonly url: URL;
  private readonly agent: Agent;
  private readonly tokenFile: string;
  private token = '';
  private tokenMtime = -1;

  constructor(connection: KubeConnection) {
    this.url = new URL(connection.server);
    this.tokenFile = connection.tokenFile;
    this.agent = new Agent({ keepAlive: true, maxSockets: 32, ca: readFileSync(connection.caFile) });
    this.readToken();
  }

  private readToken(): string {
    const mtime = statSync(this.tokenFile).mtimeMs;
    if (mtime !== this.tokenMtime) {
      const token = readFileSync(this.tokenFile, 'utf8').trim();
      if (!token) throw new Error(`kubernetes.tokenFile (${this.tokenFile}) is empty`);
      this.token = token;
      this.tokenMtime = mtime;
    }
    return this.token;
  }

  private open(
    method: string,
    path: string,
    body: unknown,
    contentType: string,
    signal?: AbortSignal,
  ): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      const req = request(
        {
          protocol: this.url.protocol,
          hostname: this.url.hostname.replace(/^\[|\]$/g, ''),
          port: this.url.port || 443,
          path,
          method,
          agent: this.agent,
          signal,
          headers: {
            authorization: `Bearer ${this.readToken()}`,
            accept: 'application/json',
            'user-agent': 'toolyard-sandbox-manager',
            ...(payload ? { 'content-type': contentType, 'content-length': String(payload.length) } : {}),
          },
        },
        resolve,
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  /** One request; the decoded JSON answer, or a KubeError for any status above 299. */
  async request<T>(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    path: string,
    body?: unknown,
    contentType = 'application/json',
  ): Promise<T> {
    const res = await this.open(method, path, body, contentType);
    const chunks: Buffer[] = [];
    for await (const chunk of res) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : {};
    } catch {
      json = { message: text.slice(0, 300) };
    }
    const status = res.statusCode ?? 0;
    if (status > 299) {
      const failure = json as { reason?: string; message?: string };
      throw new KubeError(status, failure.reason ?? 'Unknown', failure.message ?? `HTTP ${status}`);
    }
    return json as T;
  }

  get<T extends KubeObject>(path: string): Promise<T> {
    return this.request<T>('GET', path);
  }

  create<T extends KubeObject>(path: string, object: T): Promise<T> {
    return this.request<T>('POST', path, object);
  }

  /** A JSON merge patch (RFC 7386). */
  mergePatch<T extends KubeObject>(path: string, patch: unknown): Promise<T> {
    return this.request<T>('PATCH', path, patch, 'application/merge-patch+json');
  }

  /** Deletes, with dependents removed in the background; a missing object is not an error. */
  async delete(path: string, propagation: 'Background' | 'Foreground' = 'Background'): Promise<void> {
    try {
      await this.request('DELETE', path, {
        apiVersion: 'v1',
        kind: 'DeleteOptions',
        propagationPolicy: propagation,
      });
    } catch (error) {
      if (error instanceof KubeError && error.status === 404) return;
      throw error;
    }
  }

  /** Every object of a collection matching `labelSelector`, and the list's resourceVersion. */
  async list<T extends KubeObject>(
    collection: string,
    labelSelector: string,
  ): Promise<{ items: T[]; resourceVersion: string }> {
    const answer = await this.request<{ items?: T[]; metadata?: { resourceVersion?: string } }>(
      'GET',
      `${collection}?labelSelector=${encodeURIComponent(labelSelector)}`,
    );
    return { items: answer.items ?? [], resourceVersion: answer.metadata?.resourceVersion ?? '' };
  }

  /**
   * Watches a collection from `resourceVersion`, calling `onEvent` per event until the stream ends (the API
   * server closes watches after a while) or `signal` aborts. Resolves when the stream ends; the caller re-lists
   * or re-watches. A `410 Gone` comes back as a KubeError.
   */
  async watch<T extends KubeObject>(
    collection: string,
    labelSelector: string,
    resourceVersion: string,
    onEvent: (event: WatchEvent<T>) => void,
    signal: AbortSignal,
  ): Promise<void> {
    const query = new URLSearchParams({
      watch: 'true',
      labelSelector,
      resourceVersion,
      allowWatchBookmarks: 'true',
      timeoutSeconds: '300',
    });
    const res = await this.open('GET', `${collection}?${query}`, undefined, '', signal);
    if ((res.statusCode ?? 0) > 299) {
      res.resume();
      throw new KubeError(res.statusCode ?? 0, 'WatchFailed', `watch ${collection}: HTTP ${res.statusCode}`);
    }
    let buffered = '';
    try {
      for await (const chunk of res) {
        buffered += (chunk as Buffer).toString('utf8');
        let newline = buffered.indexOf('\n');
        while (newline >= 0) {
          const line = buffered.slice(0, newline).trim();
          buffered = buffered.slice(newline + 1);
          newline = buffered.indexOf('\n');
          if (!line) continue;
          const event = JSON.parse(line) as WatchEvent<T>;
          if (event.type === 'ERROR') {
            const status = event.object as unknown as { code?: number; reason?: string; message?: string };
            throw new KubeError(
              status.code ?? 500,
              status.reason ?? 'WatchError',
              status.message ?? 'watch error',
            );
          }
          onEvent(event);
        }
      }
    } catch (error) {
      if (signal.aborted) return;
      throw error;
    }
  }

  close(): void {
    this.agent.destroy();
  }
}
