/**
 * The MCP servers a code-mode program may call (`codeMode.servers`): each one's alias, its client (with the token
 * read once at start), and what one run asks of them — the allowlist check, calls with their bounds, and the
 * discovery helpers, answered from each target's real `tools/list`, cached for the run.
 */
import { readTokenFile } from '../../kit/token-file.ts';
import { formatTraceparent, type TraceContext } from '../../kit/trace-context.ts';
import type { CodeModeConfig } from '../config.ts';
import { McpClientError, McpHttpClient } from './mcp-client.ts';

/** A tool as a target lists it: what the discovery helpers return. */
export interface TargetTool {
  readonly name: string;
  readonly description?: string;
  readonly inputSchema?: unknown;
  readonly title?: string;
}

/** Calls into this toolchain itself, in process (its own policy, confinement and audit apply). */
export interface SelfTarget {
  listTools(): TargetTool[];
  callTool(
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    run: string,
    trace: TraceContext | undefined,
  ): Promise<unknown>;
}

export interface Target {
  readonly name: string;
  readonly alias: string;
  readonly kind: 'toolchain' | 'gateway';
  /** Absent for this toolchain itself. */
  readonly client?: McpHttpClient;
}

/** A refusal or failure the program sees as McpError with this code. */
export class CodeCallError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = 'CodeCallError';
    this.code = code;
  }
}

export class Targets {
  readonly list: readonly Target[];
  private readonly byName = new Map<string, Target>();
  private readonly self: SelfTarget;

  constructor(config: NonNullable<CodeModeConfig>, ownName: string, self: SelfTarget) {
    this.self = self;
    this.list = config.servers.map((server, i) => {
      const isSelf = server.kind === 'toolchain' && server.name === ownName;
      const token =
        !isSelf && server.tokenFile
          ? readTokenFile(server.tokenFile, `/codeMode/servers/${i}/tokenFile`)
          : undefined;
      return {
        name: server.name,
        alias: server.name.replace(/-/g, '_'),
        kind: server.kind,
        ...(isSelf || !server.url ? {} : { client: new McpHttpClient(server.url, token) }),
      };
    });
    for (const target of this.list) {
      this.byName.set(target.name, target);
      this.byName.set(target.alias, target);
    }
  }

  /** The target a program named (by name or alias), or a refusal that lists the allowed ones. */
  resolve(name: unknown): Target {
    const target = typeof name === 'string' ? this.byName.get(name) : undefined;
    if (target) return target;
    const allowed = this.list.map((t) => t.name).join(', ') || 'none';
    throw new CodeCallError(
      'TOOLYARD_CODE_MODE_SERVER_REFUSED',
      `${JSON.stringify(name)} is not a server this toolchain's code mode may call (allowed: ${allowed})`,
    );
  }

  /** One target's tools, from its `tools/list`. */
  async tools(target: Target, signal: AbortSignal): Promise<TargetTool[]> {
    if (!target.client) return this.self.listTools();
    const listed = await target.client.listTools(signal);
    return listed.map((t) => ({
      name: String(t.name),
      ...(typeof t.title === 'string' ? { title: t.title } : {}),
      ...(typeof t.description === 'string' ? { description: t.description } : {}),
      inputSchema: t.inputSchema,
    }));
  }

  async call(
    target: Target,
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    run: string,
    trace?: TraceContext,
  ): Promise<unknown> {
    if (!target.client) return this.self.callTool(tool, args, signal, run, trace);
    return target.client.callTool(
      tool,
      args,
      signal,
      trace ? { traceparent: formatTraceparent(trace), tracestate: trace.tracestate } : undefined,
    );
  }

  close(): void {
    for (const target of this.list) target.client?.close();
  }
}

/** What the program gets back from a call: the target's CallToolResult, plus its text content joined. */
export function callValue(result: unknown): Record<string, unknown> {
  const record = (result && typeof result === 'object' ? result : {}) as Record<string, unknown>;
  const content = Array.isArray(record.content) ? record.content : [];
  const text = content
    .map((c) =>
      c && typeof c === 'object' && (c as { type?: unknown }).type === 'text'
        ? (c as { text?: unknown }).text
        : undefined,
    )
    .filter((t): t is string => typeof t === 'string')
    .join('\n');
  return { ...record, isError: record.isError === true, text };
}

/** Is `message` the target saying it has no such tool (then the name is tried with dashes)? */
export function unknownTool(error: unknown): boolean {
  return error instanceof McpClientError && /unknown tool|not found/i.test(error.message);
}

/** The first line of a description, at most 200 characters: what list_tools shows. */
export function summaryLine(text: string | undefined): string {
  const line = (text ?? '').split('\n').find((l) => l.trim() !== '') ?? '';
  return line.length > 200 ? `${line.slice(0, 199)}…` : line.trim();
}

/** Tools ranked by how many of the query's words their name and description hold (name words count double). */
export function rankTools(
  query: string,
  tools: ReadonlyArray<{ readonly server: string; readonly tool: TargetTool }>,
  limit: number,
): Array<{ server: string; tool: TargetTool; score: number }> {
  const words = query
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1);
  if (words.length === 0) return [];
  return tools
    .map(({ server, tool }) => {
      const name = `${server} ${tool.name}`.toLowerCase();
      const text = `${tool.title ?? ''} ${tool.description ?? ''}`.toLowerCase();
      const score = words.reduce(
        (sum, w) => sum + (name.includes(w) ? 2 : 0) + (text.includes(w) ? 1 : 0),
        0,
      );
      return { server, tool, score };
    })
    .filter((r) => r.score > 0)
    .sort(
      (a, b) =>
        b.score - a.score || a.server.localeCompare(b.server) || a.tool.name.localeCompare(b.tool.name),
    )
    .slice(0, Math.max(1, Math.min(limit, 50)));
}
