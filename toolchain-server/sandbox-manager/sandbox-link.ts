/**
 * The manager's side of a sandbox's server: binds it to its session once it runs (`POST /sandbox/bind` with the
 * bootstrap token and a per-sandbox token derived from the server instance), then calls its tools over MCP with
 * that token. One client per server instance; a new pod after a resume is a new instance, bound again.
 *
 * A server that answers a bind with "already bound" is accepted only if the manager's own token for that
 * instance works (the manager restarted after binding it); otherwise someone else bound it, and the sandbox is
 * not to be trusted.
 */
import { request } from 'node:http';
import type { TraceContext } from '../kit/trace-context.ts';
import { Tracer } from '../kit/tracing.ts';
import { McpClientError, McpHttpClient } from '../src/code-mode/mcp-client.ts';
import type { SandboxTemplateConfig } from './config.ts';
import { SandboxError } from './errors.ts';
import { type SandboxEndpoint, type SandboxRecord, sandboxToken } from './records.ts';

interface Bound {
  readonly client: McpHttpClient;
  readonly ready: Promise<void>;
}

export interface BindTarget {
  readonly record: SandboxRecord;
  readonly endpoint: SandboxEndpoint;
  readonly template: SandboxTemplateConfig;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Connection errors that mean "not listening yet" while a pod starts. */
function retriable(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return (
    code === 'ECONNREFUSED' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'ECONNRESET'
  );
}

function postBind(
  target: BindTarget,
  bootstrapToken: string,
  body: unknown,
): Promise<{ status: number; body: string }> {
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.endpoint.ip,
        port: target.template.serverPort,
        path: '/sandbox/bind',
        method: 'POST',
        timeout: 5000,
        headers: {
          host: target.template.serverHost,
          authorization: `Bearer ${bootstrapToken}`,
          'content-type': 'application/json',
          'content-length': String(payload.length),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(Object.assign(new Error('bind timed out'), { code: 'ECONNRESET' })));
    req.on('error', reject);
    req.end(payload);
  });
}

export class SandboxLinks {
  private readonly bound = new Map<string, Bound>();
  private readonly bootstrapToken: string;
  private readonly tracer: Tracer;

  constructor(bootstrapToken: string, tracer: Tracer = Tracer.off) {
    this.bootstrapToken = bootstrapToken;
    this.tracer = tracer;
  }

  /**
   * The bound client of a running sandbox: binds it first if this instance is new, in a client span
   * (`sandbox bind`, `local-execution`) under `parent`, the call that needed it.
   */
  client(target: BindTarget, deadline: number, parent?: TraceContext): Promise<McpHttpClient> {
    const key = target.endpoint.instance;
    let entry = this.bound.get(key);
    if (!entry) {
      const token = sandboxToken(this.bootstrapToken, key);
      const client = new McpHttpClient(
        `http://${target.endpoint.ip}:${target.template.serverPort}/mcp`,
        token,
        {
          host: target.template.serverHost,
          clientName: 'toolyard-sandbox-manager',
        },
      );
      const ready = this.traced(target, parent, () => this.bind(target, token, client, deadline));
      entry = { client, ready };
      this.bound.set(key, entry);
      ready.catch(() => {
        this.bound.delete(key);
        client.close();
      });
    }
    const { client, ready } = entry;
    return ready.then(() => client);
  }

  /** Forgets the clients of instances that no longer run. */
  retain(instances: ReadonlySet<string>): void {
    for (const [key, entry] of this.bound)
      if (!instances.has(key)) {
        entry.client.close();
        this.bound.delete(key);
      }
  }

  private async traced(
    target: BindTarget,
    parent: TraceContext | undefined,
    bind: () => Promise<'bound' | 'rebound'>,
  ): Promise<void> {
    const span = this.tracer
      .start('sandbox bind', { kind: 'client', parent, class: 'local-execution' })
      .set('toolyard.component', 'sandbox-manager')
      .set('toolyard.sandbox.name', target.record.name)
      .set('toolyard.sandbox.template', target.record.template);
    try {
      // `rebound`: bound before, by this manager before a restart (its token for the instance works).
      span.set('toolyard.sandbox.bind', await bind());
    } catch (error) {
      span.set('error.type', error instanceof SandboxError ? error.code : 'error').fail('the bind failed');
      throw error;
    } finally {
      span.end();
    }
  }

  private async bind(
    target: BindTarget,
    token: string,
    client: McpHttpClient,
    deadline: number,
  ): Promise<'bound' | 'rebound'> {
    const name = target.record.name;
    for (let delay = 50; ; delay = Math.min(delay * 2, 500)) {
      let answer: { status: number; body: string };
      try {
        answer = await postBind(target, this.bootstrapToken, { session: target.record.sessionKey, token });
      } catch (error) {
        if (retriable(error) && Date.now() < deadline) {
          await sleep(delay);
          continue;
        }
        throw new SandboxError(
          'TOOLYARD_SANDBOX_UNREACHABLE',
          `the server of sandbox ${name} (${target.endpoint.ip}:${target.template.serverPort}) did not answer: ${(error as Error).message}`,
          'retry in a moment; if it persists, destroy the sandbox and create it again',
        );
      }
      if (answer.status === 200) return 'bound';
      if (answer.status === 409) {
        // Bound before: by this manager (restarted since) if our token works, else by someone else.
        try {
          await client.listTools();
          return 'rebound';
        } catch (error) {
          if (error instanceof McpClientError && error.status === 401)
            throw new SandboxError(
              'TOOLYARD_SANDBOX_BIND_FAILED',
              `sandbox ${name} was bound to a session by someone else`,
              'destroy it (sandbox_destroy) and create a new one',
            );
          throw error;
        }
      }
      throw new SandboxError(
        'TOOLYARD_SANDBOX_BIND_FAILED',
        `the server of sandbox ${name} refused the bind: HTTP ${answer.status} ${answer.body.slice(0, 200)}`,
        'check that the manager and the sandbox pods mount the same bootstrap token Secret',
      );
    }
  }

  closeAll(): void {
    for (const entry of this.bound.values()) entry.client.close();
    this.bound.clear();
  }
}
