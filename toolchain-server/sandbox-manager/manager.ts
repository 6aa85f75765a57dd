/**
 * The sandbox manager's operations, free of HTTP and MCP: create or reuse a session's sandbox, run a command in
 * it, move files in and out, stop, resume, destroy, list, and the lifecycle pass (idle stop, destroy after
 * retention). State is the provider's (objects in the API server); the manager keeps only clients and locks.
 *
 * Operations on one session are serialized (two creates for a key make one sandbox); creates and resumes of the
 * whole agent are serialized too, so the quota check and the start it allows are one step.
 */
import type { TraceContext } from '../kit/trace-context.ts';
import { Tracer } from '../kit/tracing.ts';
import type { SandboxManagerConfig, SandboxTemplateConfig } from './config.ts';
import { SandboxError } from './errors.ts';
import { KubeError } from './kube-client.ts';
import type { SandboxProvider } from './provider.ts';
import { checkQuota, isActive } from './quota.ts';
import {
  type SandboxEndpoint,
  type SandboxRecord,
  SESSION_KEY_PATTERN,
  sessionObjectName,
} from './records.ts';
import { SandboxLinks } from './sandbox-link.ts';

/** How often a sandbox's last-used time is written to the API server at most (the idle timeout reads it). */
const TOUCH_INTERVAL_MS = 30_000;

export interface SandboxView {
  readonly sessionKey: string;
  readonly sandbox: string;
  readonly template: string;
  readonly state: SandboxRecord['state'];
  readonly createdAt: string;
  readonly lastUsedAt: string;
  readonly stoppedAt: string | null;
  readonly launch: 'warm' | 'cold' | null;
}

export interface CreateOutcome {
  readonly sandbox: SandboxView;
  /** False when the session's sandbox existed already. */
  readonly created: boolean;
  /** A stopped sandbox was started again for this call. */
  readonly resumed: boolean;
  /** From the call to a bound, ready server. */
  readonly readyMs: number;
}

export interface ToolAnswer {
  readonly isError: boolean;
  readonly content: readonly { readonly type: 'text'; readonly text: string }[];
  readonly structuredContent?: Record<string, unknown>;
}

export interface ManagerClock {
  now(): number;
}

class KeyedLock {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.catch(() => {});
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}

function kubeFailure(error: unknown): never {
  if (error instanceof KubeError)
    throw new SandboxError(
      'TOOLYARD_SANDBOX_KUBERNETES',
      `the API server answered ${error.status} ${error.reason}: ${error.message}`,
      error.status === 403
        ? "the manager's Role does not allow this: check the rendered Role and RoleBinding"
        : 'retry; if it persists, check the API server and the agent-sandbox controller',
    );
  throw error;
}

export class SandboxManager {
  readonly config: SandboxManagerConfig;
  readonly provider: SandboxProvider;
  private readonly links: SandboxLinks;
  private readonly sessionLocks = new KeyedLock();
  private readonly startLock = new KeyedLock();
  private readonly lastTouch = new Map<string, number>();
  private readonly inFlight = new Map<string, number>();
  private readonly launches = new Map<string, 'warm' | 'cold'>();
  private readonly clock: ManagerClock;
  readonly tracer: Tracer;
  /** Reports how the provider launched a new sandbox, where it can tell (agent-sandbox's label). */
  private readonly launchType: (name: string) => Promise<'warm' | 'cold' | undefined>;

  constructor(
    config: SandboxManagerConfig,
    provider: SandboxProvider,
    bootstrapToken: string,
    options: {
      readonly clock?: ManagerClock;
      readonly launchType?: (name: string) => Promise<'warm' | 'cold' | undefined>;
      /** Where spans go (docs/observability.md#the-sandbox-manager). Default: `Tracer.off`. */
      readonly tracer?: Tracer;
    } = {},
  ) {
    this.tracer = options.tracer ?? Tracer.off;
    this.config = config;
    this.provider = provider;
    this.links = new SandboxLinks(bootstrapToken, this.tracer);
    this.clock = options.clock ?? { now: () => Date.now() };
    this.launchType = options.launchType ?? (async () => undefined);
  }

  template(name: string | undefined): SandboxTemplateConfig {
    const wanted = name ?? this.config.defaultTemplate;
    const template = this.config.templates.find((t) => t.name === wanted);
    if (!template)
      throw new SandboxError(
        'TOOLYARD_SANDBOX_TEMPLATE_UNKNOWN',
        `no sandbox template "${wanted}"`,
        `use one of: ${this.config.templates.map((t) => t.name).join(', ')}`,
      );
    return template;
  }

  private checkSessionKey(sessionKey: string): void {
    if (!SESSION_KEY_PATTERN.test(sessionKey))
      throw new SandboxError(
        'TOOLYARD_SANDBOX_INVALID_ARGUMENTS',
        'sessionKey must be 1-200 printable ASCII characters without spaces',
        'use a conversation or user id, e.g. "conv-1234"',
      );
  }

  view(record: SandboxRecord): SandboxView {
    return {
      sessionKey: record.sessionKey,
      sandbox: record.name,
      template: record.template,
      state: record.state,
      createdAt: record.createdAt,
      lastUsedAt: this.lastUsed(record),
      stoppedAt: record.stoppedAt ?? null,
      launch: record.launch ?? this.launches.get(record.name) ?? null,
    };
  }

  /** The later of the recorded last use and a use this manager has not written yet. */
  private lastUsed(record: SandboxRecord): string {
    const recorded = Date.parse(record.lastUsedAt);
    const local = this.lastTouch.get(record.name) ?? 0;
    return new Date(Math.max(Number.isNaN(recorded) ? 0 : recorded, local)).toISOString();
  }

  list(): SandboxView[] {
    return this.provider
      .records()
      .map((r) => this.view(r))
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.sandbox.localeCompare(b.sandbox));
  }

  private existing(sessionKey: string): SandboxRecord | undefined {
    this.checkSessionKey(sessionKey);
    return this.provider.record(sessionObjectName(this.config.agent, sessionKey));
  }

  private required(sessionKey: string): SandboxRecord {
    const record = this.existing(sessionKey);
    if (!record)
      throw new SandboxError(
        'TOOLYARD_SANDBOX_NOT_FOUND',
        `no sandbox for session "${sessionKey}"`,
        'create it with sandbox_create (the same session key always returns the same sandbox)',
      );
    return record;
  }

  private deadline(): number {
    return this.clock.now() + this.config.readyTimeoutSeconds * 1000;
  }

  /**
   * A call with the manager's own Kubernetes authority (create, resume, suspend, destroy a claim or pod) as a
   * client span, `external-authority`: the sandbox's object name, the template, the API status of a failure.
   */
  private async kube<T>(
    operation: 'create' | 'resume' | 'suspend' | 'destroy',
    record: { readonly name: string; readonly template: string },
    parent: TraceContext | undefined,
    task: () => Promise<T>,
  ): Promise<T> {
    const span = this.tracer
      .start(`kubernetes ${operation}`, { kind: 'client', parent, class: 'external-authority' })
      .set('toolyard.component', 'sandbox-manager')
      .set('toolyard.sandbox.operation', operation)
      .set('toolyard.sandbox.name', record.name)
      .set('toolyard.sandbox.template', record.template);
    try {
      return await task();
    } catch (error) {
      if (error instanceof KubeError) span.set('http.response.status_code', error.status);
      span.set('error.type', 'TOOLYARD_SANDBOX_KUBERNETES').fail('the Kubernetes API call failed');
      throw error;
    } finally {
      span.end();
    }
  }

  /** The template of the session's sandbox, when it has one (a span attribute). */
  templateOf(sessionKey: string): string | undefined {
    return this.provider.record(sessionObjectName(this.config.agent, sessionKey))?.template;
  }

  /** Waits for the sandbox to run and binds its server; resumes it first when it was stopped. */
  private async ensureRunning(
    record: SandboxRecord,
    parent?: TraceContext,
  ): Promise<{ record: SandboxRecord; resumed: boolean }> {
    const template = this.template(record.template);
    let resumed = false;
    if (record.state === 'stopped' || (record.state === 'starting' && record.reason === 'PodMissing')) {
      await this.startLock.run('start', async () => {
        const others = this.provider.records().filter((r) => r.name !== record.name);
        checkQuota(this.config, others, template, 'resume');
        await this.kube('resume', record, parent, () =>
          this.provider.resume(record.name, new Date(this.clock.now())),
        ).catch(kubeFailure);
      });
      resumed = record.state === 'stopped';
    }
    const running = await this.waitRunning(record.name);
    return { record: running, resumed };
  }

  private async waitRunning(name: string): Promise<SandboxRecord> {
    try {
      return await this.provider.waitRunning(name, this.config.readyTimeoutSeconds * 1000);
    } catch (error) {
      throw new SandboxError(
        'TOOLYARD_SANDBOX_NOT_READY',
        (error as Error).message,
        'retry later; sandbox_list shows its state, and the cluster events of its claim or pod say why',
      );
    }
  }

  private async connect(record: SandboxRecord, parent?: TraceContext) {
    const endpoint = record.endpoint as SandboxEndpoint;
    const template = this.template(record.template);
    try {
      return await this.links.client({ record, endpoint, template }, this.deadline(), parent);
    } catch (error) {
      if (error instanceof SandboxError && error.code === 'TOOLYARD_SANDBOX_BIND_FAILED')
        await this.kube('destroy', record, parent, () => this.provider.destroy(record.name)).catch(() => {});
      throw error;
    }
  }

  /** Create, or reuse the session's sandbox (resuming it if stopped); returns once its server is bound. */
  /** Runs `task` with the session's sandbox counted as busy: the lifecycle pass never stops a busy sandbox. */
  private async busy<T>(sessionKey: string, task: () => Promise<T>): Promise<T> {
    const name = sessionObjectName(this.config.agent, sessionKey);
    this.inFlight.set(name, (this.inFlight.get(name) ?? 0) + 1);
    try {
      return await task();
    } finally {
      const left = (this.inFlight.get(name) ?? 1) - 1;
      if (left > 0) this.inFlight.set(name, left);
      else this.inFlight.delete(name);
      this.markUsed(name);
    }
  }

  create(
    sessionKey: string,
    templateName: string | undefined,
    parent?: TraceContext,
  ): Promise<CreateOutcome> {
    this.checkSessionKey(sessionKey);
    const started = this.clock.now();
    return this.busy(sessionKey, () =>
      this.sessionLocks.run(sessionKey, async () => {
        const template = this.template(templateName);
        const name = sessionObjectName(this.config.agent, sessionKey);
        let record = this.provider.record(name);
        let created = false;
        if (record && templateName !== undefined && record.template !== template.name)
          throw new SandboxError(
            'TOOLYARD_SANDBOX_TEMPLATE_MISMATCH',
            `session "${sessionKey}" has a sandbox of template "${record.template}", not "${template.name}"`,
            'destroy it first (sandbox_destroy), or use another session key',
          );
        if (!record) {
          await this.startLock.run('start', async () => {
            checkQuota(this.config, this.provider.records(), template, 'create');
            await this.kube('create', { name, template: template.name }, parent, () =>
              this.provider.create(name, sessionKey, template),
            ).catch(kubeFailure);
          });
          created = true;
          record = this.provider.record(name) as SandboxRecord;
        }
        const { record: running, resumed } = await this.ensureRunning(record, parent);
        await this.connect(running, parent);
        const readyMs = this.clock.now() - started;
        this.markUsed(running.name);
        if (created) {
          const launch = running.launch ?? (await this.launchType(running.name));
          if (launch) this.launches.set(running.name, launch);
        }
        return { sandbox: this.view(this.provider.record(name) ?? running), created, resumed, readyMs };
      }),
    );
  }

  /**
   * Runs `task` against the session's running, bound sandbox (resumed if it was stopped). Each call to the
   * sandbox's server is a client span (`local-execution`) whose context goes on in `params._meta` and the
   * `traceparent` header, so the server's own span is its child.
   */
  private async withSandbox<T>(
    sessionKey: string,
    parent: TraceContext | undefined,
    task: (
      call: (tool: string, args: Record<string, unknown>, signal?: AbortSignal) => Promise<ToolAnswer>,
      record: SandboxRecord,
      template: SandboxTemplateConfig,
    ) => Promise<T>,
  ): Promise<T> {
    return this.busy(sessionKey, async () => {
      const record = await this.sessionLocks.run(
        sessionKey,
        async () => (await this.ensureRunning(this.required(sessionKey), parent)).record,
      );
      const client = await this.connect(record, parent);
      const template = this.template(record.template);
      return task(
        async (tool, args, signal) => {
          const span = this.tracer
            .start(`tools/call ${tool}`, { kind: 'client', parent, class: 'local-execution' })
            .set('toolyard.component', 'sandbox-manager')
            .set('mcp.method.name', 'tools/call')
            .set('gen_ai.operation.name', 'execute_tool')
            .set('gen_ai.tool.name', tool)
            .set('toolyard.sandbox.name', record.name)
            .set('toolyard.sandbox.template', record.template);
          // Passed on when traced or when the caller sent a context (as a toolchain's command gets it).
          const trace =
            span.recording || parent
              ? { traceparent: span.traceparent(), tracestate: span.context.tracestate }
              : undefined;
          try {
            const answer = (await client.callTool(tool, args, signal, trace)) as ToolAnswer;
            if (answer.isError === true)
              span.set('error.type', 'tool-error').fail('the tool returned an error');
            return { ...answer, isError: answer.isError === true };
          } catch (error) {
            span.set('error.type', 'TOOLYARD_SANDBOX_UNREACHABLE').fail('the sandbox server did not answer');
            throw new SandboxError(
              'TOOLYARD_SANDBOX_UNREACHABLE',
              `sandbox ${record.name}: ${(error as Error).message}`,
              'retry; sandbox_list shows whether it still runs',
            );
          } finally {
            span.end();
          }
        },
        record,
        template,
      );
    });
  }

  exec(
    sessionKey: string,
    input: {
      command: readonly string[];
      cwd?: string;
      timeoutSeconds?: number;
      env?: Record<string, string>;
    },
    parent?: TraceContext,
  ): Promise<ToolAnswer> {
    return this.withSandbox(sessionKey, parent, async (call, _record, template) => {
      const timeout = callTimeout(template, input.timeoutSeconds);
      return call(
        'exec_allowed',
        {
          command: [...input.command],
          timeoutSeconds: timeout,
          ...(input.cwd !== undefined ? { cwd: input.cwd } : {}),
          ...(input.env !== undefined ? { env: input.env } : {}),
        },
        AbortSignal.timeout((timeout + 30) * 1000),
      );
    });
  }

  /**
   * Runs a program in the session's sandbox through its server's `run_code` (docs/code-mode.md#in-sandboxes): the
   * same confined child, limits, audit and results as a toolchain's code mode; the timeout is checked here as for
   * `exec`, and a template without code mode (or without the language) is refused before anything is sent.
   */
  runCode(
    sessionKey: string,
    input: { language: string; code: string; timeoutSeconds?: number; cwd?: string },
    parent?: TraceContext,
  ): Promise<ToolAnswer> {
    this.checkSessionKey(sessionKey);
    const refuse = (template: SandboxTemplateConfig): SandboxError | undefined => {
      const languages = template.codeMode?.languages;
      if (!languages)
        return new SandboxError(
          'TOOLYARD_SANDBOX_NO_CODE_MODE',
          `template "${template.name}" has no code mode`,
          `use sandbox_exec, or a template with tools.codeMode (${this.config.templates
            .filter((t) => t.codeMode)
            .map((t) => t.name)
            .join(', ')})`,
        );
      const needs = input.language === 'python' ? 'python' : 'node';
      if (!languages.includes(needs))
        return new SandboxError(
          'TOOLYARD_SANDBOX_NO_CODE_MODE',
          `template "${template.name}" runs ${languages.join(' and ')} programs, not ${input.language}`,
          `write the program in ${languages.map((l) => (l === 'node' ? 'javascript or typescript' : l)).join(' or ')}`,
        );
      return undefined;
    };
    const known = this.provider.record(sessionObjectName(this.config.agent, sessionKey));
    const early = known ? this.config.templates.find((t) => t.name === known.template) : undefined;
    const refusal = early && refuse(early);
    if (refusal) return Promise.reject(refusal);
    return this.withSandbox(sessionKey, parent, async (call, _record, template) => {
      const refused = refuse(template);
      if (refused) throw refused;
      const timeout = callTimeout(template, input.timeoutSeconds);
      return call(
        'run_code',
        {
          language: input.language,
          code: input.code,
          timeoutSeconds: timeout,
          ...(input.cwd !== undefined ? { cwd: input.cwd } : {}),
        },
        AbortSignal.timeout((timeout + 30) * 1000),
      );
    });
  }

  upload(sessionKey: string, path: string, content: Buffer, parent?: TraceContext): Promise<ToolAnswer> {
    const checked = checkWorkspacePath(path);
    return this.withSandbox(sessionKey, parent, async (call, _record, template) => {
      if (content.length > template.maxUploadBytes)
        throw new SandboxError(
          'TOOLYARD_SANDBOX_FILE_TOO_LARGE',
          `the upload is ${content.length} bytes, above the ${template.maxUploadBytes}-byte limit of template "${template.name}"`,
          'split the file, or upload an archive in parts',
        );
      return call('write_file', { path: checked, contentBase64: content.toString('base64') });
    });
  }

  download(sessionKey: string, path: string, parent?: TraceContext): Promise<ToolAnswer> {
    const checked = checkWorkspacePath(path);
    return this.withSandbox(sessionKey, parent, async (call, _record, template) => {
      const answer = await call('read_file', { path: checked });
      const size = Number(answer.structuredContent?.size ?? 0);
      if (!answer.isError && size > template.maxDownloadBytes)
        throw new SandboxError(
          'TOOLYARD_SANDBOX_FILE_TOO_LARGE',
          `${checked} is ${size} bytes, above the ${template.maxDownloadBytes}-byte download limit of template "${template.name}"`,
          'compress or split it in the sandbox first (sandbox_exec), then download the parts',
        );
      return answer;
    });
  }

  listFiles(
    sessionKey: string,
    path: string | undefined,
    depth: number | undefined,
    parent?: TraceContext,
  ): Promise<ToolAnswer> {
    const checked = path === undefined ? undefined : checkWorkspacePath(path);
    return this.withSandbox(sessionKey, parent, (call) =>
      call('list_files', {
        ...(checked !== undefined ? { path: checked } : {}),
        ...(depth ? { depth } : {}),
      }),
    );
  }

  stop(sessionKey: string, parent?: TraceContext): Promise<SandboxView> {
    this.checkSessionKey(sessionKey);
    return this.sessionLocks.run(sessionKey, async () => {
      const record = this.required(sessionKey);
      if (record.state !== 'stopped') await this.stopRecord(record, parent);
      return this.view(this.provider.record(record.name) ?? record);
    });
  }

  private async stopRecord(record: SandboxRecord, parent?: TraceContext): Promise<void> {
    await this.kube('suspend', record, parent, () =>
      this.provider.suspend(record.name, new Date(this.clock.now())),
    ).catch(kubeFailure);
    this.links.retain(
      new Set(
        this.provider
          .records()
          .flatMap((r) => (r.endpoint && r.name !== record.name ? [r.endpoint.instance] : [])),
      ),
    );
  }

  resume(sessionKey: string, parent?: TraceContext): Promise<CreateOutcome> {
    this.checkSessionKey(sessionKey);
    const started = this.clock.now();
    return this.busy(sessionKey, () =>
      this.sessionLocks.run(sessionKey, async () => {
        const { record, resumed } = await this.ensureRunning(this.required(sessionKey), parent);
        await this.connect(record, parent);
        return { sandbox: this.view(record), created: false, resumed, readyMs: this.clock.now() - started };
      }),
    );
  }

  destroy(sessionKey: string, parent?: TraceContext): Promise<SandboxView> {
    this.checkSessionKey(sessionKey);
    return this.sessionLocks.run(sessionKey, async () => {
      const record = this.required(sessionKey);
      await this.kube('destroy', record, parent, () => this.provider.destroy(record.name)).catch(kubeFailure);
      this.forget(record.name);
      return this.view(record);
    });
  }

  private forget(name: string): void {
    this.lastTouch.delete(name);
    this.launches.delete(name);
    this.links.retain(
      new Set(
        this.provider.records().flatMap((r) => (r.endpoint && r.name !== name ? [r.endpoint.instance] : [])),
      ),
    );
  }

  private markUsed(name: string): void {
    const now = this.clock.now();
    const last = this.lastTouch.get(name) ?? 0;
    this.lastTouch.set(name, now);
    if (now - last < TOUCH_INTERVAL_MS) return;
    void this.provider.touch(name, new Date(now)).catch(() => {});
  }

  /**
   * One lifecycle pass: stops running sandboxes idle past their template's timeout (never one with a call in
   * flight) and destroys stopped or failed ones past their retention. Returns what it did.
   */
  async lifecycle(): Promise<{ stopped: string[]; destroyed: string[] }> {
    const now = this.clock.now();
    const stopped: string[] = [];
    const destroyed: string[] = [];
    for (const record of this.provider.records()) {
      const template = this.config.templates.find((t) => t.name === record.template);
      if (!template) continue;
      if (record.state === 'running' && (this.inFlight.get(record.name) ?? 0) === 0) {
        const idleMs = now - Date.parse(this.lastUsed(record));
        if (idleMs >= template.idleTimeoutSeconds * 1000) {
          await this.sessionLocks.run(record.sessionKey, async () => {
            const current = this.provider.record(record.name);
            if (current?.state === 'running' && (this.inFlight.get(record.name) ?? 0) === 0) {
              await this.stopRecord(current);
              stopped.push(record.name);
            }
          });
          continue;
        }
      }
      if (record.state === 'stopped' || record.state === 'failed') {
        const since = Date.parse(record.stoppedAt ?? record.lastUsedAt);
        if (now - since >= template.retentionSeconds * 1000) {
          await this.sessionLocks.run(record.sessionKey, async () => {
            const current = this.provider.record(record.name);
            if (current && !isActive(current) && (this.inFlight.get(record.name) ?? 0) === 0) {
              // The lifecycle pass has no caller: each of its Kubernetes calls starts a trace of its own.
              await this.kube('destroy', current, undefined, () => this.provider.destroy(record.name));
              this.forget(record.name);
              destroyed.push(record.name);
            }
          });
        }
      }
    }
    return { stopped, destroyed };
  }

  close(): void {
    this.links.closeAll();
    this.provider.stop();
  }
}

/**
 * A workspace path as callers give it: relative to the workspace root, without `..` segments, NUL bytes or a
 * leading `/`. The sandbox's server resolves it again, symbolic links included.
 */
export function checkWorkspacePath(path: string): string {
  const refuse = (why: string): never => {
    throw new SandboxError(
      'TOOLYARD_SANDBOX_PATH_REFUSED',
      `path ${JSON.stringify(path)} ${why}`,
      'give a path relative to the workspace root, e.g. "data/input.csv" or "outputs/report.md"',
    );
  };
  if (path.length === 0 || path.length > 4096) refuse('is empty or longer than 4096 characters');
  if (path.includes('\0')) refuse('holds a NUL byte');
  if (path.startsWith('/')) refuse('is absolute');
  if (path.split('/').some((part) => part === '..')) refuse('leaves the workspace (..)');
  return path;
}

/** A call's timeout in a sandbox of `template`: the one asked for, else 300 s or the template's maximum if lower. */
function callTimeout(template: SandboxTemplateConfig, requested: number | undefined): number {
  const timeout = requested ?? Math.min(300, template.maxTimeoutSeconds);
  if (timeout > template.maxTimeoutSeconds)
    throw new SandboxError(
      'TOOLYARD_SANDBOX_TIMEOUT_EXCEEDS_MAX',
      `timeoutSeconds ${timeout} is above the template's maximum`,
      `at most ${template.maxTimeoutSeconds} seconds`,
    );
  return timeout;
}
