/**
 * The MCP sessions of one server: a bounded set that never evicts a live session to make room. A session
 * lives until its client deletes it or it has been idle (no request, nothing running) for `idleMs`; when the
 * set is full, a new client is told to come back after the earliest idle session would expire.
 */
import type { Server as McpSdkServer } from '@modelcontextprotocol/server';
import type { SessionTransport } from './transport.ts';

export interface Session {
  readonly server: McpSdkServer;
  readonly transport: SessionTransport;
}

/** How long a full server asks new clients to wait when every session is busy. */
const BUSY_RETRY_SECONDS = 30;

export class SessionRegistry {
  readonly max: number;
  readonly idleMs: number;
  private readonly sessions = new Map<string, Session>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly now: () => number;

  constructor(max: number, idleMs: number, now: () => number = Date.now) {
    this.max = max;
    this.idleMs = idleMs;
    this.now = now;
    this.sweeper = setInterval(() => this.sweep(), Math.min(idleMs, 60_000));
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  get full(): boolean {
    return this.sessions.size >= this.max;
  }

  get(id: string): Session | undefined {
    return this.sessions.get(id);
  }

  add(id: string, session: Session): void {
    this.sessions.set(id, session);
  }

  /** Forgets a session whose transport closed by itself. */
  forget(id: string): void {
    this.sessions.delete(id);
  }

  async close(id: string): Promise<void> {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    await session.server.close();
  }

  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all([...this.sessions.keys()].map((id) => this.close(id)));
  }

  /** Seconds until a place frees up at the latest, as far as idle expiry can tell (1..idle period). */
  retryAfterSeconds(): number {
    let earliest: number | undefined;
    for (const { transport } of this.sessions.values()) {
      if (transport.busy) continue;
      const expiry = transport.lastActivity + this.idleMs;
      if (earliest === undefined || expiry < earliest) earliest = expiry;
    }
    if (earliest === undefined) return BUSY_RETRY_SECONDS;
    return Math.max(1, Math.ceil((earliest - this.now()) / 1000));
  }

  /** Closes sessions that have been idle for longer than `idleMs`; never one with a request in flight. */
  sweep(): void {
    const cutoff = this.now() - this.idleMs;
    for (const [id, { transport }] of this.sessions)
      if (!transport.busy && transport.lastActivity < cutoff) void this.close(id);
  }
}
