/**
 * Code mode through the real server processes (as uid 65532, confinement required): a program in Python, JavaScript
 * and TypeScript calls another toolchain's tool, a gateway's tool (behind its bearer token) and this toolchain's own,
 * uses the discovery helpers, writes to outputs/ and returns a value; the results carry all of it, the audit lines
 * name the run, the gateway saw its token, and the program saw no token at all.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type FakeGateway, startFakeGateway } from '../backends/fake-gateway.ts';
import { Lab, type LabServer, PATH } from './code-mode/lab.ts';

const TOKENS = {
  cm: 'cm-own-token-0f1e2d3c4b5a69788796a5b4',
  go: 'go-toolchain-token-a1b2c3d4e5f60718293a',
  gateway: 'gateway-token-99887766554433221100ffee',
};

interface RunOutput {
  runId: string;
  exitCode: number | null;
  stdout: string;
  stderr: string;
  returnValue: unknown;
  error: string | null;
  outputs: { path: string; size: number }[];
  mcpCalls: { server: string; tool: string; ok: boolean }[];
}

async function run(client: Client, language: string, code: string) {
  const result = await client.callTool({
    name: 'run_code',
    arguments: { language, code, timeoutSeconds: 60 },
  });
  const output = result.structuredContent as unknown as RunOutput;
  assert.ok(output, `no structured result: ${JSON.stringify(result.content)}`);
  return { result, output, text: (result.content as { text: string }[])[0]?.text ?? '' };
}

describe('code mode: programs call MCP tools through the server', { timeout: 180_000 }, () => {
  let lab: Lab;
  let go: LabServer;
  let cm: LabServer;
  let gateway: FakeGateway;
  let client: Client;
  let cmTokenFiles: string[];

  before(async () => {
    await Lab.build();
    lab = new Lab();
    gateway = await startFakeGateway({
      token: TOKENS.gateway,
      toolName: 'lookup_ticket',
      answer: 'ticket T-1 is open',
    });
    go = await lab.server(
      'go',
      {
        name: 'go',
        listen: { host: '127.0.0.1', port: 0 },
        workspaceRoots: [lab.workspace],
        tools: { mode: 'exec', allowedCommands: ['echo', 'ls'] },
        env: { passthrough: ['PATH'] },
        auth: { bearerTokenFile: lab.token('go', TOKENS.go) },
        limits: { confinement: 'required' },
      },
      TOKENS.go,
    );
    const secrets = lab.dir('own-cm/secrets', 0o700);
    cmTokenFiles = [
      lab.file(join(secrets, 'token'), TOKENS.cm),
      lab.file(join(secrets, 'go-token'), TOKENS.go),
      lab.file(join(secrets, 'gateway-token'), TOKENS.gateway),
    ];
    cm = await lab.server(
      'cm',
      {
        name: 'cm',
        listen: { host: '127.0.0.1', port: 0 },
        workspaceRoots: [lab.workspace],
        tools: { mode: 'exec', allowedCommands: ['echo'] },
        env: { passthrough: ['PATH'] },
        auth: { bearerTokenFile: cmTokenFiles[0] },
        limits: { confinement: 'required' },
        codeMode: {
          languages: ['python', 'node'],
          servers: [
            { name: 'go', kind: 'toolchain', url: `${go.url}/mcp`, tokenFile: cmTokenFiles[1] },
            {
              name: 'tickets',
              kind: 'gateway',
              url: `http://127.0.0.1:${gateway.port}/mcp`,
              tokenFile: cmTokenFiles[2],
            },
            { name: 'cm', kind: 'toolchain' },
          ],
        },
      },
      TOKENS.cm,
    );
    client = await cm.client();
  });
  after(async () => {
    await lab?.close();
    await gateway?.close();
  });

  it('lists run_code with the languages and a description that names no server', async () => {
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === 'run_code');
    assert.ok(tool);
    assert.deepEqual((tool.inputSchema.properties as { language: { enum: string[] } }).language.enum, [
      'python',
      'javascript',
      'typescript',
    ]);
    for (const name of ['tickets', 'lookup_ticket', 'mcp_go'])
      assert.doesNotMatch(tool.description ?? '', new RegExp(name));
    const ready = (await (await fetch(`${cm.url}/readyz`)).json()) as {
      status?: string;
      missingBinaries: string[];
    };
    assert.deepEqual(ready.missingBinaries, []);
  });

  it('python: calls another toolchain, a gateway and itself, discovers tools, writes outputs/, returns a value', async () => {
    const { output, text } = await run(
      client,
      'python',
      [
        'servers = [s["name"] for s in list_servers()]',
        'tools = [t["name"] for t in list_tools("tickets")]',
        'doc = query_tool_docs("tickets", "lookup_ticket")',
        'found = search_tool_docs("ticket lookup")',
        'echoed = mcp_go.exec_allowed(command=["echo", "from-go"])',
        'ticket = mcp_tickets.lookup_ticket({"id": "T-1"})',
        'own = mcp_cm.exec_allowed(command=["echo", "from-self"])',
        'import asyncio',
        'async def both():',
        '    return await asyncio.gather(mcp_go.exec_allowed_async(command=["echo", "a"]), mcp_go.exec_allowed_async(command=["echo", "b"]))',

        'open("outputs/report.txt", "w").write(ticket["text"])',
        'print(echoed["structuredContent"]["stdout"].strip(), own["structuredContent"]["stdout"].strip())',
        '{"servers": servers, "tools": tools, "schema": doc["inputSchema"]["required"], "top": found[0]["tool"], "ticket": ticket["text"]}',
      ].join('\n'),
    );
    assert.equal(output.exitCode, 0, output.stderr);
    assert.equal(output.error, null);
    assert.deepEqual(output.returnValue, {
      servers: ['go', 'tickets', 'cm'],
      tools: ['lookup_ticket'],
      schema: ['id'],
      top: 'lookup_ticket',
      ticket: 'ticket T-1 is open',
    });
    assert.equal(output.stdout.trim(), 'from-go from-self');
    assert.deepEqual(output.outputs, [{ path: 'outputs/report.txt', size: 'ticket T-1 is open'.length }]);
    assert.deepEqual(
      output.mcpCalls.map((c) => `${c.server}.${c.tool}:${c.ok}`),
      ['go.exec_allowed:true', 'tickets.lookup_ticket:true', 'cm.exec_allowed:true'],
    );
    assert.match(text, /^exit 0 in \d+ ms \(python\); 3 MCP calls/);
    assert.ok(gateway.requests.length > 0 && gateway.requests.every((r) => r.authorized));
    // Audit: the run's own line and one code-call line per call, all with the run id; the self call's line too.
    const lines = cm.lines.filter((l) => l.run === output.runId);
    assert.deepEqual(
      lines.filter((l) => l.event === 'code-call').map((l) => `${l.server}.${l.tool}`),
      ['go.exec_allowed', 'tickets.lookup_ticket', 'cm.exec_allowed'],
    );
    assert.ok(lines.some((l) => l.event === 'audit' && l.tool === 'run_code'));
    assert.ok(lines.some((l) => l.event === 'audit' && l.tool === 'exec_allowed'));
  });

  it('python: async calls run concurrently', async () => {
    const { output } = await run(
      client,
      'python',
      [
        'import asyncio',
        'async def main():',
        '    rs = await asyncio.gather(*(mcp_go.exec_allowed_async(command=["echo", str(i)]) for i in range(6)))',
        '    return [r["structuredContent"]["stdout"].strip() for r in rs]',
        'await main()',
      ].join('\n'),
    );
    assert.equal(output.exitCode, 0, output.stderr);
    assert.deepEqual(output.returnValue, ['0', '1', '2', '3', '4', '5']);
  });

  it('javascript: the same, with promises and export default', async () => {
    const { output } = await run(
      client,
      'javascript',
      [
        "const [echoed, ticket] = await Promise.all([mcp_go.exec_allowed({ command: ['echo', 'js'] }), mcp_tickets.lookup_ticket({ id: 'T-1' })]);",
        'console.log(echoed.structuredContent.stdout.trim());',
        "const { writeFileSync } = await import('node:fs');",
        "writeFileSync('outputs/js.txt', ticket.text);",
        'export default { ticket: ticket.text, servers: (await list_servers()).map((s) => s.alias) };',
      ].join('\n'),
    );
    assert.equal(output.exitCode, 0, output.stderr);
    assert.deepEqual(output.returnValue, {
      ticket: 'ticket T-1 is open',
      servers: ['mcp_go', 'mcp_tickets', 'mcp_cm'],
    });
    assert.equal(output.stdout.trim(), 'js');
    assert.deepEqual(output.outputs, [{ path: 'outputs/js.txt', size: 18 }]);
  });

  it('typescript: types are stripped', async () => {
    const { output } = await run(
      client,
      'typescript',
      [
        'interface Ticket { text: string }',
        "const ticket: Ticket = await mcp_tickets.lookup_ticket({ id: 'T-1' });",
        'const summary: string = await capability_summary();',
        'export default { ticket: ticket.text, summary: summary.split("\\n").length };',
      ].join('\n'),
    );
    assert.equal(output.exitCode, 0, output.stderr);
    assert.deepEqual(output.returnValue, { ticket: 'ticket T-1 is open', summary: 3 });
  });

  it('a failing program: its traceback, the error, and a refused server as McpError', async () => {
    const { output, result } = await run(
      client,
      'python',
      [
        'try:',
        '    mcp_servers["go"].call("nope_tool")',
        'except McpError as e:',
        '    print("refused", e.code)',
        'raise ValueError("boom")',
      ].join('\n'),
    );
    assert.equal(result.isError, true);
    assert.equal(output.exitCode, 1);
    assert.match(output.stdout, /refused TOOLYARD_CODE_MODE_CALL_FAILED/);
    assert.match(output.stderr, /ValueError: boom/);
    assert.doesNotMatch(output.stderr, /_toolyard_start/);
    assert.equal(output.error, 'ValueError: boom');
  });

  it('the program sees no token: none in its environment, none readable, none in what it gets back', async () => {
    const files = JSON.stringify(cmTokenFiles);
    const { output } = await run(
      client,
      'python',
      [
        'import os, json',
        'found = []',
        `for f in ${files}:`,
        '    try:',
        '        found.append(open(f).read())',
        '    except OSError as e:',
        '        found.append(type(e).__name__)',
        'found.append(json.dumps(dict(os.environ)))',
        'found.append(json.dumps(mcp_tickets.lookup_ticket({"id": "T-1"})))',
        'found.append(json.dumps(mcp_go.exec_allowed(command=["echo", "x"])))',
        'found',
      ].join('\n'),
    );
    assert.equal(output.exitCode, 0, output.stderr);
    const seen = JSON.stringify(output);
    for (const token of Object.values(TOKENS))
      assert.ok(!seen.includes(token), `the program saw a token: ${seen}`);
    assert.deepEqual((output.returnValue as string[]).slice(0, 3), [
      'PermissionError',
      'PermissionError',
      'PermissionError',
    ]);
    // The control: the same files are readable by the pod's uid outside a call.
    for (const [i, f] of cmTokenFiles.entries()) assert.equal(lab.read(f), Object.values(TOKENS)[i]);
    assert.ok(PATH);
  });
});
