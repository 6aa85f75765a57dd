/**
 * The official MCP Inspector CLI (pinned with the backend CLIs, see test/backends/clis) against the server over
 * HTTP, in both protocol eras: `--strict` lists the tools with no schema portability warning, and a tool call
 * comes back with its output.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { buildServer } from '../../toolchain-server/src/http.ts';
import { cliPaths, requireBackendClis } from '../backends/backend-clis.ts';
import { listen, makeConfig, makeWorkspace, memoryLog, type Workspace } from './helpers.ts';

const run = promisify(execFile);

describe('MCP Inspector CLI', () => {
  let ws: Workspace;
  let app: FastifyInstance;
  let url: string;
  let inspector: string;
  before(async () => {
    inspector = cliPaths(requireBackendClis()).inspector;
    ws = makeWorkspace();
    app = buildServer({ config: makeConfig(ws), env: { PATH: process.env.PATH }, log: memoryLog().sink });
    url = `${await listen(app)}/mcp`;
  });
  after(async () => {
    await app.close();
    ws.cleanup();
  });

  const inspect = (...args: string[]) =>
    run(process.execPath, [inspector, '--cli', url, ...args], {
      env: {
        ...process.env,
        NO_COLOR: '1',
        HOME: ws.outside,
        MCP_CATALOG_PATH: `${ws.outside}/catalog.json`,
      },
      timeout: 60_000,
    });

  for (const era of ['legacy', 'modern'] as const) {
    it(`${era} era: --strict lists every tool with no portability warning`, async () => {
      const { stdout, stderr } = await inspect('--method', 'tools/list', '--strict', '--protocol-era', era);
      assert.doesNotMatch(stderr, /warning|error/i, stderr);
      const names = (JSON.parse(stdout) as { tools: { name: string }[] }).tools.map((t) => t.name);
      assert.deepEqual(names, ['exec_allowed', 'describe_toolchain']);
    });

    it(`${era} era: calls exec_allowed`, async () => {
      const { stdout, stderr } = await inspect(
        '--method',
        'tools/call',
        '--tool-name',
        'exec_allowed',
        '--tool-args-json',
        JSON.stringify({ command: ['echo', `inspector-${era}`] }),
        '--protocol-era',
        era,
      );
      assert.doesNotMatch(stderr, /warning|error/i, stderr);
      const result = JSON.parse(stdout) as { structuredContent: { stdout: string; exitCode: number } };
      assert.equal(result.structuredContent.exitCode, 0);
      assert.equal(result.structuredContent.stdout, `inspector-${era}\n`);
    });
  }
});
