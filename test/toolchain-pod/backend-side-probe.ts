/**
 * Runs in the agent pod's network namespace, as a backend would: reads the backend's rendered MCP client
 * config (Claude Code's `managed-mcp.json`), expands `${VAR}` in its headers from the environment (where the backend
 * gets `TOOLYARD_TOOLCHAIN_<NAME>_TOKEN`), and calls the toolchain at the URL the config names. Prints one JSON
 * object with what each attempt got. Usage: node backend-side-probe.ts <mcp.json> <server name> <pod IP>
 */
import { lookup } from 'node:dns/promises';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [configFile, serverName, podIp] = process.argv.slice(2) as [string, string, string];
const config = JSON.parse(readFileSync(configFile, 'utf8')) as {
  mcpServers: Record<string, { url: string; headers?: Record<string, string> }>;
};
const server = config.mcpServers[serverName]!;
const url = new URL(server.url);
const headers = Object.fromEntries(
  Object.entries(server.headers ?? {}).map(([k, v]) => [
    k,
    v.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => process.env[name] ?? ''),
  ]),
);

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
});

/** One raw POST of `initialize`: the HTTP status (or the connection error's code) and the auth challenge. */
function post(
  host: string,
  address: string,
  port: number,
  extra: Record<string, string>,
): Promise<{ status: number | string; challenge?: string }> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: address,
        port,
        path: url.pathname,
        method: 'POST',
        headers: {
          host: `${host}:${port}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...extra,
        },
        timeout: 5000,
      },
      (res) => {
        res.resume();
        resolve({
          status: res.statusCode ?? 0,
          ...(res.headers['www-authenticate'] ? { challenge: String(res.headers['www-authenticate']) } : {}),
        });
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ status: error.code ?? error.message }));
    req.end(INITIALIZE);
  });
}

const port = Number(url.port);
const resolved = (await lookup(url.hostname, { family: 4 })).address;
const result: Record<string, unknown> = {
  url: server.url,
  resolved,
  tokenSent: Object.keys(headers).some((k) => k.toLowerCase() === 'authorization'),
};
result['withoutToken'] = await post(url.hostname, resolved, port, {});
result['wrongToken'] = await post(url.hostname, resolved, port, { authorization: 'Bearer not-the-token' });
result['foreignHost'] = await post('evil.example', resolved, port, headers);
result['podIpAsHost'] = await post(podIp, resolved, port, headers);
result['loopback'] = await post('127.0.0.1', '127.0.0.1', port, headers);

const client = new Client({ name: 'backend-side-probe', version: '1.0.0' });
try {
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  const tools = await client.listTools();
  result['tools'] = tools.tools.map((t) => t.name).sort();
  const described = await client.callTool({ name: 'describe_toolchain', arguments: {} });
  result['described'] = { isError: described.isError === true };
  const ran = await client.callTool({ name: 'exec_allowed', arguments: { command: ['node', 'version.js'] } });
  result['ran'] = { isError: ran.isError === true, structured: ran.structuredContent, content: ran.content };
  await client.close();
} catch (error) {
  result['clientError'] = (error as Error).message;
}
process.stdout.write(`${JSON.stringify(result)}\n`);
