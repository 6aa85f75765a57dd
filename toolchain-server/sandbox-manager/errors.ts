/**
 * The sandbox manager's coded errors: every refusal or failure is an `isError: true` tool result whose text
 * starts with the code and says what to do instead; docs/sandboxes.md lists them (a test keeps the two in sync).
 */
export const SANDBOX_ERROR_CODES = {
  TOOLYARD_SANDBOX_INVALID_ARGUMENTS:
    'The tool arguments do not match its input schema (the message names the field).',
  TOOLYARD_SANDBOX_NOT_FOUND: 'No sandbox exists for this session key: create one with sandbox_create first.',
  TOOLYARD_SANDBOX_TEMPLATE_UNKNOWN: 'The template named is not one of this agent’s sandbox templates.',
  TOOLYARD_SANDBOX_TEMPLATE_MISMATCH:
    'The session already has a sandbox of another template: destroy it first, or use another session key.',
  TOOLYARD_SANDBOX_QUOTA:
    'A quota of the agent (running sandboxes, kept sandboxes, CPU or memory) would be exceeded: stop or destroy a sandbox, or raise spec.sandboxes.quota.',
  TOOLYARD_SANDBOX_NOT_READY:
    'The sandbox did not become ready in time, or its provider reports it cannot (the message says why).',
  TOOLYARD_SANDBOX_BIND_FAILED:
    'The sandbox’s server could not be bound to the session (it refused, or was bound by someone else and was destroyed).',
  TOOLYARD_SANDBOX_UNREACHABLE: 'The sandbox’s server could not be reached or gave no answer.',
  TOOLYARD_SANDBOX_KUBERNETES:
    'The API server refused or failed a request of the manager (the message has its reason).',
  TOOLYARD_SANDBOX_PATH_REFUSED:
    'A file path is empty, absolute, leaves the workspace (..) or holds a NUL byte.',
  TOOLYARD_SANDBOX_FILE_TOO_LARGE: 'An upload or download is above the template’s file transfer limit.',
  TOOLYARD_SANDBOX_NO_CODE_MODE:
    'The session’s sandbox template has no code mode (tools.codeMode), or not in the language asked for.',
  TOOLYARD_SANDBOX_TIMEOUT_EXCEEDS_MAX:
    'The requested timeout is above the template’s limits.maxTimeoutSeconds.',
} as const;

export type SandboxErrorCode = keyof typeof SANDBOX_ERROR_CODES;

export class SandboxError extends Error {
  readonly code: SandboxErrorCode;
  /** What the caller may do instead. */
  readonly hint: string | undefined;

  constructor(code: SandboxErrorCode, message: string, hint?: string) {
    super(message);
    this.name = 'SandboxError';
    this.code = code;
    this.hint = hint;
  }

  describe(): string {
    return `${this.code}: ${this.message}${this.hint ? `\nhint: ${this.hint}` : ''}`;
  }
}
