/**
 * An in-memory sandbox provider for the manager's unit tests: each running sandbox is a real toolchain server in
 * sandbox mode, in this process, on its own loopback address (127.0.0.N, the template's port) over a workspace
 * directory of its own that survives stop and resume and goes on destroy — what a pod on its claim is, without a
 * cluster. The real providers are proven against a real API server in test/cluster/e2e/sandboxes.e2e.ts.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { SandboxTemplateConfig } from '../../toolchain-server/sandbox-manager/config.ts';
import type { SandboxProvider } from '../../toolchain-server/sandbox-manager/provider.ts';
import type { SandboxRecord } from '../../toolchain-server/sandbox-manager/records.ts';
import { toolchainServerConfigSchema } from '../../toolchain-server/src/config.ts';
import { buildServer } from '../../toolchain-server/src/http.ts';

/** A running sandbox server, however it was started. */
export interface RunningServer {
  close(): Promise<unknown>;
}

/**
 * Starts a sandbox server from its config (already listening on its address when it resolves). Default: in this
 * process; code mode's end-to-end test starts a real server process as the pod uid instead.
 */
export type SandboxLauncher = (config: Record<string, unknown>) => Promise<RunningServer>;

export interface FakeProviderOptions {
  /** Fields merged into every sandbox server's config (as a rendered template's config has them: codeMode, limits). */
  readonly config?: Record<string, unknown>;
  readonly launch?: SandboxLauncher;
}

interface Entry {
  record: SandboxRecord;
  server?: RunningServer;
  address: string;
  workspace: string;
  /** The Host the manager sends (the template's `serverHost`). */
  serverHost: string;
}

export class FakeProvider implements SandboxProvider {
  readonly entries = new Map<string, Entry>();
  readonly calls: string[] = [];
  private nextAddress = 2;
  private readonly dir: string;
  private readonly bootstrapFile: string;
  private readonly port: number;
  private readonly tools: { mode: 'exec'; allowedCommands: string[] };
  private readonly options: FakeProviderOptions;

  /** `tools`: the sandbox servers' tools, as a rendered template's server config has them (default: a shell). */
  constructor(
    dir: string,
    bootstrapFile: string,
    port: number,
    tools: { mode: 'exec'; allowedCommands: string[] } = {
      mode: 'exec',
      allowedCommands: ['cat', 'ls', 'sh', 'sleep'],
    },
    options: FakeProviderOptions = {},
  ) {
    this.options = options;
    this.dir = dir;
    this.bootstrapFile = bootstrapFile;
    this.port = port;
    this.tools = tools;
  }

  async start(): Promise<void> {}
  stop(): void {
    for (const entry of this.entries.values()) void entry.server?.close();
  }
  records(): SandboxRecord[] {
    return [...this.entries.values()].map((e) => e.record);
  }
  record(name: string): SandboxRecord | undefined {
    return this.entries.get(name)?.record;
  }

  private async run(entry: Entry): Promise<void> {
    const raw = {
      name: 'sandbox',
      listen: { host: entry.address, port: this.port, allowedHosts: [entry.serverHost] },
      workspaceRoots: [entry.workspace],
      tools: this.tools,
      env: { passthrough: ['PATH'] },
      sandbox: { bootstrapTokenFile: this.bootstrapFile, maxFileBytes: 4096 },
      ...this.options.config,
    };
    if (this.options.launch) entry.server = await this.options.launch(raw);
    else {
      const server: FastifyInstance = buildServer({
        config: toolchainServerConfigSchema.parse(raw),
        env: { PATH: process.env.PATH },
        log: () => {},
      });
      await server.listen({ host: entry.address, port: this.port });
      entry.server = server;
    }
    const instance = `${entry.record.name}/${Date.now()}-${Math.random()}`;
    entry.record = {
      ...entry.record,
      state: 'running',
      endpoint: { ip: entry.address, instance },
      launch: 'warm',
    };
  }

  async create(name: string, sessionKey: string, template: SandboxTemplateConfig): Promise<void> {
    this.calls.push(`create ${name}`);
    const workspace = join(this.dir, name);
    mkdirSync(workspace, { recursive: true });
    const now = new Date().toISOString();
    const entry: Entry = {
      record: {
        name,
        sessionKey,
        template: template.name,
        state: 'creating',
        createdAt: now,
        lastUsedAt: now,
      },
      address: `127.0.0.${this.nextAddress++}`,
      workspace,
      serverHost: template.serverHost,
    };
    this.entries.set(name, entry);
    await this.run(entry);
  }

  async waitRunning(name: string): Promise<SandboxRecord> {
    const entry = this.entries.get(name);
    if (!entry) throw new Error(`sandbox ${name} was deleted while starting`);
    return entry.record;
  }

  async suspend(name: string, at: Date): Promise<void> {
    this.calls.push(`suspend ${name}`);
    const entry = this.entries.get(name) as Entry;
    await entry.server?.close();
    entry.server = undefined;
    const { endpoint: _endpoint, ...rest } = entry.record;
    entry.record = { ...rest, state: 'stopped', stoppedAt: at.toISOString() };
  }

  async resume(name: string, at: Date): Promise<void> {
    this.calls.push(`resume ${name}`);
    const entry = this.entries.get(name) as Entry;
    const { stoppedAt: _stopped, ...rest } = entry.record;
    entry.record = { ...rest, state: 'starting', lastUsedAt: at.toISOString() };
    await this.run(entry);
  }

  async destroy(name: string): Promise<void> {
    this.calls.push(`destroy ${name}`);
    const entry = this.entries.get(name);
    if (!entry) return;
    await entry.server?.close();
    rmSync(entry.workspace, { recursive: true, force: true });
    this.entries.delete(name);
  }

  async touch(name: string, at: Date): Promise<void> {
    const entry = this.entries.get(name);
    if (entry) entry.record = { ...entry.record, lastUsedAt: at.toISOString() };
  }

  async waitGone(): Promise<void> {}

  /** Makes a sandbox look idle since `at` (as if its last use were recorded then). */
  age(name: string, at: Date): void {
    const entry = this.entries.get(name) as Entry;
    entry.record = { ...entry.record, lastUsedAt: at.toISOString() };
  }
}
