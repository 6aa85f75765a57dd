/**
 * Network namespaces joined by veth pairs, the way a CNI joins pods: each namespace has its loopback, the
 * addresses the test gives it and nothing else (no link to the host's own network, no forwarding). Names carry
 * this process's id, so concurrent test files never collide, and a namespace left behind by a killed run is
 * swept by the next one. Everything is removed on `remove()` and, failing that, when the process exits.
 * Needs root and iproute2 (as CI runs).
 *
 * `listen()` opens a listening socket inside a namespace and hands it to this process (a short-lived child in
 * the namespace passes the socket over Node's IPC channel), so a test's in-process fakes serve on an address
 * that only that namespace's peers can reach, while their state stays in the test.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import type { Server } from 'node:net';
import { fileURLToPath } from 'node:url';

const LISTENER = fileURLToPath(new URL('./netns-listener.ts', import.meta.url));
/** Our namespaces: `tyn-<pid base 36>-<nonce>-<role>`; the pid lets a later run sweep a dead run's leftovers. */
const PREFIX = 'tyn-';

function ip(...args: string[]): string {
  return execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function namespaces(): string[] {
  try {
    return readdirSync('/run/netns');
  } catch {
    return [];
  }
}

/** Deletes a namespace after ending the processes still in it (only ours can be: the name is ours). */
function deleteNamespace(name: string): void {
  try {
    for (const pid of ip('netns', 'pids', name).split('\n').filter(Boolean))
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {}
    ip('netns', 'del', name);
  } catch {
    // already gone
  }
}

/** Removes namespaces that a run which no longer exists left behind (it was killed before cleaning up). */
function sweepLeftovers(): void {
  for (const name of namespaces()) {
    if (!name.startsWith(PREFIX)) continue;
    const pid = Number.parseInt(name.slice(PREFIX.length).split('-')[0] ?? '', 36);
    if (Number.isInteger(pid) && pid > 0 && !alive(pid)) deleteNamespace(name);
  }
}

export interface Link {
  /** Namespace role and address with prefix length at each end, e.g. `['broker', '10.231.1.1/24']`. */
  readonly a: readonly [string, string];
  readonly b: readonly [string, string];
}

export class Namespaces {
  private readonly names = new Map<string, string>();
  private readonly id: string;
  private readonly cleanup = () => this.remove();
  private linkCount = 0;
  private removed = false;

  /** Creates one namespace per role, loopback up. Throws, having removed what it made, if that is impossible. */
  constructor(roles: readonly string[]) {
    sweepLeftovers();
    this.id = `${process.pid.toString(36)}-${Math.floor(Math.random() * 36 ** 3).toString(36)}`;
    process.once('exit', this.cleanup);
    try {
      for (const role of roles) {
        const name = `${PREFIX}${this.id}-${role}`;
        ip('netns', 'add', name);
        this.names.set(role, name);
        ip('-n', name, 'link', 'set', 'lo', 'up');
      }
    } catch (error) {
      this.remove();
      throw new Error(
        `cannot create network namespaces (this test needs root and iproute2): ${(error as Error).message}`,
      );
    }
  }

  /** The namespace's name (for `ip netns exec`). */
  name(role: string): string {
    const name = this.names.get(role);
    if (!name) throw new Error(`no namespace for role "${role}"`);
    return name;
  }

  /** Joins two namespaces with a veth pair, one address at each end (interface names within 15 characters). */
  link(link: Link): void {
    const n = this.linkCount++;
    const ends = [link.a, link.b] as const;
    const devices = ends.map((_, i) => `ty${process.pid.toString(36)}${n}${i ? 'b' : 'a'}`.slice(-15));
    ip('link', 'add', devices[0] as string, 'type', 'veth', 'peer', 'name', devices[1] as string);
    ends.forEach(([role, address], i) => {
      const ns = this.name(role);
      const device = devices[i] as string;
      ip('link', 'set', device, 'netns', ns);
      ip('-n', ns, 'addr', 'add', address, 'dev', device);
      ip('-n', ns, 'link', 'set', device, 'up');
    });
  }

  /** Adds an address (`10.231.2.11/24`) to the namespace's first veth, for one more host behind its link. */
  addAddress(role: string, address: string): void {
    const ns = this.name(role);
    const device = ip('-n', ns, '-o', 'link', 'show', 'type', 'veth').match(/^\d+: ([^@:]+)/)?.[1];
    if (!device) throw new Error(`namespace ${role} has no veth to add ${address} to`);
    ip('-n', ns, 'addr', 'add', address, 'dev', device);
  }

  /** A route in one namespace, e.g. `route('agent', 'default', '10.231.1.1')`. */
  route(role: string, destination: string, via: string): void {
    ip('-n', this.name(role), 'route', 'add', destination, 'via', via);
  }

  /** argv prefix that runs a command in the namespace. */
  exec(role: string, argv: readonly string[]): string[] {
    return ['ip', 'netns', 'exec', this.name(role), ...argv];
  }

  /** Processes living in the namespace. */
  pids(role: string): number[] {
    return ip('netns', 'pids', this.name(role)).split('\n').filter(Boolean).map(Number);
  }

  /**
   * A listening TCP socket at `host:port` inside the namespace, owned by this process: attach an HTTP(S)
   * server with `socket.on('connection', (s) => server.emit('connection', s))`. Port 0 picks a free port.
   */
  listen(role: string, host: string, port: number): Promise<Server> {
    return new Promise((resolve, reject) => {
      const child = spawn('ip', this.exec(role, [process.execPath, LISTENER, host, String(port)]).slice(1), {
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      });
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
      });
      child.once('message', (message, handle) => {
        if (message === 'listening' && handle) resolve(handle as Server);
        else reject(new Error(`listener in ${role}: ${String(message)}`));
      });
      // The helper exits right after handing the socket over, and on a loaded machine its exit can be seen before
      // the message that carries the socket: give that message a moment before calling the exit a failure.
      child.once('exit', (code) =>
        setTimeout(
          () => reject(new Error(`listener in ${role} on ${host}:${port} exited ${code}: ${stderr}`)),
          code === 0 ? 1000 : 0,
        ),
      );
    });
  }

  remove(): void {
    if (this.removed) return;
    this.removed = true;
    process.removeListener('exit', this.cleanup);
    for (const name of this.names.values()) deleteNamespace(name);
  }
}
