/**
 * The toolchain: tool registry, policy enforcement and process execution, free of HTTP and of MCP transport.
 * One instance per server process; MCP sessions share it but never share per-client state.
 */

import { accessSync, constants as fsConstants, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import { type LogSink, stdoutSink } from '../kit/audit-sink.ts';
import { tracedProxyUser } from '../kit/proxy-user.ts';
import { readTokenFile } from '../kit/token-file.ts';
import type { TraceContext } from '../kit/trace-context.ts';
import { type Span, Tracer } from '../kit/tracing.ts';
import { type AuditRecord, hashSession } from './audit.ts';
import {
  CodeMode,
  type RunCodeInput,
  runCodeDescription,
  runCodeInput,
  runCodeOutput,
  summarizeRun,
} from './code-mode/run-code.ts';
import { CodeCallError } from './code-mode/targets.ts';
import type { ToolchainServerConfig } from './config.ts';
import {
  type ConfinementState,
  parseReports,
  probeConfinement,
  WALL_MECHANISMS,
  type WallMechanism,
} from './confinement/helper.ts';
import {
  callPolicy,
  codeModeHelperArgs,
  helperArgs,
  type StaticPolicy,
  staticPolicy,
} from './confinement/policy.ts';
import {
  type CallScratch,
  cargoConfigFiles,
  createCallScratch,
  makeScratchBase,
  PINNED_CONFIG_ENV,
  PinnedFiles,
} from './confinement/scratch.ts';
import { ConfineSpawner } from './confinement/spawner.ts';
import { ToolError } from './errors.ts';
import { Limiter } from './limiter.ts';
import { type CallOutcome, Metrics } from './metrics.ts';
import { cwdChanged, PinnedCwd } from './pinned-cwd.ts';
import { approveArgv, commandEnvironment } from './policy/argv-policy.ts';
import { CommandTable } from './policy/commands.ts';
import { WorkspaceRoots } from './policy/cwd.ts';
import { applyCallerEnv, buildBaseEnv } from './policy/env.ts';
import { egressProxyEnv, proxyUrl, withProxyUrl } from './policy/proxy-env.ts';
import { RoutingReasons } from './routing-reason.ts';
import { ProcessGroups, type RunRequest, type RunResult, runCommand } from './runner.ts';
import { tailWithinSentBytes } from './sent-size.ts';
import { describeOutputSchema, describeToolchainInput, type ToolchainDescription } from './tools/describe.ts';
import { execAllowedTool } from './tools/exec-allowed.ts';
import { FILE_TOOL_NAMES, type FileToolName, FileTools, fileToolListings } from './tools/file-tools.ts';
import { PRESET_TOOLS, presetBinaries } from './tools/presets.ts';
import {
  type CommonInput,
  type ExecResult,
  type ExecTool,
  execResultSchema,
  type PlanContext,
  toJsonSchema,
} from './tools/types.ts';
import { SERVER_VERSION } from './version.ts';

export interface ToolchainOptions {
  readonly config: ToolchainServerConfig;
  /** The server's own environment: PATH for resolution and the source of `env.passthrough`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly log?: LogSink;
  /** Delay between SIGTERM and SIGKILL for a timed-out or cancelled process group. Default 2000 ms. */
  readonly killGraceMs?: number;
  /** Interval of progress notifications when the client asked for them. Default 1000 ms. */
  readonly progressIntervalMs?: number;
  /** Whether to probe binary versions at start. Default true. */
  readonly probeVersions?: boolean;
  /** The server's own files no child may read besides its tokens: its config file, its bundle directory. */
  readonly ownFiles?: readonly string[];
  /** Extra flags for the confinement helper; test-only (`--simulate-no-landlock`, docs/confinement.md). */
  readonly confinementFlags?: readonly string[];
  /** Where spans go (docs/observability.md). Default: `Tracer.off`, which records nothing. */
  readonly tracer?: Tracer;
  /** The egress proxy's address for calls that cannot resolve its name (`proxyAddressForCalls`). */
  readonly proxyAddress?: string | undefined;
}

/** A tool as listed over MCP; JSON Schemas computed once at start. */
export interface ListedTool {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: { type: 'object'; [key: string]: unknown };
  readonly outputSchema: { type: 'object'; [key: string]: unknown };
  readonly annotations: {
    readonly title: string;
    readonly readOnlyHint: boolean;
    readonly openWorldHint: boolean;
  };
}

export interface CallContext {
  readonly signal?: AbortSignal | undefined;
  readonly sessionId?: string | undefined;
  /** Present when the client sent a progress token. */
  readonly sendProgress?: ((progress: number, message: string) => void) | undefined;
  /** The code-mode run that makes this call (a program calling this toolchain's own tools). */
  readonly run?: string | undefined;
  /** The caller's trace context (`params._meta.traceparent` or the HTTP header), when it sent one. */
  readonly trace?: TraceContext | undefined;
}

/** Thrown for a tool name that does not exist: a protocol fault, not a tool failure. */
export class UnknownToolError extends Error {
  constructor(name: string) {
    super(`Unknown tool: ${name}`);
    this.name = 'UnknownToolError';
  }
}

interface ReadyState {
  readonly ready: boolean;
  readonly confinement: {
    readonly mode: string;
    readonly abi: number;
    readonly status: string;
    readonly wall: WallMechanism;
  };
  readonly missingRoots: string[];
  readonly missingBinaries: string[];
  readonly draining: boolean;
}

const VERSION_ARGS: Readonly<Record<string, readonly string[]>> = {
  go: ['version'],
  terraform: ['version'],
  helm: ['version', '--short'],
};

export class Toolchain {
  readonly config: ToolchainServerConfig;
  readonly roots: WorkspaceRoots;
  readonly commands: CommandTable;
  readonly limiter: Limiter;
  readonly metrics: Metrics;
  readonly groups = new ProcessGroups();
  /** The resident spawner of confined calls, started on the first one. */
  private spawner: ConfineSpawner | undefined;
  readonly listedTools: readonly ListedTool[];
  /** Missing binaries per preset, reported at start and by describe_toolchain. */
  readonly presetStatus: ReadonlyArray<{ preset: string; missing: string[]; optionalMissing: string[] }>;
  versions: Promise<Record<string, string | null>>;
  /** Kernel confinement of every call, probed at start (docs/confinement.md). */
  readonly confinement: ConfinementState;
  /** The Landlock policy of a non-fetch call and of a fetch call (they differ with caches or `phase: fetch`). */
  private readonly policies: { readonly other: StaticPolicy; readonly fetch: StaticPolicy } | undefined;
  private readonly scratchBase: string | undefined;
  private readonly pinnedFiles: PinnedFiles;
  private readonly tools = new Map<string, ExecTool | 'describe' | 'run_code' | 'file'>();
  /** A sandbox's file tools (`sandbox` in the config), run in this process with their paths checked twice. */
  private readonly fileTools: FileTools | undefined;
  /** Code mode (`codeMode`): `run_code` and the servers its programs may call. */
  readonly codeMode: CodeMode | undefined;
  private readonly allowedByTool = new Map<string, ReadonlySet<string>>();
  /** Every child's environment before the caller's variables, without the proxy. */
  private readonly baseEnv: Record<string, string>;
  /** `baseEnv` plus the proxy variables, for calls that get egress (every call, or fetch calls under `phase: fetch`). */
  private readonly proxiedEnv: Record<string, string>;
  /** The broker proxy URL with this toolchain's credentials, when egressProxy is set. */
  private readonly httpProxy: string | undefined;
  /** `httpProxy`, and how its user carries a call's trace context (for the call's tunnels to join its trace). */
  private readonly proxyTrace: ProxyTrace | undefined;
  /** `offlineEnv`: set on calls without the proxy. */
  private readonly offlineEnv: Readonly<Record<string, string>>;
  private readonly callerAllowed: readonly string[];
  private readonly log: LogSink;
  readonly tracer: Tracer;
  private readonly routing: RoutingReasons;
  /** Each call's span, by its audit record: ended with the audit line (finishAudit). */
  private readonly spans = new WeakMap<AuditRecord, Span>();
  private readonly killGraceMs: number;
  private readonly progressIntervalMs: number;
  private sessionsGauge: () => number = () => 0;
  private draining = false;
  private inFlight = 0;
  private idleWaiters: Array<() => void> = [];

  constructor(opts: ToolchainOptions) {
    const config = opts.config;
    const env = opts.env ?? process.env;
    this.config = config;
    this.log = opts.log ?? stdoutSink;
    this.tracer = opts.tracer ?? Tracer.off;
    this.routing = new RoutingReasons(config);
    this.killGraceMs = opts.killGraceMs ?? 2000;
    this.progressIntervalMs = opts.progressIntervalMs ?? 1000;
    this.roots = new WorkspaceRoots(config.workspaceRoots);
    // `required` throws here when the kernel (or the image) cannot confine: the server does not start.
    this.confinement = probeConfinement(
      config.limits.confinement,
      config.confinementHelper,
      opts.confinementFlags,
    );
    if (this.confinement.mode !== 'off') this.scratchBase = makeScratchBase(config.env.set.TMPDIR);
    this.pinnedFiles = new PinnedFiles(this.scratchBase ? cargoConfigFiles(config.env.set) : []);
    this.limiter = new Limiter(config.limits.maxConcurrency, config.limits.maxQueue);
    this.metrics = new Metrics({
      inFlight: () => this.limiter.active,
      queueDepth: () => this.limiter.queued,
      sessions: () => this.sessionsGauge(),
      confinementAbi: () => this.confinement.abi,
      confinementWall: () => this.confinement.wall,
    });
    this.metrics.registry.setConstLabels(config.metricsLabels);
    this.baseEnv = buildBaseEnv(config.env, env);
    this.proxiedEnv = this.baseEnv;
    this.offlineEnv = config.offlineEnv;
    // Read once, after main.ts has scrubbed the server's environment: the token reaches children only here.
    if (config.egressProxy) {
      const token = readTokenFile(config.egressProxy.tokenFile, '/egressProxy/tokenFile');
      this.proxiedEnv = { ...this.baseEnv, ...egressProxyEnv(config.egressProxy, token, opts.proxyAddress) };
      this.httpProxy = proxyUrl(config.egressProxy, token, opts.proxyAddress);
      const { egressProxy } = config;
      this.proxyTrace = {
        plain: this.httpProxy,
        traced: (context) =>
          proxyUrl(egressProxy, token, opts.proxyAddress, tracedProxyUser(egressProxy.user, context)),
      };
    }
    this.callerAllowed = config.env.callerAllowed;

    const execTools: ExecTool[] = [];
    if (config.tools.mode === 'exec') execTools.push(execAllowedTool as unknown as ExecTool);
    const presets = [...new Set(config.tools.presets)];
    // Fetch tools exist for filling caches through the broker: without egressProxy they could only fail.
    const withFetch = config.egressProxy !== undefined;
    for (const preset of presets)
      execTools.push(...PRESET_TOOLS[preset].filter((t) => withFetch || t.fetch !== true));

    const binaryNames = new Set<string>(config.tools.allowedCommands);
    const presetStatus: Array<{ preset: string; required: string[]; optional: string[] }> = [];
    for (const preset of presets) {
      const { required, optional } = presetBinaries(preset, withFetch);
      for (const b of [...required, ...optional]) binaryNames.add(b);
      presetStatus.push({ preset, required, optional });
    }
    this.commands = new CommandTable(binaryNames, env.PATH);
    if (this.scratchBase && this.confinement.helper) {
      const policy = staticPolicy({
        config,
        ownFiles: [...(opts.ownFiles ?? []), dirname(this.confinement.helper)],
        scratchBase: this.scratchBase,
        commandPaths: this.commands.list().flatMap((c) => (c.path ? [c.path] : [])),
      });
      this.policies = {
        other: callPolicy(policy, { fetch: false }),
        fetch: callPolicy(policy, { fetch: true }),
      };
    }
    const missing = new Set(this.commands.missing());
    this.presetStatus = presetStatus.map((p) => ({
      preset: p.preset,
      missing: p.required.filter((b) => missing.has(b)),
      optionalMissing: p.optional.filter((b) => missing.has(b)),
    }));

    const listed: ListedTool[] = [];
    const execOutput = toJsonSchema(execResultSchema, 'output') as ListedTool['outputSchema'];
    for (const tool of execTools) {
      this.tools.set(tool.name, tool);
      this.allowedByTool.set(
        tool.name,
        new Set(
          tool.group === 'exec'
            ? config.tools.allowedCommands
            : [...tool.binaries, ...(tool.optionalBinaries ?? [])],
        ),
      );
      listed.push({
        name: tool.name,
        title: tool.title,
        description: tool.description,
        inputSchema: toJsonSchema(tool.input, 'input') as ListedTool['inputSchema'],
        outputSchema: execOutput,
        annotations: { title: tool.title, readOnlyHint: false, openWorldHint: false },
      });
    }
    this.tools.set('describe_toolchain', 'describe');
    listed.push({
      name: 'describe_toolchain',
      title: 'Describe this toolchain',
      description:
        'Returns the toolchain name, its tools, allowed commands, routing hints, limits, workspace roots and binary versions.',
      inputSchema: toJsonSchema(describeToolchainInput, 'input') as ListedTool['inputSchema'],
      outputSchema: toJsonSchema(describeOutputSchema, 'output') as ListedTool['outputSchema'],
      annotations: { title: 'Describe this toolchain', readOnlyHint: true, openWorldHint: false },
    });
    if (config.codeMode) {
      this.codeMode = this.buildCodeMode(config.codeMode, env);
      this.tools.set('run_code', 'run_code');
      listed.push({
        name: 'run_code',
        title: 'Run a program that calls MCP tools',
        description: runCodeDescription(config.codeMode.languages),
        inputSchema: {
          ...(toJsonSchema(runCodeInput, 'input') as ListedTool['inputSchema']),
          properties: {
            ...(toJsonSchema(runCodeInput, 'input') as { properties: Record<string, unknown> }).properties,
            language: { type: 'string', enum: this.codeMode.languages() },
          },
        },
        outputSchema: toJsonSchema(runCodeOutput, 'output') as ListedTool['outputSchema'],
        annotations: {
          title: 'Run a program that calls MCP tools',
          readOnlyHint: false,
          openWorldHint: true,
        },
      });
    }
    if (config.sandbox) {
      this.fileTools = new FileTools(this.roots, config.sandbox.maxFileBytes);
      for (const name of FILE_TOOL_NAMES) this.tools.set(name, 'file');
      listed.push(...fileToolListings(config.sandbox.maxFileBytes));
    }
    this.listedTools = listed;
    this.versions = opts.probeVersions === false ? Promise.resolve({}) : this.probeVersions();
  }

  /** Code mode's host: this server's confinement, spawner, limits and audit (docs/code-mode.md). */
  private buildCodeMode(
    codeMode: NonNullable<ToolchainServerConfig['codeMode']>,
    env: Readonly<Record<string, string | undefined>>,
  ): CodeMode {
    const helper = this.confinement.helper;
    const codebox = helper ? executable(join(dirname(helper), 'toolyard-codebox')) : undefined;
    const python = codeMode.languages.includes('python') ? onPath('python3', env.PATH) : undefined;
    const node = codeMode.languages.includes('node') ? executable(process.execPath) : undefined;
    const programEnv: Record<string, string> = {};
    for (const [name, value] of Object.entries(
      buildBaseEnv({ passthrough: this.config.env.passthrough, set: {} }, env),
    ))
      if (!/^(NODE_|PYTHON)/.test(name)) programEnv[name] = value;
    Object.assign(programEnv, PINNED_CONFIG_ENV);
    return new CodeMode(
      codeMode,
      {
        toolchain: this.config.name,
        log: this.log,
        workspaceRoot: () => this.roots.primary,
        resolveCwd: (requested) => this.roots.resolveCwd(requested),
        unavailable: () =>
          !this.confinement.helper || this.confinement.abi === 0 || !this.policies || !this.scratchBase
            ? `code mode runs only under kernel confinement, and this server's calls are not confined (limits.confinement ${this.confinement.mode}, status ${this.confinement.status}; docs/confinement.md)`
            : undefined,
        scratchBase: () => this.scratchBase as string,
        callScratch: () => {
          const scratch = this.callScratch() as CallScratch;
          return { dir: scratch.dir, env: scratch.env, remove: (report) => this.endCall(scratch, report) };
        },
        helperArgs: (extra) => [
          ...this.confinement.helperFlags,
          ...codeModeHelperArgs((this.policies as { other: StaticPolicy }).other, {
            roots: this.roots.real,
            readOnly: extra.readOnly,
            readWrite: extra.readWrite,
            scratch: extra.scratch,
            timeoutMs: extra.timeoutMs + this.killGraceMs + 2000,
            graceMs: this.killGraceMs,
          }),
        ],
        spawn: (helperArgs, cwdId, req) => {
          this.spawner ??= new ConfineSpawner(this.confinement.helper as string);
          return this.spawner.run({ ...req, helperArgs, cwdId });
        },
        programEnv,
        killGraceMs: this.killGraceMs,
        maxOutputBytes: this.config.limits.maxOutputBytes,
        codebox,
        python,
        node,
      },
      {
        listTools: () =>
          this.listedTools
            .filter((t) => t.name !== 'run_code')
            .map((t) => ({
              name: t.name,
              title: t.title,
              description: t.description,
              inputSchema: t.inputSchema,
            })),
        callTool: async (tool, args, signal, run, trace) => {
          if (tool === 'run_code' || !this.tools.has(tool))
            throw new CodeCallError(
              'TOOLYARD_CODE_MODE_UNKNOWN_TOOL',
              `${this.config.name} has no tool ${JSON.stringify(tool)} a program may call`,
            );
          return this.callTool(tool, args, { signal, run, trace });
        },
      },
    );
  }

  /** Start-up report: missing roots and binaries, logged once as a JSON line. */
  startupReport(): Record<string, unknown> {
    return {
      event: 'toolchain',
      toolchain: this.config.name,
      mode: this.config.tools.mode,
      tools: this.listedTools.map((t) => t.name),
      commands: this.commands.list().map((c) => ({ name: c.name, path: c.path ?? null })),
      missingBinaries: [...this.commands.missing(), ...(this.codeMode?.missing() ?? [])],
      presets: this.presetStatus,
      ...(this.codeMode
        ? {
            codeMode: {
              languages: this.codeMode.languages(),
              servers: this.codeMode.targets.list.map((t) => t.name),
              unavailable: this.codeMode.missing(),
            },
          }
        : {}),
      missingRoots: this.roots.missing(),
      confinement: {
        mode: this.confinement.mode,
        abi: this.confinement.abi,
        status: this.confinement.status,
        wall: this.confinement.wall,
      },
    };
  }

  /** A sandbox's server, just bound to its session: its workspace gets `outputs/`, where artifacts go. */
  prepareSandbox(): void {
    this.fileTools?.ensureOutputs();
  }

  setSessionsGauge(gauge: () => number): void {
    this.sessionsGauge = gauge;
  }

  readiness(): ReadyState {
    const missingRoots = this.roots.missing();
    const optional = new Set(this.presetStatus.flatMap((p) => p.optionalMissing));
    const missingBinaries = [
      ...this.commands.missing().filter((b) => !optional.has(b)),
      ...(this.codeMode?.missing() ?? []),
    ];
    const { mode, abi, status, wall } = this.confinement;
    return {
      ready: !this.draining && missingRoots.length === 0 && missingBinaries.length === 0,
      confinement: { mode, abi, status, wall },
      missingRoots,
      missingBinaries,
      draining: this.draining,
    };
  }

  async callTool(name: string, rawArgs: unknown, ctx: CallContext = {}): Promise<CallToolResult> {
    const entry = this.tools.get(name);
    if (entry === undefined) throw new UnknownToolError(name);
    const started = performance.now();
    const audit: AuditRecord = {
      event: 'audit',
      time: '',
      toolchain: this.config.name,
      tool: name,
      argv: null,
      cwd: null,
      envNames: null,
      decision: 'allowed',
      rule: null,
      code: null,
      exitCode: null,
      signal: null,
      durationMs: 0,
      stdoutBytes: null,
      stderrBytes: null,
      truncated: false,
      timedOut: false,
      cancelled: false,
      session: hashSession(ctx.sessionId),
      confinement: {
        abi: this.confinement.abi,
        mode: this.confinement.mode,
        killed: null,
        wall: this.confinement.wall,
      },
      egress: false,
      run: ctx.run ?? null,
      trace: null,
    };
    const span = this.tracer.start(`tools/call ${name}`, {
      kind: 'server',
      parent: ctx.trace,
      class: 'local-execution',
    });
    if (span.recording || ctx.trace) audit.trace = span.context.traceId;
    span
      .set('toolyard.component', 'toolchain-server')
      .set('toolyard.toolchain', this.config.name)
      .set('mcp.method.name', 'tools/call')
      .set('gen_ai.operation.name', 'execute_tool')
      .set('gen_ai.tool.name', name);
    this.spans.set(audit, span);
    this.inFlight++;
    try {
      if (this.draining) throw new ToolError('TOOLYARD_SHUTTING_DOWN', 'the server is shutting down.');
      if (entry === 'run_code') return await this.runCode(rawArgs, ctx, audit, started);
      if (entry === 'file') {
        const result = (this.fileTools as FileTools).call(name as FileToolName, rawArgs);
        audit.cwd = result.target;
        this.finishAudit(audit, started, 'ok');
        return { content: [{ type: 'text', text: result.text }], structuredContent: result.structured };
      }
      if (entry === 'describe') {
        const description = await this.describe();
        this.finishAudit(audit, started, 'ok');
        return {
          content: [{ type: 'text', text: describeText(description) }],
          structuredContent: description as unknown as Record<string, unknown>,
        };
      }
      return await this.runExecTool(entry, rawArgs, ctx, audit, started);
    } catch (error) {
      return this.failure(error, audit, started, ctx.signal);
    } finally {
      // An internal fault (rethrown by failure) ends its span here, marked as such.
      span.fail('internal error').end();
      this.inFlight--;
      if (this.inFlight === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }

  private async runExecTool(
    tool: ExecTool,
    rawArgs: unknown,
    ctx: CallContext,
    audit: AuditRecord,
    started: number,
  ): Promise<CallToolResult> {
    const parsed = (tool.input as z.ZodType).safeParse(rawArgs ?? {});
    if (!parsed.success) {
      const detail = parsed.error.issues
        .map((i) => `${i.path.length ? `/${i.path.map(String).join('/')}` : '/'}: ${i.message}`)
        .join('; ');
      throw new ToolError('TOOLYARD_INVALID_ARGUMENTS', `invalid arguments for ${tool.name}: ${detail}`);
    }
    const input = parsed.data as { cwd?: string; timeoutSeconds?: number };
    const limits = this.config.limits;
    const timeoutSeconds = input.timeoutSeconds ?? limits.defaultTimeoutSeconds;
    if (timeoutSeconds > limits.maxTimeoutSeconds) {
      throw new ToolError(
        'TOOLYARD_TIMEOUT_EXCEEDS_MAX',
        `timeoutSeconds ${timeoutSeconds} is above the maximum.`,
        {
          rule: 'timeout-limit',
          allowed: `at most ${limits.maxTimeoutSeconds} seconds`,
        },
      );
    }
    audit.cwd = input.cwd ?? null;
    const cwd = this.roots.resolveCwd(input.cwd);
    audit.cwd = cwd;
    const planCtx: PlanContext = {
      cwd,
      roots: this.roots,
      has: (b) => this.commands.list().some((c) => c.name === b && c.path !== undefined),
      pathOf: (b) => this.commands.list().find((c) => c.name === b)?.path,
      caches: this.config.caches,
    };
    const plan = tool.plan(parsed.data as CommonInput, planCtx);
    audit.argv = [plan.command, ...plan.args];
    const span = this.spans.get(audit);
    if (span?.recording) {
      const routing = this.routing.of(plan.command);
      span.set('toolyard.routing.decision', routing.decision).set('toolyard.routing.reason', routing.reason);
    }
    this.commands.assertAllowed(plan.command, this.allowedByTool.get(tool.name) ?? new Set());
    const callerEnv = tool.callerEnv?.(parsed.data as CommonInput);
    if (callerEnv) audit.envNames = Object.keys(callerEnv);
    const fetch = tool.fetch === true;
    const proxied = this.proxied(fetch);
    audit.egress = proxied;
    const base = proxied ? this.proxiedEnv : this.baseEnv;
    const env = {
      ...applyCallerEnv(plan.env ? { ...base, ...plan.env } : base, callerEnv, this.callerAllowed),
      ...commandEnvironment(plan.command, this.roots.real, proxied ? this.httpProxy : undefined),
      ...(proxied ? {} : this.offlineEnv),
    };
    const program = this.commands.programOf(plan.command);
    const args = approveArgv(plan.command, plan.args, {
      cwd,
      paths: this.roots,
      posixlyCorrect: env.POSIXLY_CORRECT !== undefined,
      ...(program ? { program } : {}),
      confinement:
        this.confinement.status === 'enforced' && this.policies
          ? { enforced: true }
          : { enforced: false, status: this.confinement.status },
    });
    audit.argv = [plan.command, ...args];
    // The policy decides before availability: a refused argv is refused whether or not the tool is installed.
    const file = this.commands.pathOf(plan.command);

    // The cwd checked is the cwd used: opened now, the command started in it through its descriptor.
    const pinned = PinnedCwd.open(cwd);
    let release: () => void;
    try {
      // A program's call of this toolchain's own tools runs inside the run's slot (bounded by its own limits):
      // waiting for another slot could wait for the run itself.
      const queued = ctx.run === undefined && this.limiter.active >= this.limiter.maxConcurrency;
      release = ctx.run === undefined ? await this.limiter.acquire(ctx.signal) : () => {};
      try {
        pinned.assertUnchanged();
        // Earlier calls ran while this one waited: the operands below the cwd are checked again.
        if (queued)
          approveArgv(plan.command, plan.args, {
            cwd,
            paths: this.roots,
            posixlyCorrect: env.POSIXLY_CORRECT !== undefined,
          });
      } catch (error) {
        release();
        throw error;
      }
    } catch (error) {
      pinned.close();
      throw error;
    }
    let result: RunResult | undefined;
    let pgid: number | undefined;
    let scratch: CallScratch | undefined;
    // A tool's own scratch paths (plan.scratchEnv) need a scratch directory even when calls are not confined.
    let ownScratch: string | undefined;
    // The process's own span (from spawn to exit), and the context its command continues (TRACEPARENT).
    const child = this.processSpan(span, ctx.trace, plan.command);
    try {
      scratch = this.callScratch();
      if (plan.scratchEnv && !scratch) ownScratch = mkdtempSync(join(tmpdir(), 'toolyard-call-'));
      const scratchDir = scratch?.dir ?? ownScratch;
      const scratchEnv = Object.fromEntries(
        Object.entries(plan.scratchEnv ?? {}).map(([name, relative]) => [name, join(scratchDir!, relative)]),
      );
      const helperArgs = this.confineArgs(scratch, timeoutSeconds * 1000, this.killGraceMs, fetch);
      result = await this.run(helperArgs, pinned.id, {
        file,
        argv0: plan.command,
        args,
        // Confined, the helper enters the checked path only if it is still that directory (pinned.id).
        cwd: helperArgs ? pinned.path : pinned.spawnPath,
        env: {
          ...withTraceContext(
            this.confinedEnv(env, scratch),
            child,
            ctx.trace,
            proxied ? this.proxyTrace : undefined,
          ),
          ...scratchEnv,
        },
        timeoutMs: timeoutSeconds * 1000,
        maxOutputBytes: limits.maxOutputBytes,
        killGraceMs: this.killGraceMs,
        signal: ctx.signal,
        progressIntervalMs: ctx.sendProgress ? this.progressIntervalMs : undefined,
        onProgress: ctx.sendProgress
          ? (p) =>
              ctx.sendProgress?.(
                p.elapsedMs / 1000,
                `${plan.command} running for ${Math.round(p.elapsedMs / 1000)}s, ${p.stdoutBytes + p.stderrBytes} bytes of output`,
              )
          : undefined,
        onGroup: (next) => {
          this.groups.track(pgid, next);
          pgid = next;
        },
      });
    } finally {
      release();
      pinned.close();
      this.endCall(scratch, result?.confineReport);
      if (ownScratch) rmSync(ownScratch, { recursive: true, force: true });
      if (child.recording) endProcessSpan(child, result);
    }
    this.checkConfinement(result, audit, cwd);
    const structured: ExecResult = {
      exitCode: result.exitCode,
      signal: result.signal,
      stdout: result.stdout,
      stderr: result.stderr,
      durationMs: result.durationMs,
      truncated: result.truncated,
      timedOut: result.timedOut,
      stdoutBytes: result.stdoutBytes,
      stderrBytes: result.stderrBytes,
      stdoutDroppedBytes: result.stdoutDroppedBytes,
      stderrDroppedBytes: result.stderrDroppedBytes,
      argv: [plan.command, ...args],
      cwd,
    };
    audit.exitCode = result.exitCode;
    audit.signal = result.signal;
    audit.stdoutBytes = result.stdoutBytes;
    audit.stderrBytes = result.stderrBytes;
    audit.truncated = result.truncated;
    audit.timedOut = result.timedOut;
    audit.cancelled = result.cancelled;
    if (result.truncated) this.metrics.truncations.inc();
    if (result.timedOut) this.metrics.timeouts.inc();
    if (result.cancelled) {
      audit.decision = 'error';
      audit.code = 'TOOLYARD_CANCELLED';
    }
    const outcome: CallOutcome = result.cancelled
      ? 'cancelled'
      : result.timedOut
        ? 'timeout'
        : result.exitCode === 0
          ? 'ok'
          : 'nonzero';
    this.finishAudit(audit, started, outcome, tool.name);
    return {
      content: [{ type: 'text', text: summarize(structured, timeoutSeconds) }],
      structuredContent: structured as unknown as Record<string, unknown>,
      isError: outcome !== 'ok',
    };
  }

  /** `run_code`: one confined program run (docs/code-mode.md), in one of the toolchain's slots. */
  private async runCode(
    rawArgs: unknown,
    ctx: CallContext,
    audit: AuditRecord,
    started: number,
  ): Promise<CallToolResult> {
    const codeMode = this.codeMode as CodeMode;
    const parsed = runCodeInput.safeParse(rawArgs ?? {});
    if (!parsed.success) {
      const detail = parsed.error.issues
        .map((i) => `${i.path.length ? `/${i.path.map(String).join('/')}` : '/'}: ${i.message}`)
        .join('; ');
      throw new ToolError('TOOLYARD_INVALID_ARGUMENTS', `invalid arguments for run_code: ${detail}`);
    }
    const input: RunCodeInput = parsed.data;
    const limits = this.config.limits;
    const timeoutSeconds = input.timeoutSeconds ?? limits.defaultTimeoutSeconds;
    if (timeoutSeconds > limits.maxTimeoutSeconds)
      throw new ToolError(
        'TOOLYARD_TIMEOUT_EXCEEDS_MAX',
        `timeoutSeconds ${timeoutSeconds} is above the maximum.`,
        {
          rule: 'timeout-limit',
          allowed: `at most ${limits.maxTimeoutSeconds} seconds`,
        },
      );
    audit.cwd = input.cwd ?? null;
    const release = ctx.run === undefined ? await this.limiter.acquire(ctx.signal) : () => {};
    let ran: Awaited<ReturnType<CodeMode['run']>>;
    try {
      const span = this.spans.get(audit);
      ran = await codeMode.run(input, {
        signal: ctx.signal,
        timeoutSeconds,
        trace: { tracer: this.tracer, parent: span?.recording ? span.context : ctx.trace },
      });
    } finally {
      release();
    }
    const { output, result } = ran;
    audit.run = output.runId;
    audit.argv = ran.argv;
    audit.cwd = ran.cwd;
    this.checkConfinement(result, audit, ran.cwd);
    audit.exitCode = result.exitCode;
    audit.signal = result.signal;
    audit.stdoutBytes = result.stdoutBytes;
    audit.stderrBytes = result.stderrBytes;
    audit.truncated = result.truncated;
    audit.timedOut = result.timedOut;
    audit.cancelled = result.cancelled && ctx.signal?.aborted === true;
    if (result.truncated) this.metrics.truncations.inc();
    if (result.timedOut) this.metrics.timeouts.inc();
    if (audit.cancelled) {
      audit.decision = 'error';
      audit.code = 'TOOLYARD_CANCELLED';
    }
    const outcome: CallOutcome = audit.cancelled
      ? 'cancelled'
      : result.timedOut
        ? 'timeout'
        : result.exitCode === 0 && output.error === null
          ? 'ok'
          : 'nonzero';
    this.finishAudit(audit, started, outcome, 'run_code');
    return {
      content: [{ type: 'text', text: summarizeRun(output, timeoutSeconds) }],
      structuredContent: output as unknown as Record<string, unknown>,
      isError: outcome !== 'ok',
    };
  }

  /**
   * Whether a call gets the broker proxy: with egressProxy, every call under `phase: always`, only fetch
   * tools' calls under `phase: fetch` (docs/confinement.md, "Caches and fetch phase").
   */
  private proxied(fetch: boolean): boolean {
    return this.httpProxy !== undefined && (this.config.egressProxy?.phase !== 'fetch' || fetch);
  }

  /** A child span of the call for its process: the confined command from spawn to exit. */
  processSpan(call: Span | undefined, remote: TraceContext | undefined, command: string): Span {
    const span = this.tracer.start(`exec ${command}`, {
      kind: 'internal',
      parent: call?.context ?? remote,
      class: 'local-execution',
    });
    return span.set('process.executable.name', command).set('toolyard.toolchain', this.config.name);
  }

  /** A fresh HOME/TMPDIR for one call (none when confinement is off). */
  private callScratch(): CallScratch | undefined {
    return this.scratchBase
      ? createCallScratch(this.scratchBase, this.config.env.set, this.confinement.helper !== undefined)
      : undefined;
  }

  private endCall(scratch: CallScratch | undefined, report: string | undefined): void {
    if (!scratch) return;
    scratch.remove(report);
    this.pinnedFiles.restore();
  }

  /** The child environment with the call's scratch dirs and the pinned tool configs (callers cannot override). */
  private confinedEnv(env: Record<string, string>, scratch: CallScratch | undefined): Record<string, string> {
    if (!scratch) return env;
    const pinned: Record<string, string> = {};
    for (const [name, value] of Object.entries(PINNED_CONFIG_ENV))
      pinned[name] = this.config.env.set[name] ?? value;
    return { ...env, ...pinned, ...scratch.env };
  }

  /** The helper's options for one call, or undefined when calls are not confined. */
  private confineArgs(
    scratch: CallScratch | undefined,
    timeoutMs: number,
    graceMs: number,
    fetch: boolean,
  ): string[] | undefined {
    const { helper, mode, helperFlags } = this.confinement;
    if (!helper || !this.policies || mode === 'off') return undefined;
    const policy = fetch ? this.policies.fetch : this.policies.other;
    // The helper's own timeout is a backstop for a server that died: the server's timer fires first.
    const args = helperArgs(policy, mode, scratch?.dir, timeoutMs + graceMs + 2000, graceMs);
    return [...helperFlags, ...args];
  }

  /**
   * Runs one command: confined, through the resident spawner (started on the first call; docs/confinement.md),
   * else a plain spawn.
   */
  private run(
    helperArgs: string[] | undefined,
    cwdId: string | undefined,
    req: RunRequest,
  ): Promise<RunResult> {
    if (!helperArgs || !this.confinement.helper) return runCommand(req);
    this.spawner ??= new ConfineSpawner(this.confinement.helper);
    return this.spawner.run({ ...req, helperArgs, cwdId });
  }

  /** Reads the helper's report into the audit line; a setup failure becomes a coded error. */
  private checkConfinement(result: RunResult, audit: AuditRecord, cwd: string): void {
    if (!this.confinement.helper || this.confinement.mode === 'off') return;
    const reports = parseReports(result.confineReport);
    const failed = reports.find((r) => r.error !== undefined);
    const applied = reports.find((r) => r.abi !== undefined);
    const done = reports.find((r) => r.killed !== undefined);
    const wall = applied?.wall as WallMechanism | undefined;
    audit.confinement = {
      abi: applied ? Number(applied.abi) : 0,
      mode: this.confinement.mode,
      killed: done ? Number(done.killed) : null,
      // What this call got: a node out of user namespaces at that moment gives the call the seccomp form.
      wall: wall && WALL_MECHANISMS.includes(wall) ? wall : 'off',
    };
    // A call stopped early (cancel, timeout) may have killed the helper before it reported: not a failure.
    if (result.cancelled || result.timedOut) return;
    if (failed?.error === 'exec')
      throw new ToolError('TOOLYARD_SPAWN_FAILED', `could not start the command: errno ${failed.errno}.`);
    // The helper enters the checked cwd only if the path still names the directory that was checked.
    if (failed?.error === 'cwd') throw cwdChanged(cwd);
    if (failed || !applied)
      throw new ToolError(
        'TOOLYARD_CONFINEMENT_FAILED',
        `the confinement helper failed (${failed ? `${failed.error}, errno ${failed.errno}` : `exit ${result.exitCode ?? result.signal}, no report`}); nothing ran.`,
      );
  }

  private failure(error: unknown, audit: AuditRecord, started: number, signal?: AbortSignal): CallToolResult {
    let toolError: ToolError;
    if (error instanceof ToolError) toolError = error;
    else if (signal?.aborted)
      toolError = new ToolError('TOOLYARD_CANCELLED', 'the call was cancelled before it ran.');
    else throw error; // an internal fault: the MCP layer turns it into a JSON-RPC -32603
    audit.decision = toolError.decision;
    audit.rule = toolError.rule ?? null;
    audit.code = toolError.code;
    if (toolError.decision === 'denied') this.metrics.recordDenial(toolError.rule ?? toolError.code);
    const outcome: CallOutcome =
      toolError.code === 'TOOLYARD_BUSY'
        ? 'busy'
        : toolError.code === 'TOOLYARD_CANCELLED'
          ? 'cancelled'
          : toolError.decision === 'denied'
            ? 'denied'
            : 'error';
    if (toolError.code === 'TOOLYARD_CANCELLED') audit.cancelled = true;
    this.finishAudit(audit, started, outcome);
    return {
      content: [{ type: 'text', text: toolError.describe() }],
      isError: true,
      _meta: {
        'dev.toolyard/error': {
          code: toolError.code,
          rule: toolError.rule ?? null,
          message: toolError.message,
          allowed: toolError.allowed ?? null,
        },
      },
    };
  }

  private finishAudit(
    audit: AuditRecord,
    started: number,
    outcome: CallOutcome,
    tool = audit.tool as string,
  ): void {
    const seconds = (performance.now() - started) / 1000;
    audit.durationMs = Math.round(seconds * 1e6) / 1e3;
    audit.time = new Date().toISOString();
    this.metrics.recordCall(tool, outcome, seconds);
    this.log(audit);
    const span = this.spans.get(audit);
    if (span?.recording) endCallSpan(span, audit, outcome);
  }

  async describe(): Promise<ToolchainDescription> {
    const versions = await Promise.race([
      this.versions,
      new Promise<Record<string, string | null>>((r) => setTimeout(() => r({}), 3000).unref()),
    ]);
    return {
      name: this.config.name,
      serverVersion: SERVER_VERSION,
      mode: this.config.tools.mode,
      tools: this.listedTools.map((t) => ({ name: t.name, description: t.description })),
      allowedCommands: this.config.tools.allowedCommands.map((name) => {
        const path = this.commands.list().find((c) => c.name === name)?.path;
        return { name, available: path !== undefined, version: versions[name] ?? null };
      }),
      presets: this.presetStatus.map((p) => ({
        name: p.preset,
        available: p.missing.length === 0,
        missingBinaries: p.missing,
        versions: Object.fromEntries(
          presetBinaries(p.preset as never, this.config.egressProxy !== undefined).required.map(
            (b) => [b, versions[b] ?? null] as const,
          ),
        ),
      })),
      handles: this.config.handles,
      limits: this.config.limits,
      workspaceRoots: this.config.workspaceRoots,
      caches: this.config.caches,
      egress: this.config.egressProxy ? this.config.egressProxy.phase : 'none',
    };
  }

  private async probeVersions(): Promise<Record<string, string | null>> {
    const out: Record<string, string | null> = {};
    const cwd = this.roots.primary ?? '/';
    await Promise.all(
      this.commands.list().map(async (c) => {
        if (c.path === undefined) return;
        const scratch = this.callScratch();
        let report: string | undefined;
        try {
          const r = await this.run(this.confineArgs(scratch, 5000, 500, false), undefined, {
            file: c.path,
            argv0: c.name,
            args: VERSION_ARGS[c.name] ?? ['--version'],
            cwd,
            // A version probe is no fetch: no proxy under `phase: fetch`, offline variables, caches as for builds.
            env: this.confinedEnv(
              this.proxied(false) ? this.proxiedEnv : { ...this.baseEnv, ...this.offlineEnv },
              scratch,
            ),
            timeoutMs: 5000,
            maxOutputBytes: 4096,
            killGraceMs: 500,
          });
          report = r.confineReport;
          const line = `${r.stdout}\n${r.stderr}`.split('\n').find((l) => l.trim() !== '');
          out[c.name] = r.exitCode === 0 && line ? line.trim().slice(0, 200) : null;
        } catch {
          out[c.name] = null;
        } finally {
          this.endCall(scratch, report);
        }
      }),
    );
    return out;
  }

  /** Refuses new calls, waits up to `graceMs` for running ones, then kills every remaining process group. */
  async drain(graceMs: number): Promise<{ killed: number }> {
    this.draining = true;
    if (this.inFlight > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, graceMs);
        this.idleWaiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    const killed = this.groups.size + (this.spawner?.calls ?? 0);
    // Confined calls end through their reapers (SIGTERM, then SIGKILL after the grace); unconfined ones by group.
    await Promise.all([this.spawner?.close(this.killGraceMs + 1000), this.groups.killAll(this.killGraceMs)]);
    this.codeMode?.close();
    if (this.scratchBase) rmSync(this.scratchBase, { recursive: true, force: true });
    return { killed };
  }

  get callsInFlight(): number {
    return this.inFlight;
  }
}

const SUMMARY_TAIL_BYTES = 2048;

/** The summary's tail of a stream: at most SUMMARY_TAIL_BYTES once sent (JSON-escaped, UTF-8). */
function tail(text: string): string {
  const kept = tailWithinSentBytes(text, SUMMARY_TAIL_BYTES);
  return kept.droppedBytes === 0 ? text : `…${kept.text}`;
}

/** The compact text a model reads first: outcome, then the tails of stderr and stdout. */
export function summarize(r: ExecResult, timeoutSeconds: number): string {
  const head = r.timedOut
    ? `timed out after ${timeoutSeconds}s (process group killed)`
    : r.exitCode === null
      ? `killed by ${r.signal ?? 'a signal'}`
      : `exit ${r.exitCode}`;
  const lines = [`${head} in ${Math.round(r.durationMs)} ms: ${r.argv.join(' ')}`];
  if (r.truncated)
    lines.push(
      `output truncated: ${r.stdoutDroppedBytes} bytes of stdout and ${r.stderrDroppedBytes} bytes of stderr dropped from the head`,
    );
  if (r.stderr.trim()) lines.push(`stderr (tail):\n${tail(r.stderr.trimEnd())}`);
  if (r.stdout.trim()) lines.push(`stdout (tail):\n${tail(r.stdout.trimEnd())}`);
  return lines.join('\n');
}

function describeText(d: ToolchainDescription): string {
  const lines = [
    `toolchain ${d.name} (${d.mode} mode), roots: ${d.workspaceRoots.join(', ')}`,
    `tools: ${d.tools.map((t) => t.name).join(', ')}`,
  ];
  if (d.allowedCommands.length)
    lines.push(
      `allowed commands: ${d.allowedCommands.map((c) => `${c.name}${c.available ? '' : ' (MISSING)'}`).join(', ')}`,
    );
  for (const p of d.presets)
    if (!p.available) lines.push(`preset ${p.name} unavailable: missing ${p.missingBinaries.join(', ')}`);
  if (d.egress === 'fetch')
    lines.push(
      'network: only the fetch tools reach registries (run them first); every other call is offline',
    );
  if (d.caches.length)
    lines.push(`caches: ${d.caches.map((c) => `${c.name} ${c.path} (${c.kind}, ${c.access})`).join('; ')}`);
  if (d.handles.commands.length || d.handles.files.length)
    lines.push(
      `handles: commands ${d.handles.commands.join(', ') || '-'}; files ${d.handles.files.join(', ') || '-'}`,
    );
  return lines.join('\n');
}

/** `path` resolved, when it is an executable file. */
function executable(path: string): string | undefined {
  try {
    const real = realpathSync(path);
    accessSync(real, fsConstants.X_OK);
    return real;
  } catch {
    return undefined;
  }
}

/** The first executable `name` on `PATH`, resolved. */
function onPath(name: string, path: string | undefined): string | undefined {
  for (const dir of (path ?? '').split(delimiter)) {
    if (!dir.startsWith('/')) continue;
    const found = executable(join(dir, name));
    if (found) return found;
  }
  return undefined;
}

/** The call's span gets what its audit line says, minus what it must never carry (argv beyond argv[0], cwd, env names). */
function endCallSpan(span: Span, audit: AuditRecord, outcome: CallOutcome): void {
  span
    .set('toolyard.decision', audit.decision)
    .set('toolyard.rule', audit.rule)
    .set('toolyard.code', audit.code)
    .set('process.executable.name', audit.argv?.[0])
    .set('process.exit.code', audit.exitCode)
    .set('process.exit.signal', audit.signal)
    .set('toolyard.stdout_bytes', audit.stdoutBytes)
    .set('toolyard.stderr_bytes', audit.stderrBytes)
    .set('toolyard.truncated', audit.truncated)
    .set('toolyard.timed_out', audit.timedOut)
    .set('toolyard.cancelled', audit.cancelled)
    .set('toolyard.confinement.abi', audit.confinement.abi)
    .set('toolyard.egress', audit.egress)
    .set('toolyard.session', audit.session)
    .set('toolyard.code_mode.run', audit.run);
  if (outcome !== 'ok') {
    const type = audit.code ?? (outcome === 'nonzero' ? 'nonzero-exit' : outcome);
    span.set('error.type', type).fail(type);
  }
  span.end();
}

/**
 * The child environment with the trace context the command continues: `TRACEPARENT` (and `TRACESTATE`), the
 * variables OpenTelemetry SDKs and tools such as Codex and Claude Code read for a parent. Set when the call is
 * traced or the caller sent a context; callers can never set these themselves (not on the caller allowlist).
 */
function withTraceContext(
  env: Record<string, string>,
  span: Span,
  remote: TraceContext | undefined,
  proxy?: ProxyTrace,
): Record<string, string> {
  if (!span.recording && !remote) return env;
  const context = span.context;
  return {
    ...(proxy ? withProxyUrl(env, proxy.plain, proxy.traced(context)) : env),
    TRACEPARENT: span.traceparent(),
    ...(context.tracestate ? { TRACESTATE: context.tracestate } : {}),
  };
}

/** A call's proxy URL (`plain`) and the same URL carrying a trace context (kit/proxy-user.ts). */
interface ProxyTrace {
  readonly plain: string;
  readonly traced: (context: TraceContext) => string;
}

function endProcessSpan(span: Span, result: RunResult | undefined): void {
  if (result) {
    span
      .set('process.exit.code', result.exitCode)
      .set('process.exit.signal', result.signal)
      .set('toolyard.stdout_bytes', result.stdoutBytes)
      .set('toolyard.stderr_bytes', result.stderrBytes)
      .set('toolyard.truncated', result.truncated)
      .set('toolyard.timed_out', result.timedOut);
    if (result.exitCode !== 0)
      span.set('error.type', result.timedOut ? 'timeout' : 'nonzero-exit').fail('the process failed');
  }
  span.end();
}
