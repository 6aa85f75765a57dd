/**
 * A code-mode lab: a base directory under /var/tmp (outside the servers' TMPDIR), owned by the pod's uid 65532, with
 * a workspace, an `outside` directory, and each server's own directory (config, tokens); servers run as uid 65532,
 * as in a pod, never as root. Also starts the fake gateway the programs call.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { buildConfine } from '../../../toolchain-server/scripts/build-confine.ts';
import { listeningPort } from '../../../toolchain-server/scripts/listening-port.ts';
import { SOURCE_ENTRY } from '../process-helpers.ts';

export const POD_UID = 65532;
export const PATH = '/usr/local/bin:/usr/bin:/bin';

export interface LabServer {
  readonly url: string;
  readonly port: number;
  readonly lines: Record<string, unknown>[];
  readonly child: ChildProcess;
  readonly stderr: () => string;
  client(token?: string): Promise<Client>;
  stop(): Promise<void>;
}

export class Lab {
  readonly base: string;
  readonly workspace: string;
  readonly outside: string;
  private readonly servers: LabServer[] = [];

  constructor() {
    if (process.getuid?.() !== 0)
      throw new Error('the code-mode lab runs servers as uid 65532 and needs root');
    this.base = mkdtempSync('/var/tmp/toolyard-code-mode-');
    chmodSync(this.base, 0o755);
    this.workspace = this.dir('workspace');
    this.outside = this.dir('outside');
    execFileSync('git', ['init', '-q', this.workspace]);
    execFileSync('chown', ['-R', `${POD_UID}:${POD_UID}`, this.workspace]);
  }

  /** A directory of the lab owned by the pod uid. */
  dir(name: string, mode = 0o755): string {
    const path = join(this.base, name);
    mkdirSync(path, { recursive: true });
    chownSync(path, POD_UID, POD_UID);
    chmodSync(path, mode);
    return path;
  }

  /** A file owned by the pod uid (a token: 0400). */
  file(path: string, content: string, mode = 0o400): string {
    writeFileSync(path, content);
    chownSync(path, POD_UID, POD_UID);
    chmodSync(path, mode);
    return path;
  }

  static async build(): Promise<void> {
    const arch = process.arch === 'arm64' ? 'arm64' : 'amd64';
    await buildConfine(arch);
    await buildConfine(arch, undefined, 'toolyard-codebox');
  }

  /** Starts a toolchain server as uid 65532 with `config` (its own directory holds the config). */
  async server(name: string, config: Record<string, unknown>, token?: string): Promise<LabServer> {
    const own = this.dir(`own-${name}`, 0o700);
    const configFile = this.file(join(own, 'config.json'), JSON.stringify(config), 0o400);
    const child = spawn(process.execPath, [SOURCE_ENTRY, '--config', configFile], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH, TMPDIR: '/tmp' },
      uid: POD_UID,
      gid: POD_UID,
      cwd: '/',
    });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const lines: Record<string, unknown>[] = [];
    const port = await listeningPort(child, { onEvent: (e) => lines.push(e), describe: () => stderr });
    const url = `http://127.0.0.1:${port}`;
    const clients: Client[] = [];
    const server: LabServer = {
      url,
      port,
      lines,
      child,
      stderr: () => stderr,
      client: async (t = token) => {
        const client = new Client({ name: 'code-mode-test', version: '1.0.0' });
        await client.connect(
          new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
            requestInit: { headers: t ? { authorization: `Bearer ${t}` } : {} },
          }),
        );
        clients.push(client);
        return client;
      },
      stop: async () => {
        await Promise.all(clients.map((c) => c.close().catch(() => {})));
        if (child.exitCode === null && child.signalCode === null) {
          const exited = new Promise((r) => child.once('exit', r));
          child.kill('SIGTERM');
          await exited;
        }
      },
    };
    this.servers.push(server);
    return server;
  }

  /** A token file in `own-<server>/secrets/` (0400, the pod uid): as a mounted Secret's key. */
  token(server: string, value: string): string {
    const dir = this.dir(`own-${server}/secrets`, 0o700);
    return this.file(join(dir, 'token'), value);
  }

  read(path: string): string {
    return readFileSync(path, 'utf8');
  }

  async close(): Promise<void> {
    await Promise.all(this.servers.map((s) => s.stop()));
    rmSync(this.base, { recursive: true, force: true });
  }
}
