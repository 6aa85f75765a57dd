/**
 * The sandbox manager's MCP tools, as backends see them: create or reuse a sandbox for a session key, run a
 * command in it, move files in and out, stop, resume, destroy, list. Every call is one audit line
 * (`sandbox-audit`); refusals are `isError: true` results whose text starts with a TOOLYARD_SANDBOX_* code.
 */
import { z } from 'zod';
import type { LogSink } from '../kit/audit-sink.ts';
import { writeAudit } from '../kit/audit-sink.ts';
import type { SpanClass } from '../kit/span-attributes.ts';
import type { TraceContext } from '../kit/trace-context.ts';
import { RUN_LANGUAGES } from '../src/code-mode/run-code.ts';
import { toJsonSchema } from '../src/tools/types.ts';
import type { SandboxManagerConfig } from './config.ts';
import { SandboxError } from './errors.ts';
import type { SandboxManager, SandboxView, ToolAnswer } from './manager.ts';
import { sessionHash, sessionObjectName } from './records.ts';

const sessionKey = z
  .string()
  .min(1)
  .max(200)
  .describe(
    'Names the session (a conversation or user id): the same key always returns the same sandbox, with its files.',
  );

const inputs = {
  sandbox_create: z
    .object({
      sessionKey,
      template: z.string().optional().describe('The sandbox template; default: the first one.'),
    })
    .strict(),
  sandbox_exec: z
    .object({
      sessionKey,
      command: z
        .array(z.string().max(65536))
        .min(1)
        .max(1024)
        .describe('argv of an allowed command, run without a shell in the sandbox workspace.'),
      cwd: z.string().max(4096).optional().describe('Working directory, relative to the workspace root.'),
      timeoutSeconds: z
        .number()
        .int()
        .positive()
        .optional()
        .describe('Timeout of the command (default 300).'),
      env: z
        .record(z.string(), z.string())
        .optional()
        .describe('Extra environment variables (an allowlist applies).'),
    })
    .strict(),
  sandbox_run_code: z
    .object({
      sessionKey,
      language: z
        .enum(RUN_LANGUAGES)
        .describe('python, javascript or typescript (types stripped), as the template allows.'),
      code: z
        .string()
        .min(1)
        .describe(
          "The program. Its last expression (Python) or default export (JS/TS) is the return value; files it writes under outputs/ are listed. With the template itself in codeMode.servers, it calls the sandbox's own tools as mcp_<template>.<tool>(args).",
        ),
      timeoutSeconds: z
        .number()
        .int()
        .positive()
        .optional()
        .describe('Timeout of the run (default 300); every process of the run is killed at it.'),
      cwd: z.string().max(4096).optional().describe('Working directory, relative to the workspace root.'),
    })
    .strict(),
  sandbox_upload: z
    .object({
      sessionKey,
      path: z.string().describe('Where to write, relative to the workspace root (directories are created).'),
      content: z.string().optional().describe('The content as UTF-8 text.'),
      contentBase64: z.string().optional().describe('The content, base64-encoded (binary files).'),
    })
    .strict(),
  sandbox_download: z
    .object({
      sessionKey,
      path: z.string().describe('The file, relative to the workspace root; artifacts go under outputs/.'),
    })
    .strict(),
  sandbox_list_files: z
    .object({
      sessionKey,
      path: z
        .string()
        .optional()
        .describe('The directory, relative to the workspace root; default the root.'),
      depth: z.number().int().min(1).max(4).optional().describe('Levels to descend (1-4), default 1.'),
    })
    .strict(),
  sandbox_stop: z.object({ sessionKey }).strict(),
  sandbox_resume: z.object({ sessionKey }).strict(),
  sandbox_destroy: z.object({ sessionKey }).strict(),
  sandbox_list: z.object({}).strict(),
} as const;

export type SandboxToolName = keyof typeof inputs;

const DESCRIPTIONS: Record<SandboxToolName, [string, string]> = {
  sandbox_create: [
    'Create or reuse a sandbox',
    'Gives this session a computer of its own: an isolated sandbox with a persistent workspace, from a warm pool when one is ready. The same sessionKey returns the same sandbox (resumed if it was stopped). Call it first; the other sandbox tools take the same sessionKey.',
  ],
  sandbox_exec: [
    'Run a command in a sandbox',
    "Runs an allowed command (argv, no shell) in the session's sandbox under the template's policy, confinement and audit; returns exit code, stdout and stderr tails. Write artifacts under outputs/.",
  ],
  sandbox_run_code: [
    'Run a program in a sandbox',
    "Runs a short Python or JavaScript/TypeScript program in the session's sandbox (templates with code mode), in a fresh confined process with no network: the workspace read-only but outputs/, memory, process and time limits. Returns stdout, stderr, the return value, the files written to outputs/ and the tool calls the program made (the sandbox's own tools, as mcp_<template>.<tool>(args), when the template allows them).",
  ],
  sandbox_upload: ['Upload a file to a sandbox', "Writes a file into the session's sandbox workspace."],
  sandbox_download: [
    'Download a file from a sandbox',
    "Reads a file of the session's sandbox workspace (an artifact under outputs/, typically): base64 and, for text, the text.",
  ],
  sandbox_list_files: ['List files of a sandbox', "Lists a directory of the session's sandbox workspace."],
  sandbox_stop: [
    'Stop a sandbox',
    "Stops the session's sandbox: its pod goes, its workspace stays until the retention period ends. Any later call resumes it.",
  ],
  sandbox_resume: ['Resume a sandbox', "Starts the session's stopped sandbox again, with its workspace."],
  sandbox_destroy: ['Destroy a sandbox', "Deletes the session's sandbox and its workspace for good."],
  sandbox_list: ['List sandboxes', "Lists this agent's sandboxes: session, template, state, times."],
};

const READ_ONLY = new Set<SandboxToolName>(['sandbox_list', 'sandbox_list_files', 'sandbox_download']);

export interface ListedSandboxTool {
  readonly name: SandboxToolName;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: { type: 'object'; [key: string]: unknown };
  readonly annotations: {
    readonly title: string;
    readonly readOnlyHint: boolean;
    readonly openWorldHint: boolean;
  };
}

export const SANDBOX_TOOLS: readonly ListedSandboxTool[] = (Object.keys(inputs) as SandboxToolName[]).map(
  (name) => {
    const [title, description] = DESCRIPTIONS[name];
    return {
      name,
      title,
      description,
      inputSchema: toJsonSchema(inputs[name], 'input') as ListedSandboxTool['inputSchema'],
      annotations: { title, readOnlyHint: READ_ONLY.has(name), openWorldHint: false },
    };
  },
);

/** The tools a manager of `config` lists: `sandbox_run_code` only when some template has code mode. */
export function sandboxToolsFor(
  config: Pick<SandboxManagerConfig, 'templates'>,
): readonly ListedSandboxTool[] {
  return config.templates.some((t) => t.codeMode)
    ? SANDBOX_TOOLS
    : SANDBOX_TOOLS.filter((t) => t.name !== 'sandbox_run_code');
}

/** The manager's audit line, field by field (docs/sandboxes.md lists them; a test keeps the two in sync). */
export const SANDBOX_AUDIT_FIELDS = {
  event: 'Always "sandbox-audit".',
  time: 'ISO-8601 time the call ended.',
  agent: 'The agent the manager serves.',
  tool: 'The MCP tool called.',
  session: 'First 20 hex digits of the SHA-256 of the session key (never the key), or null.',
  sandbox: 'The name of the session’s object (SandboxClaim, or Pod and claim), or null.',
  decision: '"allowed", "denied" (a quota, path or size refusal) or "error".',
  code: 'The TOOLYARD_SANDBOX_* code of a refusal or failure, or null.',
  durationMs: 'Wall time of the call.',
  state: 'The sandbox state after the call, or null.',
  launch: 'For sandbox_create: "warm" (from the pool) or "cold", when known, else null.',
  readyMs: 'For sandbox_create and sandbox_resume: milliseconds until the server was bound and ready.',
} as const;

/**
 * The class of each tool's span: what the manager does with its own Kubernetes authority
 * (`external-authority`), or what it runs in a sandbox through the sandbox's server (`local-execution`).
 */
const TOOL_CLASS: Record<SandboxToolName, SpanClass> = {
  sandbox_create: 'external-authority',
  sandbox_resume: 'external-authority',
  sandbox_stop: 'external-authority',
  sandbox_destroy: 'external-authority',
  sandbox_list: 'external-authority',
  sandbox_exec: 'local-execution',
  sandbox_run_code: 'local-execution',
  sandbox_upload: 'local-execution',
  sandbox_download: 'local-execution',
  sandbox_list_files: 'local-execution',
};

const DENIED = new Set([
  'TOOLYARD_SANDBOX_QUOTA',
  'TOOLYARD_SANDBOX_PATH_REFUSED',
  'TOOLYARD_SANDBOX_FILE_TOO_LARGE',
  'TOOLYARD_SANDBOX_TIMEOUT_EXCEEDS_MAX',
  'TOOLYARD_SANDBOX_TEMPLATE_MISMATCH',
  'TOOLYARD_SANDBOX_NO_CODE_MODE',
]);

function json(value: unknown, text: string): ToolAnswer {
  return {
    isError: false,
    content: [{ type: 'text', text }],
    structuredContent: value as Record<string, unknown>,
  };
}

function viewText(view: SandboxView): string {
  return `sandbox ${view.sandbox} (template ${view.template}) for session "${view.sessionKey}": ${view.state}`;
}

export class SandboxTools {
  private readonly manager: SandboxManager;
  private readonly log: LogSink;

  constructor(manager: SandboxManager, log: LogSink) {
    this.manager = manager;
    this.log = log;
  }

  /**
   * One tool call: its audit line and its server span (`tools/call <tool>`), which continues `trace` (the
   * caller's `params._meta.traceparent` or HTTP header) and is the parent of what the call does. The span gets
   * what the audit line says: the session key's hash, never the key; no argument, path or content.
   */
  async call(name: string, raw: unknown, trace?: TraceContext): Promise<ToolAnswer> {
    const started = performance.now();
    const record: Record<string, unknown> = {
      event: 'sandbox-audit',
      agent: this.manager.config.agent,
      tool: name,
      decision: 'allowed',
    };
    const span = this.manager.tracer
      .start(`tools/call ${name}`, {
        kind: 'server',
        parent: trace,
        class: TOOL_CLASS[name as SandboxToolName] ?? 'local-execution',
      })
      .set('toolyard.component', 'sandbox-manager')
      .set('toolyard.agent', this.manager.config.agent)
      .set('mcp.method.name', 'tools/call')
      .set('gen_ai.operation.name', 'execute_tool')
      .set('gen_ai.tool.name', name);
    const parent = span.recording ? span.context : trace;
    try {
      if (!(name in inputs))
        throw new SandboxError('TOOLYARD_SANDBOX_INVALID_ARGUMENTS', `unknown tool ${name}`);
      const parsed = inputs[name as SandboxToolName].safeParse(raw ?? {});
      if (!parsed.success)
        throw new SandboxError(
          'TOOLYARD_SANDBOX_INVALID_ARGUMENTS',
          `invalid arguments for ${name}: ${parsed.error.issues
            .map((i) => `${i.path.length ? `/${i.path.map(String).join('/')}` : '/'}: ${i.message}`)
            .join('; ')}`,
        );
      const input = parsed.data as Record<string, unknown>;
      if (typeof input.sessionKey === 'string') {
        record.session = sessionHash(input.sessionKey);
        record.sandbox = sessionObjectName(this.manager.config.agent, input.sessionKey);
      }
      const answer = await this.dispatch(name as SandboxToolName, input, record, parent);
      if (answer.isError) record.decision = 'error';
      return answer;
    } catch (error) {
      const failure =
        error instanceof SandboxError
          ? error
          : new SandboxError('TOOLYARD_SANDBOX_UNREACHABLE', (error as Error).message ?? String(error));
      record.decision = DENIED.has(failure.code) ? 'denied' : 'error';
      record.code = failure.code;
      return {
        isError: true,
        content: [{ type: 'text', text: failure.describe() }],
        structuredContent: {
          error: { code: failure.code, message: failure.message, hint: failure.hint ?? null },
        },
      };
    } finally {
      record.time = new Date().toISOString();
      record.durationMs = Math.round(performance.now() - started);
      writeAudit(this.log, SANDBOX_AUDIT_FIELDS, record);
      if (span.recording) {
        const key = typeof (raw as { sessionKey?: unknown } | null)?.sessionKey === 'string';
        span
          .set('toolyard.session', record.session as string | undefined)
          .set('toolyard.sandbox.name', record.sandbox as string | undefined)
          .set(
            'toolyard.sandbox.template',
            key && record.session
              ? this.manager.templateOf((raw as { sessionKey: string }).sessionKey)
              : undefined,
          )
          .set('toolyard.decision', record.decision as string)
          .set('toolyard.code', record.code as string | undefined);
        if (record.code) span.set('error.type', record.code as string).fail(record.code as string);
        else if (record.decision === 'error')
          span.set('error.type', 'tool-error').fail('the tool returned an error');
      }
      span.end();
    }
  }

  private async dispatch(
    name: SandboxToolName,
    input: Record<string, unknown>,
    record: Record<string, unknown>,
    parent: TraceContext | undefined,
  ): Promise<ToolAnswer> {
    const m = this.manager;
    const key = input.sessionKey as string;
    switch (name) {
      case 'sandbox_create':
      case 'sandbox_resume': {
        const outcome =
          name === 'sandbox_create'
            ? await m.create(key, input.template as string | undefined, parent)
            : await m.resume(key, parent);
        record.state = outcome.sandbox.state;
        record.launch = outcome.sandbox.launch;
        record.readyMs = outcome.readyMs;
        const how = outcome.created
          ? `created (${outcome.sandbox.launch ?? 'launch unknown'})`
          : outcome.resumed
            ? 'resumed'
            : 'reused';
        return json(outcome, `${viewText(outcome.sandbox)}; ${how}, ready in ${outcome.readyMs} ms`);
      }
      case 'sandbox_exec': {
        const answer = await m.exec(key, input as never, parent);
        record.state = 'running';
        return answer;
      }
      case 'sandbox_run_code': {
        const answer = await m.runCode(key, input as never, parent);
        record.state = 'running';
        return answer;
      }
      case 'sandbox_upload': {
        const content =
          typeof input.content === 'string'
            ? Buffer.from(input.content, 'utf8')
            : typeof input.contentBase64 === 'string'
              ? Buffer.from(input.contentBase64, 'base64')
              : undefined;
        if (
          content === undefined ||
          (typeof input.content === 'string' && typeof input.contentBase64 === 'string')
        )
          throw new SandboxError(
            'TOOLYARD_SANDBOX_INVALID_ARGUMENTS',
            'give exactly one of content and contentBase64',
          );
        record.state = 'running';
        return m.upload(key, input.path as string, content, parent);
      }
      case 'sandbox_download':
        record.state = 'running';
        return m.download(key, input.path as string, parent);
      case 'sandbox_list_files':
        record.state = 'running';
        return m.listFiles(key, input.path as string | undefined, input.depth as number | undefined, parent);
      case 'sandbox_stop':
      case 'sandbox_destroy': {
        const view = name === 'sandbox_stop' ? await m.stop(key, parent) : await m.destroy(key, parent);
        record.state = name === 'sandbox_stop' ? view.state : 'destroyed';
        return json(
          { sandbox: { ...view, state: record.state } },
          `${viewText({ ...view, state: record.state as never })}`,
        );
      }
      case 'sandbox_list': {
        const sandboxes = m.list();
        return json(
          { sandboxes },
          sandboxes.length === 0 ? 'no sandboxes' : sandboxes.map((s) => viewText(s)).join('\n'),
        );
      }
    }
  }
}
