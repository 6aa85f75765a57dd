/**
 * `node mcp-exec.ts <url> <argv JSON>`: calls a toolchain server's `exec_allowed` with that argv, as a backend
 * would (run in the agent pod's network namespace), and prints the tool's structured result as one JSON line.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [url, argv] = process.argv.slice(2) as [string, string];
const client = new Client({ name: 'broker-e2e', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
const result = await client.callTool({ name: 'exec_allowed', arguments: { command: JSON.parse(argv) } });
process.stdout.write(
  `${JSON.stringify({ isError: result.isError ?? false, result: result.structuredContent ?? result.content })}\n`,
);
await client.close();
