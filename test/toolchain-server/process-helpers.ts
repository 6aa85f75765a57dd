/** Starts the real server as a child process (source entry or bundle) and reads its JSON lines. */
import { type ChildProcess, spawn } from 'node:child_process';
import { chownSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listeningPort } from '../../toolchain-server/scripts/listening-port.ts';

export const SOURCE_ENTRY = fileURLToPath(
  new URL('../../toolchain-server/bin/toolyard-toolchain-server.js', import.meta.url),
);

export interface ServerProcess {
  readonly child: ChildProcess;
  readonly port: number;
  readonly url: string;
  readonly lines: Record<string, unknown>[];
  readonly stderr: () => string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resident set size of the server process, in bytes (Linux /proc). */
  rss(): number;
}

export async function startServerProcess(options: {
  entry?: string;
  node?: string;
  /** V8 flags before the entry script (the bundle test passes the image's). */
  nodeFlags?: readonly string[];
  config: Record<string, unknown>;
  dir: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  /** Run the server as this uid and gid (a root test's pod user, test/support/pod-user.ts); it owns its config. */
  user?: { readonly uid?: number; readonly gid?: number };
  /** In a process group of its own (what its calls may name as the server's group is then the server alone). */
  detached?: boolean;
}): Promise<ServerProcess> {
  const configPath = join(options.dir, `config-${process.hrtime.bigint()}.json`);
  writeFileSync(configPath, JSON.stringify(options.config));
  const { uid, gid } = options.user ?? {};
  if (uid !== undefined) chownSync(configPath, uid, gid ?? uid);
  const child = spawn(
    options.node ?? process.execPath,
    [
      ...(options.nodeFlags ?? []),
      options.entry ?? SOURCE_ENTRY,
      '--config',
      configPath,
      ...(options.args ?? []),
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: options.env ?? { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      cwd: options.cwd,
      ...(uid !== undefined ? { uid, gid: gid ?? uid } : {}),
      ...(options.detached ? { detached: true } : {}),
    },
  );
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const lines: Record<string, unknown>[] = [];
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const port = await listeningPort(child, { onEvent: (event) => lines.push(event), describe: () => stderr });
  return {
    child,
    port,
    url: `http://127.0.0.1:${port}`,
    lines,
    stderr: () => stderr,
    exited,
    rss: () => {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      return kb * 1024;
    },
  };
}

/** A minimal raw MCP client over fetch: initialize once, then JSON-RPC posts with the session header. */
export async function rawSession(
  baseUrl: string,
): Promise<(body: unknown, init?: RequestInit) => Promise<Response>> {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const init = await fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
  const session = init.headers.get('mcp-session-id');
  await init.text();
  if (!session) throw new Error('no session id');
  const sessionHeaders = { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
  await fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: sessionHeaders,
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  }).then((r) => r.text());
  return (body, extra = {}) =>
    fetch(`${baseUrl}/mcp`, {
      method: 'POST',
      headers: sessionHeaders,
      body: JSON.stringify(body),
      ...extra,
    });
}

export function readPid(file: string): number | undefined {
  try {
    const n = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(n) && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}
