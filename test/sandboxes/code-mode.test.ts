/**
 * Code mode in sandboxes end to end (docs/code-mode.md#in-sandboxes): the manager's `sandbox_run_code` over the fake
 * provider, whose sandboxes here are real sandbox server processes run as uid 65532 with confinement required (as
 * in a pod): a Python, a JavaScript and a TypeScript program each call the sandbox's own tool, write outputs/ and
 * return a value, and it all comes back through the manager, audited on both sides (Python). Red team, each with its control: the program opens no TCP
 * socket and cannot read the sandbox's bootstrap token, though the pod uid unconfined does both. The manager
 * refuses a template without code mode, a language the template does not run and a timeout above its maximum
 * before anything reaches the sandbox.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chownSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { memorySink } from '../../toolchain-server/kit/audit-sink.ts';
import type { SandboxManagerConfig } from '../../toolchain-server/sandbox-manager/config.ts';
import { SandboxManager } from '../../toolchain-server/sandbox-manager/manager.ts';
import { SandboxTools, sandboxToolsFor } from '../../toolchain-server/sandbox-manager/tools.ts';
import { freePort } from '../support/free-port.ts';
import { Lab, type LabServer, PATH, POD_UID } from '../toolchain-server/code-mode/lab.ts';
import { FakeProvider } from './fake-provider.ts';
import { testManagerConfig, testTemplate } from './manager-config.ts';

const BOOTSTRAP = 'bootstrap-token-for-the-code-mode-sandbox-test';

interface Answer {
  isError: boolean;
  content: { text: string }[];
  structuredContent?: Record<string, unknown>;
}

interface Output {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  returnValue: unknown;
  error: string | null;
  outputs: { path: string; size: number }[];
  mcpCalls: { server: string; tool: string; ok: boolean }[];
  runId: string;
}

/** Runs Python directly as the pod uid, unconfined: the control. */
function direct(code: string, cwd: string): Promise<{ status: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn('/usr/bin/python3', ['-c', code], {
      cwd,
      uid: POD_UID,
      gid: POD_UID,
      env: { PATH, HOME: cwd },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      setTimeout(() => resolve({ status, stdout }), 50);
    });
  });
}

describe('sandbox_run_code (fake provider, real sandbox servers as uid 65532, confinement required)', {
  timeout: 300_000,
}, () => {
  let lab: Lab;
  let manager: SandboxManager;
  let tools: SandboxTools;
  let config: SandboxManagerConfig;
  let bootstrapFile: string;
  let tcp: Server;
  let tcpPort: number;
  const tcpSeen: string[] = [];
  const servers: LabServer[] = [];
  const log = memorySink();
  const call = async (tool: string, args: Record<string, unknown>) =>
    (await tools.call(tool, args)) as unknown as Answer;
  const run = async (
    code: string,
    sessionKey = 'conv-1',
    language: 'python' | 'javascript' | 'typescript' = 'python',
  ): Promise<Output> => {
    const answer = await call('sandbox_run_code', {
      sessionKey,
      language,
      code,
      timeoutSeconds: 30,
    });
    assert.equal(answer.isError, false, answer.content[0]?.text);
    return answer.structuredContent as unknown as Output;
  };

  before(async () => {
    await Lab.build();
    lab = new Lab();
    bootstrapFile = lab.file(join(lab.dir('secrets', 0o700), 'bootstrap'), BOOTSTRAP);
    tcp = createServer((s) => {
      tcpSeen.push('connection');
      s.end();
    });
    await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', r));
    tcpPort = (tcp.address() as { port: number }).port;
    const port = await freePort();
    const template = (name: string, codeMode?: { languages: ('python' | 'node')[] }) =>
      testTemplate(name, port, {
        cpuMillis: 0,
        memoryBytes: 0,
        maxTimeoutSeconds: 60,
        maxUploadBytes: 4096,
        maxDownloadBytes: 4096,
        ...(codeMode ? { codeMode } : {}),
      });
    config = testManagerConfig(
      bootstrapFile,
      [
        template('py', { languages: ['python'] }),
        template('plain'),
        template('poly', { languages: ['python', 'node'] }),
      ],
      { quota: { maxSandboxes: 3, maxSessions: 3, cpuMillis: 0, memoryBytes: 0 } },
    );
    let started = 0;
    // Each sandbox: the server config a rendered template with codeMode has, run as the pod uid.
    const provider = new FakeProvider(
      lab.dir('sandboxes'),
      bootstrapFile,
      port,
      { mode: 'exec', allowedCommands: ['echo'] },
      {
        config: {
          limits: { confinement: 'required' },
          codeMode: {
            languages: ['python', 'node'],
            servers: [{ name: 'sandbox', kind: 'toolchain' }],
            limits: { memoryMiB: 256, processes: 32 },
          },
        },
        launch: async (raw) => {
          chownSync((raw.workspaceRoots as string[])[0] as string, POD_UID, POD_UID);
          const server = await lab.server(`sandbox-${started++}`, raw);
          servers.push(server);
          return { close: () => server.stop() };
        },
      },
    );
    manager = new SandboxManager(config, provider, BOOTSTRAP);
    tools = new SandboxTools(manager, log);
    const created = await call('sandbox_create', { sessionKey: 'conv-1' });
    assert.equal(created.isError, false, created.content[0]?.text);
  });
  after(async () => {
    try {
      manager?.close();
    } finally {
      await lab?.close();
      tcp?.close();
    }
  });

  it('lists sandbox_run_code for a manager with a code-mode template', () => {
    assert.ok(sandboxToolsFor(config).some((t) => t.name === 'sandbox_run_code'));
  });

  it("runs a Python program that calls the sandbox's own tool, writes outputs/ and returns a value", async () => {
    const output = await run(
      [
        'import os',
        'r = mcp_sandbox.exec_allowed(command=["echo", "from-the-sandbox"])',
        'said = r["structuredContent"]["stdout"].strip()',
        'open("outputs/report.txt", "w").write(said)',
        'print("wrote", said)',
        '{"said": said, "uid": os.getuid()}',
      ].join('\n'),
    );
    assert.equal(output.exitCode, 0, output.stderr);
    assert.equal(output.error, null);
    assert.match(output.stdout, /wrote from-the-sandbox/);
    assert.deepEqual(output.returnValue, { said: 'from-the-sandbox', uid: POD_UID });
    assert.deepEqual(output.outputs, [{ path: 'outputs/report.txt', size: 'from-the-sandbox'.length }]);
    assert.deepEqual(
      output.mcpCalls.map((c) => [c.server, c.tool, c.ok]),
      [['sandbox', 'exec_allowed', true]],
    );
    // The file stays in the session's workspace: the manager hands it out as any artifact.
    const down = await call('sandbox_download', { sessionKey: 'conv-1', path: 'outputs/report.txt' });
    assert.equal(down.structuredContent?.text, 'from-the-sandbox');
    // Audited by the manager (the session, never its key) and by the sandbox's server (the run and its call).
    const line = log.lines.find((l) => l.tool === 'sandbox_run_code');
    assert.equal(line?.decision, 'allowed');
    assert.equal(line?.state, 'running');
    assert.match(String(line?.session), /^[0-9a-f]{20}$/);
    assert.doesNotMatch(JSON.stringify(log.lines), /conv-1/);
    const serverLines = servers[0]!.lines.filter((l) => l.event === 'audit');
    assert.ok(serverLines.some((l) => l.tool === 'run_code' && l.run === output.runId));
    assert.ok(serverLines.some((l) => l.tool === 'exec_allowed' && l.run === output.runId));
  });

  it("javascript: a program calls the sandbox's own tool, writes outputs/ and returns its default export", async () => {
    const created = await call('sandbox_create', { sessionKey: 'conv-3', template: 'poly' });
    assert.equal(created.isError, false, created.content[0]?.text);
    const output = await run(
      [
        "const r = await mcp_sandbox.exec_allowed({ command: ['echo', 'from-js'] });",
        'const said = r.structuredContent.stdout.trim();',
        "const { writeFileSync } = await import('node:fs');",
        "writeFileSync('outputs/js.txt', said);",
        "console.log('wrote', said);",
        'export default { said, uid: process.getuid() };',
      ].join('\n'),
      'conv-3',
      'javascript',
    );
    assert.equal(output.exitCode, 0, output.stderr);
    assert.equal(output.error, null);
    assert.match(output.stdout, /wrote from-js/);
    assert.deepEqual(output.returnValue, { said: 'from-js', uid: POD_UID });
    assert.deepEqual(output.outputs, [{ path: 'outputs/js.txt', size: 'from-js'.length }]);
    assert.deepEqual(
      output.mcpCalls.map((c) => [c.server, c.tool, c.ok]),
      [['sandbox', 'exec_allowed', true]],
    );
    const down = await call('sandbox_download', { sessionKey: 'conv-3', path: 'outputs/js.txt' });
    assert.equal(down.structuredContent?.text, 'from-js');
  });

  it('typescript: types stripped, the same call, outputs/ and return value', async () => {
    const output = await run(
      [
        'interface Echo { structuredContent: { stdout: string } }',
        "const r: Echo = await mcp_sandbox.exec_allowed({ command: ['echo', 'from-ts'] });",
        'const said: string = r.structuredContent.stdout.trim();',
        "const { writeFileSync } = await import('node:fs');",
        "writeFileSync('outputs/ts.txt', said);",
        'export default { said, length: said.length };',
      ].join('\n'),
      'conv-3',
      'typescript',
    );
    assert.equal(output.exitCode, 0, output.stderr);
    assert.equal(output.error, null);
    assert.deepEqual(output.returnValue, { said: 'from-ts', length: 7 });
    assert.deepEqual(
      output.outputs.find((o) => o.path === 'outputs/ts.txt'),
      { path: 'outputs/ts.txt', size: 7 },
    );
    assert.deepEqual(
      output.mcpCalls.map((c) => [c.server, c.tool, c.ok]),
      [['sandbox', 'exec_allowed', true]],
    );
  });

  it('opens no TCP socket, though the pod uid unconfined connects (the control)', async () => {
    const py = `import socket\ntry:\n    socket.create_connection(("127.0.0.1", ${tcpPort}), 2); print("CONNECTED")\nexcept OSError as e:\n    print("refused", e)`;
    const before = tcpSeen.length;
    const held = await run(py);
    assert.match(held.stdout, /refused \[Errno 13\]/);
    assert.equal(tcpSeen.length, before);
    assert.match((await direct(py, lab.dir('control'))).stdout, /CONNECTED/);
    assert.equal(tcpSeen.length, before + 1);
  });

  it("cannot read the sandbox's bootstrap token, though the pod uid unconfined can (the control)", async () => {
    const py = `try:\n    print(open(${JSON.stringify(bootstrapFile)}).read())\nexcept OSError as e:\n    print("refused", type(e).__name__)`;
    const held = await run(py);
    assert.match(held.stdout, /refused PermissionError/);
    assert.ok(!JSON.stringify(held).includes(BOOTSTRAP));
    assert.ok((await direct(py, lab.dir('control'))).stdout.includes(BOOTSTRAP));
  });

  it('refuses a language the template does not run, a timeout above its maximum, and a template without code mode', async () => {
    const runs = () => servers[0]!.lines.filter((l) => l.event === 'audit' && l.tool === 'run_code').length;
    const before = runs();
    const js = await call('sandbox_run_code', {
      sessionKey: 'conv-1',
      language: 'javascript',
      code: 'export default 1;',
    });
    assert.equal(js.isError, true);
    assert.match(js.content[0]!.text, /^TOOLYARD_SANDBOX_NO_CODE_MODE: template "py" runs python programs/);
    const long = await call('sandbox_run_code', {
      sessionKey: 'conv-1',
      language: 'python',
      code: '1',
      timeoutSeconds: 61,
    });
    assert.match(long.content[0]!.text, /^TOOLYARD_SANDBOX_TIMEOUT_EXCEEDS_MAX/);
    assert.equal(runs(), before, 'nothing reached the sandbox');
    const plain = await call('sandbox_create', { sessionKey: 'conv-2', template: 'plain' });
    assert.equal(plain.isError, false, plain.content[0]?.text);
    const refused = await call('sandbox_run_code', { sessionKey: 'conv-2', language: 'python', code: '1' });
    assert.match(
      refused.content[0]!.text,
      /^TOOLYARD_SANDBOX_NO_CODE_MODE: template "plain" has no code mode/,
    );
    assert.equal(
      log.lines.filter((l) => l.tool === 'sandbox_run_code' && l.code === 'TOOLYARD_SANDBOX_NO_CODE_MODE')
        .length,
      2,
    );
    assert.ok(
      log.lines.every(
        (l) =>
          l.tool !== 'sandbox_run_code' ||
          l.code !== 'TOOLYARD_SANDBOX_NO_CODE_MODE' ||
          l.decision === 'denied',
      ),
    );
  });
});
