/** What a tool is to the registry: a typed input, the binaries it needs, and how it turns input into argv. */
import { z } from 'zod';
import type { CacheConfig, ToolPreset } from '../config.ts';
import { ToolError } from '../errors.ts';
import type { WorkspaceRoots } from '../policy/cwd.ts';

export interface PlanContext {
  /** The confined, real working directory of the call. */
  readonly cwd: string;
  readonly roots: WorkspaceRoots;
  /** Binaries found on PATH at start, by name. */
  readonly has: (binary: string) => boolean;
  /** The absolute path a binary of the tool's resolved to at start, if found. */
  readonly pathOf: (binary: string) => string | undefined;
  /** The toolchain's declared caches (`caches` in the config). */
  readonly caches: readonly CacheConfig[];
}

export interface ExecPlan {
  /** A bare command name; resolved by the server's command table. */
  readonly command: string;
  readonly args: readonly string[];
  /** Extra variables set by the tool itself (trusted, not subject to the caller env policy). */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Variables naming a path inside the call's own scratch directory (relative to it), which is removed after the
   * call: what the tool writes there (uv_sync_fetch's throwaway environment) leaves nothing behind.
   */
  readonly scratchEnv?: Readonly<Record<string, string>>;
}

export interface CommonInput {
  readonly cwd?: string | undefined;
  readonly timeoutSeconds?: number | undefined;
}

export interface ExecTool<I extends CommonInput = CommonInput> {
  readonly kind: 'exec';
  readonly name: string;
  readonly title: string;
  readonly description: string;
  /** The preset it belongs to, or "exec" for exec_allowed. */
  readonly group: ToolPreset | 'exec';
  readonly input: z.ZodType<I>;
  /** Binaries every call needs; a missing one is reported at start and in describe_toolchain. */
  readonly binaries: readonly string[];
  /** Binaries used when present (e.g. tsc, with a fallback otherwise); missing ones do not fail readiness. */
  readonly optionalBinaries?: readonly string[];
  /** Builds the argv; throws ToolError for inputs the policy refuses. */
  plan(input: I, ctx: PlanContext): ExecPlan;
  /**
   * A structured fetch tool (docs/confinement.md, "Caches and fetch phase"): it fills package caches and runs
   * no project code, so under `egressProxy.phase: fetch` its calls alone get the proxy and write download caches.
   */
  readonly fetch?: boolean;
  /** For exec_allowed: the caller's env (checked by the env policy). */
  callerEnv?(input: I): Readonly<Record<string, string>> | undefined;
}

/**
 * An exec tool for the registry (presets and fetch tools alike), its input type erased; the input schema still
 * guards every call.
 */
export function execTool<I extends CommonInput>(
  group: ToolPreset,
  name: string,
  title: string,
  description: string,
  input: z.ZodType<I>,
  binaries: readonly string[],
  plan: (input: I, ctx: PlanContext) => ExecPlan,
  more: { readonly optionalBinaries?: readonly string[]; readonly fetch?: boolean } = {},
): ExecTool {
  const typed: ExecTool<I> = {
    kind: 'exec',
    group,
    name,
    title,
    description,
    input,
    binaries,
    plan,
    ...more,
  };
  return typed as unknown as ExecTool;
}

export const commonInputShape = {
  cwd: z
    .string()
    .max(4096)
    .optional()
    .describe(
      'Working directory, relative to the first workspace root or absolute inside a root. Default: the first root.',
    ),
  timeoutSeconds: z
    .number()
    .int()
    .positive()
    .optional()
    .describe(
      'Timeout for this call; defaults to limits.defaultTimeoutSeconds, at most limits.maxTimeoutSeconds.',
    ),
};

/** Refuses a value that a tool passes as a positional argument and that would be parsed as a flag. */
export function positional(value: string, field: string): string {
  if (value.startsWith('-'))
    throw new ToolError('TOOLYARD_FLAG_INJECTION', `${field} ${JSON.stringify(value)} starts with "-".`, {
      rule: 'flag-injection',
      allowed: `a ${field} that does not start with "-" (use ./-name for a file whose name starts with a dash)`,
    });
  if (value.includes('\0'))
    throw new ToolError('TOOLYARD_INVALID_ARGUMENTS', `${field} contains a NUL byte.`);
  return value;
}

/** A path argument: no leading dash, and it must resolve inside the workspace roots. Returns it unchanged. */
export function workspacePath(
  value: string,
  field: string,
  ctx: PlanContext,
  kind: 'file' | 'directory' | 'any' = 'any',
  /** Part of the value that is not a path, e.g. a pytest `::test_name` suffix. */
  stripSuffix?: RegExp,
): string {
  positional(value, field);
  const path = stripSuffix ? value.replace(stripSuffix, '') : value;
  ctx.roots.resolvePath(path, ctx.cwd, kind);
  return value;
}

export const packageName = z
  .string()
  .regex(/^[A-Za-z0-9_][A-Za-z0-9_.-]*$/, 'must be a package name (letters, digits, _ . -)')
  .max(214);

/** The structured result of every tool that runs a process; also its MCP outputSchema. */
export const execResultSchema = z.object({
  exitCode: z.number().int().nullable().describe('Exit code, or null when a signal ended the process.'),
  signal: z.string().nullable().describe('Signal that ended the process, or null.'),
  stdout: z.string().describe('The tail of stdout, at most limits.maxOutputBytes.'),
  stderr: z.string().describe('The tail of stderr, at most limits.maxOutputBytes.'),
  durationMs: z.number().describe('Run time of the process.'),
  truncated: z.boolean().describe('True when either stream exceeded the cap and only its tail is returned.'),
  timedOut: z.boolean().describe('True when the timeout killed the process group.'),
  stdoutBytes: z.number().int().describe('Bytes written to stdout in total.'),
  stderrBytes: z.number().int().describe('Bytes written to stderr in total.'),
  stdoutDroppedBytes: z.number().int().describe('Bytes of stdout dropped from the head.'),
  stderrDroppedBytes: z.number().int().describe('Bytes of stderr dropped from the head.'),
  argv: z.array(z.string()).describe('The argv that ran.'),
  cwd: z.string().describe('The resolved working directory.'),
});
export type ExecResult = z.infer<typeof execResultSchema>;

/** JSON Schema for MCP tool listings, computed once. */
export function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  delete json.$schema;
  return singleTypeSchema(json) as Record<string, unknown>;
}

/** Keywords that describe a value rather than constrain one; they stay beside an `anyOf`. */
const ANNOTATIONS = new Set([
  'title',
  'description',
  'default',
  'examples',
  'deprecated',
  'readOnly',
  'writeOnly',
]);

/**
 * Rewrites every `type: [A, B]` (zod's spelling of a nullable string) as `anyOf` branches with one `type`
 * each: clients that map tool schemas onto a single-`type` dialect (Gemini's function declarations, the
 * Inspector's strict mode) accept only that form.
 */
export function singleTypeSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(singleTypeSchema);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node))
    out[key] = key === 'type' ? value : singleTypeSchema(value);
  if (!Array.isArray(out.type)) return out;
  const annotations: Record<string, unknown> = {};
  const constraints: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(out)) {
    if (key === 'type') continue;
    (ANNOTATIONS.has(key) ? annotations : constraints)[key] = value;
  }
  const branches = (out.type as string[]).map((type) =>
    type === 'null' ? { type } : { type, ...constraints },
  );
  return { ...annotations, anyOf: branches };
}
