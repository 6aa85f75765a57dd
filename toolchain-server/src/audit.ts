/**
 * One JSON audit line per tool call, written to stdout. The field list is exported so the docs can be checked
 * against it.
 */
import { createHash } from 'node:crypto';

export const AUDIT_FIELDS = {
  event: 'Always "audit".',
  time: 'ISO-8601 time the call finished.',
  toolchain: 'The toolchain name from the config.',
  tool: 'The MCP tool called.',
  argv: 'The argv run (or that would have run), argv[0] as the bare command name; null when no argv was built.',
  cwd: 'The resolved working directory, or the requested one when it was refused.',
  envNames: 'Names (never values) of the variables the caller set.',
  decision:
    '"allowed", "denied" (a policy rule refused it) or "error" (invalid input, busy, spawn failure, cancelled).',
  rule: 'The policy rule that decided a denial, or null.',
  code: 'The TOOLYARD_* error code, or null for a call that ran.',
  exitCode: 'The exit code of the process, or null.',
  signal: 'The signal that ended the process, or null.',
  durationMs: 'Wall time of the call, queueing included.',
  stdoutBytes: 'Bytes the process wrote to stdout (all of them, not only the kept tail).',
  stderrBytes: 'Bytes the process wrote to stderr.',
  truncated: 'True when either stream exceeded limits.maxOutputBytes and only its tail was kept.',
  timedOut: 'True when the timeout killed the process group.',
  cancelled: 'True when the client cancelled or disconnected and the process group was killed.',
  session: 'First 16 hex digits of the SHA-256 of the MCP session id (never the id itself), or null.',
  confinement:
    'Kernel confinement of the call: `{ abi, mode, killed, wall }` — the Landlock ABI the helper applied (0: none), `limits.confinement`, how many leftover descendants the helper killed after the command ended (null when no process ran), and the second wall the call got: `namespaces` (per-call user and IPC namespaces plus the seccomp filter), `seccomp` (the filter alone, where the node forbids user namespaces), `off` or `unavailable`.',
  egress:
    'True when the call got the broker proxy (`egressProxy`; under `phase: fetch` only fetch tools get it), else false.',
  run: 'The code-mode run (`run_code`, docs/code-mode.md) the call is or was made by, or null.',
  trace:
    "The W3C trace id of the call's span (docs/observability.md): the caller's trace when the request carried one, a new one when tracing is on, else null.",
} as const;

/** The `confinement` field of an audit line. */
export interface AuditConfinement {
  readonly abi: number;
  readonly mode: string;
  readonly killed: number | null;
  readonly wall: string;
}

export type AuditField = keyof typeof AUDIT_FIELDS;

export type AuditRecord = {
  [K in AuditField]: K extends 'event'
    ? 'audit'
    : K extends 'confinement'
      ? AuditConfinement
      : K extends 'argv' | 'envNames'
        ? readonly string[] | null
        : K extends 'truncated' | 'timedOut' | 'cancelled' | 'egress'
          ? boolean
          : K extends 'exitCode' | 'durationMs' | 'stdoutBytes' | 'stderrBytes'
            ? number | null
            : string | null;
};

export function hashSession(sessionId: string | undefined): string | null {
  if (!sessionId) return null;
  return createHash('sha256').update(sessionId).digest('hex').slice(0, 16);
}
