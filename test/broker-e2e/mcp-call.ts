/**
 * `node mcp-call.ts <url> <tool> <arguments JSON>`: calls one tool of a toolchain server as a backend would (run
 * in the agent pod's network namespace) and prints `{isError, result}` (the structured result) as one JSON line.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [url, tool, args] = process.argv.slice(2) as [string, string, string];
const client = new Client({ name: 'broker-e2e', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
const result = await client.callTool({ name: tool, arguments: JSON.parse(args) }, undefined, {
  timeout: 600_000,
});
process.stdout.write(
  `${JSON.stringify({ isError: result.isError ?? false, result: result.structuredContent ?? result.content })}\n`,
);
await client.close();
