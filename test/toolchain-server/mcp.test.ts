/** MCP over the SDK's in-memory transport: tools, structured results, denials, progress, cancellation. */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { AUDIT_FIELDS } from '../../toolchain-server/src/audit.ts';
import type { ToolchainServerConfigInput } from '../../toolchain-server/src/config.ts';
import { createMcpServer } from '../../toolchain-server/src/mcp.ts';
import { Toolchain } from '../../toolchain-server/src/toolchain.ts';
import { makeConfig, makeWorkspace, memoryLog, pidAlive, type Workspace, waitFor } from './helpers.ts';

interface Harness {
  client: Client;
  toolchain: Toolchain;
  lines: Record<string, unknown>[];
  close(): Promise<void>;
}

async function harness(
  ws: Workspace,
  overrides: Partial<ToolchainServerConfigInput> = {},
  env?: Record<string, string>,
): Promise<Harness> {
  const { lines, sink } = memoryLog();
  const toolchain = new Toolchain({
    config: makeConfig(ws, overrides),
    env: env ?? { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    log: sink,
    killGraceMs: 200,
    progressIntervalMs: 50,
  });
  const server = createMcpServer(toolchain, sink);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'mem', version: '1' });
  await client.connect(clientSide);
  return { client, toolchain, lines, close: async () => void (await client.close()) };
}

type ToolResult = Awaited<ReturnType<Client['callTool']>>;

function text(result: ToolResult): string {
  const content = result.content as Array<{ type: string; text?: string }>;
  return content.map((c) => c.text ?? '').join('\n');
}

function errorCode(result: ToolResult): string | undefined {
  return (result._meta?.['dev.toolyard/error'] as { code?: string } | undefined)?.code;
}

describe('MCP (in memory)', () => {
  let ws: Workspace;
  let h: Harness;
  before(async () => {
    ws = makeWorkspace();
    h = await harness(ws, {}, { PATH: process.env.PATH ?? '/usr/bin:/bin', SERVER_SECRET: 'do-not-leak' });
  });
  after(async () => {
    await h.close();
    ws.cleanup();
  });

  it('lists exec_allowed and describe_toolchain with input and output schemas', async () => {
    const { tools } = await h.client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      ['exec_allowed', 'describe_toolchain'],
    );
    const exec = tools.find((t) => t.name === 'exec_allowed')!;
    assert.equal(exec.inputSchema.type, 'object');
    assert.deepEqual(exec.inputSchema.required, ['command']);
    assert.equal((exec.inputSchema as { additionalProperties?: unknown }).additionalProperties, false);
    for (const field of ['exitCode', 'stdout', 'stderr', 'durationMs', 'truncated', 'timedOut'])
      assert.ok(exec.outputSchema?.required?.includes(field), `outputSchema requires ${field}`);
  });

  it('runs an allowed command and returns structured content plus a compact summary', async () => {
    const result = await h.client.callTool({
      name: 'exec_allowed',
      arguments: { command: ['echo', 'hello', '$(id)'] },
    });
    assert.equal(result.isError, false);
    const s = result.structuredContent as Record<string, unknown>;
    assert.equal(s.exitCode, 0);
    assert.equal(s.stdout, 'hello $(id)\n');
    assert.equal(s.stderr, '');
    assert.equal(s.truncated, false);
    assert.equal(s.timedOut, false);
    assert.equal(typeof s.durationMs, 'number');
    assert.equal(s.cwd, ws.root);
    assert.match(text(result), /^exit 0 in \d+ ms: echo hello \$\(id\)\nstdout \(tail\):\nhello \$\(id\)$/);
  });

  it('marks a non-zero exit as isError with the exit code in the summary', async () => {
    const result = await h.client.callTool({
      name: 'exec_allowed',
      arguments: { command: ['sh', 'fail.sh'] },
    });
    // fail.sh does not exist: sh itself ran and failed (dash exits 2, bash 127)
    assert.equal(result.isError, true);
    const exitCode = (result.structuredContent as { exitCode: number }).exitCode;
    assert.ok(exitCode === 2 || exitCode === 127, `exit code ${exitCode}`);
    assert.match(text(result), new RegExp(`^exit ${exitCode} in`));
  });

  const refusals: ReadonlyArray<readonly [string, Record<string, unknown>, string, RegExp]> = [
    [
      'policy rule',
      { command: ['git', '-c', 'core.pager=sh', 'log'] },
      'TOOLYARD_POLICY_DENIED',
      /\[rule config-override\].*Allowed instead: /,
    ],
    [
      'interpreter eval',
      { command: ['sh', '-c', 'id'] },
      'TOOLYARD_POLICY_DENIED',
      /\[rule interpreter-eval\]/,
    ],
    [
      'unlisted command',
      { command: ['rm', '-rf', '/'] },
      'TOOLYARD_COMMAND_NOT_ALLOWED',
      /Allowed instead: true, echo, sh/,
    ],
    [
      'command given as a path',
      { command: ['/bin/echo', 'x'] },
      'TOOLYARD_COMMAND_PATH_REFUSED',
      /bare names/,
    ],
    ['relative path command', { command: ['./echo'] }, 'TOOLYARD_COMMAND_PATH_REFUSED', /path/],
    [
      'cwd outside the roots',
      { command: ['pwd'], cwd: '/etc' },
      'TOOLYARD_CWD_OUTSIDE_ROOTS',
      /outside the workspace roots/,
    ],
    ['missing cwd', { command: ['pwd'], cwd: 'nope' }, 'TOOLYARD_CWD_NOT_FOUND', /does not exist/],
    [
      'refused env',
      { command: ['printenv'], env: { LD_PRELOAD: '/tmp/x.so' } },
      'TOOLYARD_ENV_REFUSED',
      /LD_PRELOAD/,
    ],
    [
      'timeout above max',
      { command: ['true'], timeoutSeconds: 100000 },
      'TOOLYARD_TIMEOUT_EXCEEDS_MAX',
      /at most 1800 seconds/,
    ],
    ['invalid arguments', { command: 'echo hi' }, 'TOOLYARD_INVALID_ARGUMENTS', /\/command/],
    ['unknown argument', { command: ['true'], shell: true }, 'TOOLYARD_INVALID_ARGUMENTS', /shell/],
  ];
  for (const [label, args, code, message] of refusals) {
    it(`refuses ${label} with isError and ${code}`, async () => {
      const result = await h.client.callTool({ name: 'exec_allowed', arguments: args });
      assert.equal(result.isError, true);
      assert.equal(errorCode(result), code);
      assert.equal(result.structuredContent, undefined);
      assert.match(text(result), new RegExp(`^${code}`));
      assert.match(text(result), message);
    });
  }

  it('answers an unknown tool with JSON-RPC InvalidParams', async () => {
    await assert.rejects(h.client.callTool({ name: 'nope', arguments: {} }), (error: unknown) => {
      assert.ok(error instanceof McpError);
      assert.equal(error.code, ErrorCode.InvalidParams);
      // The client prefixes "MCP error -32602:" itself; the server's message must not carry it too.
      assert.equal(error.message, 'MCP error -32602: Unknown tool: nope');
      return true;
    });
  });

  it('never passes the server environment to children; caller env is applied', async () => {
    const result = await h.client.callTool({
      name: 'exec_allowed',
      arguments: { command: ['printenv'], env: { CI: '1' } },
    });
    const stdout = (result.structuredContent as { stdout: string }).stdout;
    assert.doesNotMatch(stdout, /SERVER_SECRET|do-not-leak/);
    assert.match(stdout, /^CI=1$/m);
    assert.match(stdout, /^PATH=/m);
  });

  it('writes one audit line per call with every documented field', async () => {
    const before = h.lines.length;
    await h.client.callTool({ name: 'exec_allowed', arguments: { command: ['true'] } });
    await h.client.callTool({ name: 'exec_allowed', arguments: { command: ['git', '-c', 'a=b', 'log'] } });
    const audits = h.lines.slice(before).filter((l) => l.event === 'audit');
    assert.equal(audits.length, 2);
    for (const line of audits) assert.deepEqual(Object.keys(line).sort(), Object.keys(AUDIT_FIELDS).sort());
    assert.equal(audits[0]!.decision, 'allowed');
    assert.equal(audits[0]!.exitCode, 0);
    assert.deepEqual(audits[0]!.argv, ['true']);
    assert.equal(audits[1]!.decision, 'denied');
    assert.equal(audits[1]!.rule, 'config-override');
    assert.equal(audits[1]!.code, 'TOOLYARD_POLICY_DENIED');
  });

  it('kills the process group on timeout and says so', async () => {
    const result = await h.client.callTool({
      name: 'exec_allowed',
      arguments: { command: ['sleep', '30'], timeoutSeconds: 1 },
    });
    assert.equal(result.isError, true);
    assert.equal((result.structuredContent as { timedOut: boolean }).timedOut, true);
    assert.match(text(result), /^timed out after 1s/);
  });

  it('sends progress notifications when the client asks for them', async () => {
    const progress: number[] = [];
    const result = await h.client.callTool(
      { name: 'exec_allowed', arguments: { command: ['sleep', '0.4'] } },
      undefined,
      { onprogress: (p) => progress.push(p.progress) },
    );
    assert.equal(result.isError, false);
    assert.ok(progress.length >= 2, `received ${progress.length} progress notifications`);
    assert.ok(progress.every((v, i) => i === 0 || v > progress[i - 1]!));
  });

  it('kills the child when the client cancels the request', async () => {
    const pidFile = join(ws.root, 'mcp-cancel.pid');
    writeFileSync(join(ws.root, 'spawn.sh'), 'sleep 30 & echo $! > "$1"; wait\n');
    const controller = new AbortController();
    const call = h.client.callTool(
      { name: 'exec_allowed', arguments: { command: ['sh', '-e', 'spawn.sh', pidFile] } },
      undefined,
      { signal: controller.signal },
    );
    await waitFor(() => {
      try {
        return readFileSync(pidFile, 'utf8').trim() !== '';
      } catch {
        return false;
      }
    });
    const grandchild = Number(readFileSync(pidFile, 'utf8'));
    controller.abort();
    await assert.rejects(call);
    await waitFor(() => !pidAlive(grandchild), 3000, 'cancelled process to die');
    await waitFor(
      () => h.lines.some((l) => l.event === 'audit' && l.cancelled === true),
      3000,
      'cancel audit line',
    );
  });

  it('accepts logging/setLevel', async () => {
    assert.deepEqual(await h.client.setLoggingLevel('info'), {});
  });
});

describe('MCP limits and faults', () => {
  let ws: Workspace;
  before(() => {
    ws = makeWorkspace();
  });
  after(() => ws.cleanup());

  it('refuses a call beyond concurrency and queue with TOOLYARD_BUSY', async () => {
    const h = await harness(ws, {
      limits: {
        defaultTimeoutSeconds: 10,
        maxTimeoutSeconds: 10,
        maxOutputBytes: 1024,
        maxConcurrency: 1,
        maxQueue: 0,
      },
    });
    try {
      const running = h.client.callTool({ name: 'exec_allowed', arguments: { command: ['sleep', '0.5'] } });
      await waitFor(() => h.toolchain.limiter.active === 1);
      const busy = await h.client.callTool({ name: 'exec_allowed', arguments: { command: ['true'] } });
      assert.equal(busy.isError, true);
      assert.equal(errorCode(busy), 'TOOLYARD_BUSY');
      assert.match(text(busy), /retry/);
      assert.equal((await running).isError, false);
      assert.match(
        h.toolchain.metrics.render(),
        /toolyard_tool_calls_total\{tool="exec_allowed",outcome="busy"\} 1/,
      );
    } finally {
      await h.close();
    }
  });

  it('turns an internal failure into JSON-RPC -32603, not -32602', async () => {
    const h = await harness(ws);
    try {
      h.toolchain.callTool = async () => {
        throw new Error('boom');
      };
      await assert.rejects(
        h.client.callTool({ name: 'exec_allowed', arguments: { command: ['true'] } }),
        (error: unknown) => {
          assert.ok(error instanceof McpError);
          assert.equal(error.code, ErrorCode.InternalError);
          assert.doesNotMatch(error.message, /boom/);
          return true;
        },
      );
    } finally {
      await h.close();
    }
  });

  it('offers no exec_allowed in structured mode', async () => {
    const h = await harness(ws, { tools: { mode: 'structured', presets: [], allowedCommands: ['echo'] } });
    try {
      const { tools } = await h.client.listTools();
      assert.deepEqual(
        tools.map((t) => t.name),
        ['describe_toolchain'],
      );
      await assert.rejects(
        h.client.callTool({ name: 'exec_allowed', arguments: { command: ['echo'] } }),
        McpError,
      );
    } finally {
      await h.close();
    }
  });

  it('describes the toolchain, with versions and missing preset binaries', async () => {
    const h = await harness(
      ws,
      {
        tools: { mode: 'exec', presets: ['terraform'], allowedCommands: ['echo', 'not-a-real-binary'] },
        handles: { commands: ['terraform'], files: ['*.tf'] },
      },
      { PATH: '/usr/bin:/bin' },
    );
    try {
      const result = await h.client.callTool({ name: 'describe_toolchain', arguments: {} });
      const d = result.structuredContent as {
        name: string;
        allowedCommands: Array<{ name: string; available: boolean; version: string | null }>;
        presets: Array<{ name: string; available: boolean; missingBinaries: string[] }>;
        handles: { files: string[] };
        limits: { maxConcurrency: number };
        workspaceRoots: string[];
      };
      assert.equal(d.name, 'test');
      assert.deepEqual(d.presets, [
        {
          name: 'terraform',
          available: false,
          missingBinaries: ['terraform'],
          versions: { terraform: null },
        },
      ]);
      const echo = d.allowedCommands.find((c) => c.name === 'echo')!;
      assert.equal(echo.available, true);
      assert.match(echo.version ?? '', /echo|coreutils/i);
      assert.equal(d.allowedCommands.find((c) => c.name === 'not-a-real-binary')!.available, false);
      assert.deepEqual(d.handles.files, ['*.tf']);
      assert.equal(d.limits.maxConcurrency, 2);
      assert.deepEqual(d.workspaceRoots, [ws.root]);
      assert.match(text(result), /preset terraform unavailable: missing terraform/);
      assert.match(text(result), /not-a-real-binary \(MISSING\)/);
      const report = h.toolchain.startupReport();
      assert.deepEqual(report.missingBinaries, ['not-a-real-binary', 'terraform']);
      assert.equal(h.toolchain.readiness().ready, false);
      const unavailable = await h.client.callTool({ name: 'fmt_check', arguments: {} });
      assert.equal(errorCode(unavailable), 'TOOLYARD_COMMAND_UNAVAILABLE');
    } finally {
      await h.close();
    }
  });
});
