/**
 * The pod network of the sandbox tests, as a CNI would lay it out on one node: a bridge in a network namespace of
 * its own, and one namespace per pod joined to it by a veth pair with the pod's own IP (as kwok assigned it, in
 * 10.0.0.0/8): the sandbox manager's pod, an agent pod, and each sandbox pod as it starts. The API server, which
 * listens on the host's 127.0.0.1, is forwarded into the manager's namespace at the same address and port, so the
 * manager talks to it exactly as its kubeconfig-free in-cluster config says. Nothing touches the host's own
 * network namespace; everything is removed on `remove()`. Needs root and iproute2.
 */
import { execFileSync, spawn } from 'node:child_process';
import { connect, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Namespaces } from '../support/netns.ts';

const FORWARDER = fileURLToPath(new URL('./unix-forward.ts', import.meta.url));
/** Addresses of the manager's and the agent's pods (pod IPs of sandboxes come from kwok, in 10.64-10.95). */
export const MANAGER_POD_IP = '10.255.255.254';
export const AGENT_POD_IP = '10.255.255.253';
const PREFIX = 8;

function ip(...args: string[]): void {
  execFileSync('ip', args, { stdio: ['ignore', 'pipe', 'pipe'] });
}

let devices = 0;

export interface PodNetns {
  readonly ip: string;
  /** argv prefix that runs a command in the pod's network namespace. */
  exec(argv: readonly string[]): string[];
  remove(): void;
}

export class NodeNetwork {
  private readonly base: Namespaces;
  private readonly pods = new Set<Namespaces>();
  private readonly servers: Server[] = [];

  constructor() {
    this.base = new Namespaces(['node', 'mgr', 'agent']);
    try {
      ip('-n', this.base.name('node'), 'link', 'add', 'br0', 'type', 'bridge');
      ip('-n', this.base.name('node'), 'link', 'set', 'br0', 'up');
      this.plug(this.base, 'mgr', MANAGER_POD_IP);
      this.plug(this.base, 'agent', AGENT_POD_IP);
    } catch (error) {
      this.base.remove();
      throw error;
    }
  }

  /** A veth pair: one end in `role` of `namespaces` with `address`, the other on the node's bridge. */
  private plug(namespaces: Namespaces, role: string, address: string): void {
    const n = devices++;
    const tag = `${process.pid.toString(36)}${n.toString(36)}`;
    const inner = `tys${tag}a`.slice(-15);
    const outer = `tys${tag}b`.slice(-15);
    ip('link', 'add', inner, 'type', 'veth', 'peer', 'name', outer);
    ip('link', 'set', inner, 'netns', namespaces.name(role));
    ip('link', 'set', outer, 'netns', this.base.name('node'));
    ip('-n', namespaces.name(role), 'addr', 'add', `${address}/${PREFIX}`, 'dev', inner);
    ip('-n', namespaces.name(role), 'link', 'set', inner, 'up');
    ip('-n', this.base.name('node'), 'link', 'set', outer, 'master', 'br0');
    ip('-n', this.base.name('node'), 'link', 'set', outer, 'up');
  }

  /** A sandbox pod's namespace with its pod IP, on the bridge. */
  addPod(podIp: string): PodNetns {
    if (!podIp.startsWith('10.')) throw new Error(`pod IP ${podIp} is outside 10.0.0.0/8, the node's range`);
    // Each namespace set removes itself at exit: one listener per pod.
    process.setMaxListeners(Math.max(process.getMaxListeners(), this.pods.size + 32));
    const namespaces = new Namespaces(['pod']);
    try {
      this.plug(namespaces, 'pod', podIp);
    } catch (error) {
      namespaces.remove();
      throw error;
    }
    this.pods.add(namespaces);
    return {
      ip: podIp,
      exec: (argv) => namespaces.exec('pod', argv),
      remove: () => {
        namespaces.remove();
        this.pods.delete(namespaces);
      },
    };
  }

  /** argv prefix that runs a command in the manager's (or the agent's) pod namespace. */
  exec(role: 'mgr' | 'agent', argv: readonly string[]): string[] {
    return this.base.exec(role, argv);
  }

  /** Forwards `127.0.0.1:port` inside the manager's namespace to the host's `127.0.0.1:port` (the API server). */
  async forwardToHost(port: number): Promise<void> {
    const server = await this.base.listen('mgr', '127.0.0.1', port);
    server.on('connection', (socket) => {
      const upstream = connect(port, '127.0.0.1');
      socket.pipe(upstream).pipe(socket);
      const close = () => {
        socket.destroy();
        upstream.destroy();
      };
      socket.on('error', close);
      upstream.on('error', close);
    });
    this.servers.push(server);
  }

  /**
   * A Unix socket at `path` (a file the test can reach from any namespace) whose connections continue from the
   * agent pod's namespace to `host:port`: how the test's own MCP client calls the manager as a backend would.
   */
  forwardFromAgent(path: string, host: string, port: number): Promise<() => void> {
    return new Promise((resolve, reject) => {
      const argv = this.exec('agent', [process.execPath, FORWARDER, path, host, String(port)]);
      const child = spawn(argv[0] as string, argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('ready')) resolve(() => child.kill());
      });
      child.stderr.on('data', (chunk: Buffer) => {
        out += chunk.toString();
      });
      child.on('exit', (code) => reject(new Error(`the forwarder exited ${code}: ${out}`)));
    });
  }

  remove(): void {
    for (const server of this.servers) server.close();
    for (const pod of this.pods) pod.remove();
    this.pods.clear();
    this.base.remove();
  }
}
