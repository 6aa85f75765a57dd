/** `describe_toolchain`: what this toolchain offers, for routing and for the model's own planning. */
import { z } from 'zod';

export const describeToolchainInput = z.object({}).strict();

export const describeOutputSchema = z.object({
  name: z.string().describe('The toolchain name (config `name`).'),
  serverVersion: z.string().describe('Version of the toolchain server.'),
  mode: z.enum(['structured', 'exec']).describe('`exec` adds `exec_allowed` over `allowedCommands`.'),
  tools: z
    .array(z.object({ name: z.string(), description: z.string() }))
    .describe('The tools this toolchain lists, as over MCP.'),
  allowedCommands: z
    .array(z.object({ name: z.string(), available: z.boolean(), version: z.string().nullable() }))
    .describe('Commands `exec_allowed` may run: found on PATH at start, and their version when known.'),
  presets: z
    .array(
      z.object({
        name: z.string(),
        available: z.boolean(),
        missingBinaries: z.array(z.string()),
        versions: z.record(z.string(), z.string().nullable()),
      }),
    )
    .describe(
      'Each structured preset: whether all its binaries were found, which are missing, their versions.',
    ),
  handles: z
    .object({ commands: z.array(z.string()), files: z.array(z.string()) })
    .describe('Routing hints: the commands and file patterns this toolchain is meant for.'),
  limits: z
    .object({
      defaultTimeoutSeconds: z.number(),
      maxTimeoutSeconds: z.number(),
      maxOutputBytes: z.number(),
      maxConcurrency: z.number(),
      maxQueue: z.number(),
      maxSessions: z.number(),
      confinement: z.string().optional(),
      connect: z.string().optional(),
      testPorts: z.array(z.number()).optional(),
    })
    .describe(
      'Timeouts, output cap per stream, concurrent processes, queued calls, open MCP sessions, kernel confinement mode, and TCP connect under confinement (`pod`: any port, the pod network bounds egress; `egress`: only the proxy and `testPorts`).',
    ),
  workspaceRoots: z.array(z.string()).describe('Every cwd and path argument must resolve inside these.'),
  caches: z
    .array(
      z.object({
        name: z.string(),
        ecosystem: z.string(),
        path: z.string(),
        access: z.enum(['read-write', 'read-only']),
        kind: z.enum(['download', 'build']),
      }),
    )
    .describe('Package caches mounted here and how calls may use them (docs/confinement.md).'),
  egress: z
    .enum(['none', 'always', 'fetch'])
    .describe(
      '`none`: no call reaches the network. `always`: every call has the broker proxy. `fetch`: only the fetch tools (cargo_fetch, go_mod_download, npm_ci_fetch, pip_download, uv_sync_fetch) have it and fill the download caches; run them first, then build and test offline.',
    ),
});

export type ToolchainDescription = z.infer<typeof describeOutputSchema>;
