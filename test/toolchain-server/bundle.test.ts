/**
 * The image contract without a Docker engine: the single-file bundle runs from a directory laid out like
 * /opt/toolyard (bin/node + toolchain-server.mjs), with no node_modules anywhere above it and a scrubbed
 * environment, started exactly as the entrypoint starts it, and serves MCP over HTTP.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildConfine } from '../../toolchain-server/scripts/build-confine.ts';
import { bundle } from '../../toolchain-server/scripts/bundle.ts';
import { serverCommand } from '../../toolchain-server/src/launch.ts';
import { connectClient, makeWorkspace, type Workspace } from './helpers.ts';
import { type ServerProcess, startServerProcess } from './process-helpers.ts';

describe('bundled server (image entrypoint contract)', () => {
  let ws: Workspace;
  let server: ServerProcess;
  let opt: string;
  before(async () => {
    ws = makeWorkspace();
    opt = join(ws.outside, 'opt', 'toolyard');
    mkdirSync(join(opt, 'bin'), { recursive: true });
    symlinkSync(process.execPath, join(opt, 'bin', 'node'));
    await bundle(join(opt, 'toolchain-server.mjs'));
    // As the image layer has it: the confinement helper in bin/, found next to the bundle.
    await buildConfine(process.arch === 'arm64' ? 'arm64' : 'amd64', join(opt, 'bin', 'toolyard-confine'));
    mkdirSync(join(ws.outside, 'etc', 'toolyard'), { recursive: true });
    server = await startServerProcess({
      // Exactly the image's entrypoint: serverCommand(bundle dir) = [node, ...flags, bundle].
      node: serverCommand(opt)[0],
      nodeFlags: serverCommand(opt).slice(1, -1),
      entry: serverCommand(opt).at(-1),
      dir: join(ws.outside, 'etc', 'toolyard'),
      cwd: '/',
      env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: '/nonexistent' },
      config: {
        name: 'bundled',
        listen: { host: '127.0.0.1', port: 0 },
        workspaceRoots: [ws.root],
        tools: { mode: 'exec', presets: ['go'], allowedCommands: ['echo', 'true'] },
        env: { passthrough: ['PATH'], set: { HOME: '/tmp' } },
      },
    });
  });
  after(async () => {
    server?.child.kill('SIGTERM');
    await server?.exited;
    ws.cleanup();
  });

  it('has no node_modules to lean on anywhere above the bundle', () => {
    for (let dir = opt; ; dir = dirname(dir)) {
      assert.equal(existsSync(join(dir, 'node_modules')), false, `${dir}/node_modules exists`);
      if (dir === dirname(dir)) break;
    }
  });

  it('finds the confinement helper in <bundleDir>/bin and confines calls (best-effort by default)', async () => {
    const ready = (await (await fetch(`${server.url}/readyz`)).json()) as {
      confinement: { mode: string; abi: number; status: string };
    };
    assert.equal(ready.confinement.mode, 'best-effort');
    assert.equal(ready.confinement.status, 'enforced');
    assert.ok(ready.confinement.abi >= 1);
  });

  it('serves MCP over HTTP from the bundle', async () => {
    const client = await connectClient(server.url);
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === 'exec_allowed'));
    assert.ok(tools.some((t) => t.name === 'go_test'));
    const result = await client.callTool({
      name: 'exec_allowed',
      arguments: { command: ['echo', 'from the bundle'] },
    });
    assert.equal((result.structuredContent as { stdout: string }).stdout, 'from the bundle\n');
    const denied = await client.callTool({
      name: 'exec_allowed',
      arguments: { command: ['/bin/sh', '-c', 'id'] },
    });
    assert.equal(denied.isError, true);
    const describe = await client.callTool({ name: 'describe_toolchain', arguments: {} });
    assert.equal((describe.structuredContent as { name: string }).name, 'bundled');
    await client.close();
    assert.ok(
      server.lines.some((l) => l.event === 'audit' && (l.argv as string[] | null)?.[1] === 'from the bundle'),
    );
  });

  it('serves a 2026-07-28 request (per-request server) from the bundle, without the SDK default validator', async () => {
    const revision = '2026-07-28';
    const res = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': revision,
        'mcp-method': 'tools/call',
        'mcp-name': 'exec_allowed',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'exec_allowed',
          arguments: { command: ['echo', 'modern'] },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': revision,
            'io.modelcontextprotocol/clientInfo': { name: 'bundle-test', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    const text = await res.text();
    assert.equal(res.status, 200, text);
    assert.match(text, /"stdout":"modern\\n"/);
  });

  it('leaves out what the server never loads (ajv, schema compilers, inject, pino)', () => {
    const source = readFileSync(join(opt, 'toolchain-server.mjs'), 'utf8');
    for (const name of [
      '@fastify/ajv-compiler',
      '@fastify/fast-json-stringify-compiler',
      'light-my-request',
      'pino',
    ])
      assert.ok(source.includes(`${name} is not in the toolchain server bundle`), name);
    assert.doesNotMatch(source, /schema with key or id|strictSchema/, 'ajv is in the bundle');
  });
});
