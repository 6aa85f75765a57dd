/**
 * `run_code` (docs/code-mode.md): runs a short Python or JavaScript/TypeScript program as a confined call with no
 * network at all, which calls the toolchain's code-mode servers through the server. Free of the Toolchain class:
 * what it needs of its host (a confined spawn, the Landlock policy, the limiter, the audit sink) is `CodeModeHost`,
 * so a sandbox's server can run it too.
 */
import { randomUUID } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { z } from 'zod';
import type { LogSink } from '../../kit/audit-sink.ts';
import type { TraceContext } from '../../kit/trace-context.ts';
import { type Span, Tracer } from '../../kit/tracing.ts';
import type { CodeModeConfig, CodeModeLanguage } from '../config.ts';
import { ToolError } from '../errors.ts';
import { PinnedCwd } from '../pinned-cwd.ts';
import type { RunRequest, RunResult } from '../runner.ts';
import { tailWithinSentBytes } from '../sent-size.ts';
import { RunChannel } from './channel.ts';
import { NODE_PRELUDE, PYTHON_PRELUDE } from './preludes.ts';
import {
  CodeCallError,
  callValue,
  rankTools,
  type SelfTarget,
  summaryLine,
  type Target,
  Targets,
  type TargetTool,
  unknownTool,
} from './targets.ts';

/** Languages a run names: `node` enables both JavaScript and TypeScript. */
export const RUN_LANGUAGES = ['python', 'javascript', 'typescript'] as const;
export type RunLanguage = (typeof RUN_LANGUAGES)[number];

const FILE_NAMES: Record<RunLanguage, string> = {
  python: 'main.py',
  javascript: 'main.mjs',
  typescript: 'main.mts',
};

/** One frame from the program may be at most this long (a call's arguments, or the return value). */
export const MAX_FRAME_BYTES = 4 * 1024 * 1024;
/** Replies the program leaves unread beyond this end the run. */
const MAX_PENDING_REPLY_BYTES = 16 * 1024 * 1024;
/** Frames of one run besides its calls (discovery, the result): beyond this the run is ended as a flood. */
const MAX_OTHER_FRAMES = 1000;
/** Outputs reported per run, and entries of outputs/ looked at to find them. */
const MAX_OUTPUTS = 200;
const MAX_OUTPUT_ENTRIES = 20000;

export const runCodeInput = z
  .object({
    language: z.enum(RUN_LANGUAGES),
    code: z.string().min(1),
    timeoutSeconds: z.number().int().positive().optional(),
    cwd: z.string().optional(),
  })
  .strict();
export type RunCodeInput = z.infer<typeof runCodeInput>;

export const runCodeOutput = z.object({
  runId: z.string(),
  language: z.enum(RUN_LANGUAGES),
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  timedOut: z.boolean(),
  durationMs: z.number(),
  stdout: z.string(),
  stderr: z.string(),
  stdoutBytes: z.number().int(),
  stderrBytes: z.number().int(),
  truncated: z.boolean(),
  returnValue: z.unknown(),
  error: z.string().nullable(),
  outputs: z.array(z.object({ path: z.string(), size: z.number().int() })),
  mcpCalls: z.array(
    z.object({ server: z.string(), tool: z.string(), durationMs: z.number(), ok: z.boolean() }),
  ),
});
export type RunCodeOutput = z.infer<typeof runCodeOutput>;

/** The description: the same length whatever the servers (they are found with list_servers). */
export function runCodeDescription(languages: readonly CodeModeLanguage[]): string {
  const langs = [
    ...(languages.includes('python') ? ['python'] : []),
    ...(languages.includes('node') ? ['javascript', 'typescript'] : []),
  ].join(', ');
  return [
    `Runs a short program (${langs}) in a fresh confined process with no network, on the workspace (read-only) with`,
    'outputs/ and a scratch HOME writable. The program calls MCP tools of the servers it may use as',
    'mcp_<server>.<tool>(args) and finds them with list_servers(), list_tools(server), query_tool_docs(server, tool),',
    'search_tool_docs(query) and capability_summary(). Python: calls block, <tool>_async(...) awaits; the value of',
    'the last expression is returned. JavaScript/TypeScript (ES module, top-level await): calls return promises;',
    '`export default` is returned. Only stdout, stderr, the returned value (JSON), files written to outputs/ and a',
    'list of the MCP calls come back: prefer it to many direct tool calls when results need filtering or joining.',
  ].join(' ');
}

/** What code mode needs of the server that runs it. */
export interface CodeModeHost {
  readonly toolchain: string;
  readonly log: LogSink;
  readonly workspaceRoot: () => string | undefined;
  /** Resolves a program's start directory inside the roots (throws the usual cwd errors). */
  readonly resolveCwd: (requested: string | undefined) => string;
  /** Why runs cannot be confined here, or undefined when they can (Landlock enforced, helper present). */
  readonly unavailable: () => string | undefined;
  /** Where run directories go: a directory of the server's that no other call may open. */
  readonly scratchBase: () => string;
  /** A fresh HOME/TMPDIR for the call and its variables. */
  readonly callScratch: () => {
    dir: string;
    env: Readonly<Record<string, string>>;
    remove: (report?: string) => void;
  };
  /** The helper's options for a code-mode call (Landlock policy, scopes, no connect). */
  readonly helperArgs: (extra: {
    scratch: string;
    readOnly: readonly string[];
    readWrite: readonly string[];
    timeoutMs: number;
  }) => string[];
  /** Runs one confined call through the spawner. */
  readonly spawn: (helperArgs: string[], cwdId: string, req: RunRequest) => Promise<RunResult>;
  /** The variables every program starts with (before HOME and TMPDIR). */
  readonly programEnv: Readonly<Record<string, string>>;
  readonly killGraceMs: number;
  readonly maxOutputBytes: number;
  /** The codebox binary and the interpreters, resolved at start (undefined: missing). */
  readonly codebox: string | undefined;
  readonly python: string | undefined;
  readonly node: string | undefined;
}

export interface RunContext {
  readonly signal?: AbortSignal | undefined;
  readonly timeoutSeconds: number;
  /**
   * Tracing (docs/observability.md): the `run_code` call's span, or the caller's context when it is not
   * recorded. The program gets a span of its own (its `TRACEPARENT`), each proxied MCP call a client span.
   */
  readonly trace?: { readonly tracer: Tracer; readonly parent: TraceContext | undefined } | undefined;
}

interface CallRecord {
  server: string;
  tool: string;
  durationMs: number;
  ok: boolean;
}

export class CodeMode {
  readonly config: NonNullable<CodeModeConfig>;
  readonly targets: Targets;
  private readonly host: CodeModeHost;

  constructor(config: NonNullable<CodeModeConfig>, host: CodeModeHost, self: SelfTarget) {
    this.config = config;
    this.host = host;
    this.targets = new Targets(config, host.toolchain, self);
  }

  /** Languages a run may name, with the interpreter each needs. */
  languages(): RunLanguage[] {
    return [
      ...(this.config.languages.includes('python') ? (['python'] as const) : []),
      ...(this.config.languages.includes('node') ? (['javascript', 'typescript'] as const) : []),
    ];
  }

  /** Interpreters the configured languages need and this image lacks (reported at start and on /readyz). */
  missing(): string[] {
    return [
      ...(this.config.languages.includes('python') && !this.host.python ? ['python3'] : []),
      ...(this.config.languages.includes('node') && !this.host.node ? ['node'] : []),
      ...(this.host.codebox ? [] : ['toolyard-codebox']),
    ];
  }

  /** Runs one program; throws ToolError for what prevents it from running. */
  async run(
    input: RunCodeInput,
    ctx: RunContext,
  ): Promise<{ output: RunCodeOutput; argv: string[]; cwd: string; result: RunResult }> {
    const host = this.host;
    const why = host.unavailable();
    if (why) throw new ToolError('TOOLYARD_CODE_MODE_UNAVAILABLE', why);
    if (!this.languages().includes(input.language))
      throw new ToolError(
        'TOOLYARD_CODE_MODE_UNAVAILABLE',
        `this toolchain's code mode runs ${this.languages().join(', ')}, not ${input.language}.`,
      );
    const code = Buffer.from(input.code, 'utf8');
    if (code.length > this.config.limits.maxCodeBytes)
      throw new ToolError(
        'TOOLYARD_INVALID_ARGUMENTS',
        `the program has ${code.length} bytes, more than codeMode.limits.maxCodeBytes (${this.config.limits.maxCodeBytes}).`,
      );
    const interpreter = input.language === 'python' ? host.python : host.node;
    if (!interpreter || !host.codebox)
      throw new ToolError(
        'TOOLYARD_CODE_MODE_UNAVAILABLE',
        `this image cannot run ${input.language}: ${this.missing().join(', ')} not found at start.`,
      );
    const start = host.resolveCwd(input.cwd);
    const root = host.workspaceRoot();
    if (!root) throw new ToolError('TOOLYARD_CWD_NOT_FOUND', 'no workspace root exists.');
    const outputs = openOutputs(root);

    const runId = randomUUID();
    const runDir = join(host.scratchBase(), `run-${runId}`);
    mkdirSync(runDir, { mode: 0o700 });
    const mainFile = join(runDir, FILE_NAMES[input.language]);
    writeFileSync(mainFile, code, { mode: 0o400 });
    const scratch = host.callScratch();
    const limits = this.config.limits;
    const memory = limits.memoryMiB * 1024 * 1024;
    const interpreterArgs =
      input.language === 'python'
        ? ['-I', '-B', '-u', '-c', PYTHON_PRELUDE]
        : [
            `--max-old-space-size=${limits.memoryMiB}`,
            '--disable-warning=ExperimentalWarning',
            '--input-type=module',
            '--eval',
            NODE_PRELUDE,
            '--',
          ];
    const names = JSON.stringify(this.targets.list.map((t) => t.name));
    const args = [
      '--channel',
      runDir,
      // V8 reserves (and counts as data) 512 MiB of code range it does not use: Node's limit is above it.
      '--data',
      String(input.language === 'python' ? memory : memory + 640 * 1024 * 1024),
      '--cpu',
      String(ctx.timeoutSeconds + 1),
      '--nproc',
      String(limits.processes),
      '--fsize',
      String(limits.fileSizeMiB * 1024 * 1024),
      '--nofile',
      '1024',
      '--',
      interpreter,
      ...interpreterArgs,
      mainFile,
      start,
      names,
    ];
    const timeoutMs = ctx.timeoutSeconds * 1000;
    const helperArgs = host.helperArgs({
      scratch: scratch.dir,
      readOnly: [host.codebox, interpreter],
      readWrite: [runDir, '.'],
      timeoutMs,
    });

    const tracer = ctx.trace?.tracer ?? Tracer.off;
    const program = tracer
      .start(`run_code ${input.language}`, {
        kind: 'internal',
        parent: ctx.trace?.parent,
        class: 'local-execution',
      })
      .set('toolyard.component', 'code-mode')
      .set('toolyard.toolchain', host.toolchain)
      .set('toolyard.code_mode.run', runId)
      .set('process.executable.name', basename(interpreter));
    const traced = program.recording || ctx.trace?.parent !== undefined;
    const session = new RunSession(
      runId,
      this.targets,
      limits,
      host.log,
      host.toolchain,
      tracer,
      traced ? program : undefined,
    );
    const stop = new AbortController();
    const channel = new RunChannel(
      runDir,
      { maxFrameBytes: MAX_FRAME_BYTES, maxPendingReplyBytes: MAX_PENDING_REPLY_BYTES },
      (frame) => session.receive(frame),
      (violation) => {
        session.violation ??= violation;
        stop.abort();
      },
    );
    session.reply = (message) => channel.send(message);
    session.onFlood = (why) => {
      session.violation ??= why;
      stop.abort();
    };
    const signal = ctx.signal ? AbortSignal.any([ctx.signal, stop.signal]) : stop.signal;
    channel.listen();
    const before = outputsState(outputs.path);
    let result: RunResult | undefined;
    try {
      result = await host.spawn(helperArgs, outputs.id, {
        file: host.codebox,
        argv0: basename(interpreter),
        args,
        cwd: outputs.path,
        env: {
          ...host.programEnv,
          ...scratch.env,
          ...(traced ? { TRACEPARENT: program.traceparent() } : {}),
        },
        timeoutMs,
        maxOutputBytes: host.maxOutputBytes,
        killGraceMs: host.killGraceMs,
        signal,
      });
    } finally {
      channel.close();
      session.end();
      outputs.close();
      scratch.remove(result?.confineReport);
      rmSync(runDir, { recursive: true, force: true });
      program.set('process.exit.code', result?.exitCode).set('toolyard.timed_out', result?.timedOut);
      if (result?.exitCode !== 0) program.set('error.type', 'nonzero-exit').fail('the program failed');
      program.end();
    }
    const returned = session.returned;
    const output: RunCodeOutput = {
      runId,
      language: input.language,
      exitCode: result.exitCode,
      signal: result.signal,
      timedOut: result.timedOut,
      durationMs: result.durationMs,
      stdout: result.stdout,
      stderr: result.stderr,
      stdoutBytes: result.stdoutBytes,
      stderrBytes: result.stderrBytes,
      truncated: result.truncated,
      returnValue: returned.value ?? null,
      error:
        session.violation !== undefined
          ? `the run was ended: ${session.violation}`
          : (returned.error ?? (result.timedOut ? `timed out after ${ctx.timeoutSeconds}s` : null)),
      outputs: changedOutputs(outputs.path, root, before),
      mcpCalls: session.calls,
    };
    return { output, argv: [basename(interpreter), FILE_NAMES[input.language]], cwd: start, result };
  }

  close(): void {
    this.targets.close();
  }
}

/**
 * `<root>/outputs`, made when missing and opened as the directory it is (never through a symbolic link): the helper
 * enters it only if the path still names that directory, and grants the program writes there through `.`, so a
 * swap of `outputs` after the check cannot point the grant elsewhere.
 */
function openOutputs(root: string): PinnedCwd {
  const path = join(root, 'outputs');
  try {
    mkdirSync(path, { mode: 0o755 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST')
      throw outputsRefused(path, (error as Error).message);
  }
  const stat = lstatSync(path);
  if (!stat.isDirectory()) throw outputsRefused(path, 'it is not a directory (a symbolic link is refused)');
  try {
    return PinnedCwd.open(realpathSync(path));
  } catch {
    throw outputsRefused(path, 'it was replaced while it was opened');
  }
}

function outputsRefused(path: string, why: string): ToolError {
  return new ToolError('TOOLYARD_CWD_NOT_FOUND', `${path} cannot take the program's outputs: ${why}.`, {
    allowed: 'a plain directory outputs/ at the top of the workspace, or none (the server makes it)',
  });
}

/** Every file under outputs/ (without following links) with what identifies its content: inode, size, mtime. */
function outputsState(dir: string): Map<string, { size: number; stamp: string }> {
  const files = new Map<string, { size: number; stamp: string }>();
  let seen = 0;
  const walk = (at: string) => {
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(at, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (++seen > MAX_OUTPUT_ENTRIES) return;
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile())
        try {
          const s = lstatSync(path, { bigint: true });
          files.set(path, { size: Number(s.size), stamp: `${s.ino}:${s.size}:${s.mtimeNs}` });
        } catch {}
    }
  };
  walk(dir);
  return files;
}

/** Files under outputs/ the run created or changed, relative to the workspace root. */
function changedOutputs(
  dir: string,
  root: string,
  before: ReadonlyMap<string, { size: number; stamp: string }>,
): Array<{ path: string; size: number }> {
  const out: Array<{ path: string; size: number }> = [];
  for (const [path, now] of outputsState(dir))
    if (before.get(path)?.stamp !== now.stamp) out.push({ path: relative(root, path), size: now.size });
  return out.sort((a, b) => a.path.localeCompare(b.path)).slice(0, MAX_OUTPUTS);
}

/** What one run asks of the server: its frames, its calls and their bounds, its audit lines. */
class RunSession {
  readonly calls: CallRecord[] = [];
  returned: { value?: unknown; error?: string } = {};
  violation: string | undefined;
  reply: (message: unknown) => void = () => {};
  onFlood: (why: string) => void = () => {};
  private readonly id: string;
  private readonly targets: Targets;
  private readonly limits: NonNullable<CodeModeConfig>['limits'];
  private readonly log: LogSink;
  private readonly toolchain: string;
  private readonly tracer: Tracer;
  /** The program's span, parent of each call's span; undefined when the run is not traced at all. */
  private readonly program: Span | undefined;
  private readonly abort = new AbortController();
  private readonly toolLists = new Map<Target, Promise<TargetTool[]>>();
  private callsStarted = 0;
  private otherFrames = 0;
  private inFlight = 0;

  constructor(
    id: string,
    targets: Targets,
    limits: NonNullable<CodeModeConfig>['limits'],
    log: LogSink,
    toolchain: string,
    tracer: Tracer,
    program: Span | undefined,
  ) {
    this.id = id;
    this.targets = targets;
    this.limits = limits;
    this.log = log;
    this.toolchain = toolchain;
    this.tracer = tracer;
    this.program = program;
  }

  receive(frame: unknown): void {
    const f = (frame && typeof frame === 'object' ? frame : {}) as Record<string, unknown>;
    const op = f.op;
    if (op !== 'call' && ++this.otherFrames > MAX_OTHER_FRAMES) {
      this.onFlood(`more than ${MAX_OTHER_FRAMES} frames besides calls`);
      return;
    }
    if (op === 'result') {
      if (typeof f.error === 'string') this.returned = { error: f.error.slice(0, 4096) };
      else this.returned = { value: f.value ?? null };
      return;
    }
    const id = f.id;
    if (typeof id !== 'number' || !Number.isSafeInteger(id)) return; // nobody to answer
    const answer = (work: () => Promise<unknown>) => {
      work().then(
        (value) => this.reply({ id, ok: true, value: value ?? null }),
        (error: unknown) =>
          this.reply({
            id,
            ok: false,
            error: {
              code: error instanceof CodeCallError ? error.code : 'TOOLYARD_CODE_MODE_CALL_FAILED',
              message: (error as Error)?.message ?? String(error),
            },
          }),
      );
    };
    switch (op) {
      case 'call':
        answer(() => this.call(f.server, f.tool, f.args));
        return;
      case 'list_servers':
        answer(async () =>
          this.targets.list.map((t) => ({ name: t.name, alias: `mcp_${t.alias}`, kind: t.kind })),
        );
        return;
      case 'list_tools':
        answer(async () =>
          (await this.tools(this.targets.resolve(f.server))).map((t) => ({
            name: t.name,
            description: summaryLine(t.description),
          })),
        );
        return;
      case 'query_tool_docs':
        answer(async () => {
          const tools = await this.tools(this.targets.resolve(f.server));
          if (f.tool === null || f.tool === undefined) return tools;
          const tool = tools.find((t) => t.name === f.tool || t.name === String(f.tool).replace(/_/g, '-'));
          if (!tool)
            throw new CodeCallError(
              'TOOLYARD_CODE_MODE_UNKNOWN_TOOL',
              `no tool ${JSON.stringify(f.tool)} on ${String(f.server)}`,
            );
          return tool;
        });
        return;
      case 'search_tool_docs':
        answer(async () => {
          const all = await Promise.all(
            this.targets.list.map(async (t) =>
              (await this.tools(t).catch(() => [])).map((tool) => ({ server: t.name, tool })),
            ),
          );
          const limit = typeof f.limit === 'number' ? f.limit : 5;
          return rankTools(String(f.query ?? ''), all.flat(), limit).map((r) => ({
            server: r.server,
            tool: r.tool.name,
            description: summaryLine(r.tool.description),
            inputSchema: r.tool.inputSchema,
          }));
        });
        return;
      case 'capability_summary':
        answer(async () => {
          const lines = await Promise.all(
            this.targets.list.map(async (t) => {
              const tools = await this.tools(t).catch((e: Error) => e);
              return tools instanceof Error
                ? `mcp_${t.alias} (${t.kind} ${t.name}): unreachable (${tools.message})`
                : `mcp_${t.alias} (${t.kind} ${t.name}): ${tools.length} tools: ${tools.map((x) => x.name).join(', ')}`;
            }),
          );
          return lines.length > 0
            ? lines.join('\n')
            : "no MCP servers are allowed to this toolchain's code mode";
        });
        return;
      default:
        answer(async () => {
          throw new CodeCallError('TOOLYARD_CODE_MODE_BAD_FRAME', `unknown op ${JSON.stringify(op)}`);
        });
    }
  }

  private tools(target: Target): Promise<TargetTool[]> {
    let list = this.toolLists.get(target);
    if (!list) {
      list = this.targets.tools(target, this.abort.signal);
      list.catch(() => this.toolLists.delete(target));
      this.toolLists.set(target, list);
    }
    return list;
  }

  private async call(server: unknown, tool: unknown, args: unknown): Promise<unknown> {
    const target = this.targets.resolve(server);
    if (typeof tool !== 'string' || !/^[A-Za-z0-9_.\-/]{1,128}$/.test(tool))
      throw new CodeCallError('TOOLYARD_CODE_MODE_BAD_FRAME', `${JSON.stringify(tool)} is not a tool name`);
    const given = args ?? {};
    if (typeof given !== 'object' || Array.isArray(given))
      throw new CodeCallError('TOOLYARD_CODE_MODE_BAD_FRAME', 'a tool takes its arguments as one object');
    if (this.callsStarted >= this.limits.maxCallsPerRun)
      throw new CodeCallError(
        'TOOLYARD_CODE_MODE_LIMIT',
        `this run made its ${this.limits.maxCallsPerRun} MCP calls (codeMode.limits.maxCallsPerRun)`,
      );
    if (this.inFlight >= this.limits.maxConcurrentCalls)
      throw new CodeCallError(
        'TOOLYARD_CODE_MODE_LIMIT',
        `${this.limits.maxConcurrentCalls} MCP calls of this run are running (codeMode.limits.maxConcurrentCalls): await some first`,
      );
    this.callsStarted++;
    this.inFlight++;
    const started = performance.now();
    let ok = false;
    let code: string | null = null;
    // A gateway holds authority from outside the toolchain; another toolchain (or this one) runs locally.
    const span = this.tracer
      .start(`tools/call ${tool}`, {
        kind: 'client',
        parent: this.program?.context,
        class: target.kind === 'gateway' ? 'external-authority' : 'local-execution',
      })
      .set('toolyard.component', 'code-mode')
      .set('toolyard.toolchain', this.toolchain)
      .set('toolyard.code_mode.run', this.id)
      .set('toolyard.code_mode.server', target.name)
      .set('mcp.method.name', 'tools/call')
      .set('gen_ai.operation.name', 'execute_tool')
      .set('gen_ai.tool.name', tool);
    const trace = this.program ? span.context : undefined;
    try {
      let result: unknown;
      try {
        result = await this.targets.call(
          target,
          tool,
          given as Record<string, unknown>,
          this.abort.signal,
          this.id,
          trace,
        );
      } catch (error) {
        // Python attribute names cannot hold dashes: mcp_x.get_issue may mean get-issue.
        const dashed = tool.replace(/_/g, '-');
        if (!unknownTool(error) || dashed === tool) throw error;
        const tools = await this.tools(target);
        if (!tools.some((t) => t.name === dashed)) throw error;
        result = await this.targets.call(
          target,
          dashed,
          given as Record<string, unknown>,
          this.abort.signal,
          this.id,
          trace,
        );
      }
      const value = callValue(result);
      ok = value.isError !== true;
      return value;
    } catch (error) {
      code = error instanceof CodeCallError ? error.code : 'TOOLYARD_CODE_MODE_CALL_FAILED';
      throw error instanceof CodeCallError ? error : new CodeCallError(code, (error as Error).message);
    } finally {
      this.inFlight--;
      if (!ok) span.set('error.type', code ?? 'tool-error').fail(code ?? 'the tool reported an error');
      span.set('toolyard.code', code).end();
      const durationMs = Math.round((performance.now() - started) * 1000) / 1000;
      this.calls.push({ server: target.name, tool, durationMs, ok });
      this.log({
        event: 'code-call',
        time: new Date().toISOString(),
        toolchain: this.toolchain,
        run: this.id,
        server: target.name,
        tool,
        ok,
        code,
        durationMs,
      });
    }
  }

  /** The run is over: calls still running are cancelled. */
  end(): void {
    this.abort.abort();
  }
}

/** The compact text a model reads first. */
export function summarizeRun(o: RunCodeOutput, timeoutSeconds: number): string {
  const head = o.timedOut
    ? `timed out after ${timeoutSeconds}s (every process of the run killed)`
    : o.exitCode === null
      ? `killed by ${o.signal ?? 'a signal'}`
      : `exit ${o.exitCode}`;
  const failed = o.mcpCalls.filter((c) => !c.ok).length;
  const lines = [
    `${head} in ${Math.round(o.durationMs)} ms (${o.language}); ${o.mcpCalls.length} MCP call${o.mcpCalls.length === 1 ? '' : 's'}${failed ? `, ${failed} failed` : ''}`,
  ];
  if (o.error) lines.push(`error: ${o.error}`);
  if (o.returnValue !== null && o.returnValue !== undefined)
    lines.push(`returned: ${clip(JSON.stringify(o.returnValue) ?? 'null')}`);
  if (o.outputs.length > 0)
    lines.push(`outputs: ${o.outputs.map((f) => `${f.path} (${f.size} B)`).join(', ')}`);
  if (o.stderr.trim()) lines.push(`stderr (tail):\n${clip(o.stderr.trimEnd(), true)}`);
  if (o.stdout.trim()) lines.push(`stdout (tail):\n${clip(o.stdout.trimEnd(), true)}`);
  return lines.join('\n');
}

function clip(text: string, tail = false): string {
  if (!tail) return text.length > 2048 ? `${text.slice(0, 2047)}…` : text;
  const kept = tailWithinSentBytes(text, 2048);
  return kept.droppedBytes === 0 ? text : `…${kept.text}`;
}
