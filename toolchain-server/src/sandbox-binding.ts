/**
 * How a sandbox's server (`sandbox` in the config) learns whom it serves. It starts unbound, in a warm pool or for
 * one session, with no token a caller could use. After the claim, the sandbox manager binds it once —
 * `POST /sandbox/bind` with the bootstrap token (a Secret every sandbox pod mounts, outside every call's
 * confinement) and `{ session, token }` — and from then on every request must carry that per-sandbox token;
 * the bootstrap token is refused. A second bind is refused: a sandbox cannot be taken over by whoever learns the
 * bootstrap token later, and one sandbox's token opens no other. Per-claim values thus reach the pod through the
 * manager, never as claim `env` (which would force a cold start).
 */
import { TokenSet } from '../kit/token-file.ts';
import { hashSession } from './audit.ts';

export interface BindAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

const SESSION_MAX = 200;
const TOKEN_MIN = 32;
const TOKEN_MAX = 512;

export class SandboxBinding {
  private readonly bootstrap: TokenSet;
  private bound: { readonly tokens: TokenSet; readonly session: string } | undefined;

  constructor(bootstrapToken: string) {
    this.bootstrap = new TokenSet().add('bootstrap', bootstrapToken);
  }

  get session(): string | undefined {
    return this.bound ? (hashSession(this.bound.session) ?? undefined) : undefined;
  }

  /** Whether `presented` is this sandbox's token (never the bootstrap token, never before the bind). */
  authorize(presented: string): boolean {
    return this.bound?.tokens.matches('sandbox', presented) ?? false;
  }

  bind(presented: string, body: unknown): BindAnswer {
    if (!this.bootstrap.matches('bootstrap', presented))
      return error(
        401,
        'TOOLYARD_SANDBOX_UNAUTHENTICATED',
        'the bootstrap token is required to bind a sandbox',
      );
    if (this.bound)
      return error(409, 'TOOLYARD_SANDBOX_ALREADY_BOUND', 'this sandbox is bound to a session already');
    const { session, token } = (body ?? {}) as { session?: unknown; token?: unknown };
    if (typeof session !== 'string' || session.length === 0 || session.length > SESSION_MAX)
      return error(
        400,
        'TOOLYARD_SANDBOX_BAD_BIND',
        `session must be a string of 1-${SESSION_MAX} characters`,
      );
    if (typeof token !== 'string' || token.length < TOKEN_MIN || token.length > TOKEN_MAX)
      return error(
        400,
        'TOOLYARD_SANDBOX_BAD_BIND',
        `token must be a string of ${TOKEN_MIN}-${TOKEN_MAX} characters`,
      );
    this.bound = { tokens: new TokenSet().add('sandbox', token), session };
    return { status: 200, body: { bound: true, session: hashSession(session) } };
  }
}

function error(status: number, code: string, message: string): BindAnswer {
  return { status, body: { error: { code, message } } };
}
