/** `describe_toolchain`: what this toolchain offers, for routing and for the model's own planning. */
import { z } from 'zod';

export const describeToolchainInput = z.object({}).strict();

export const describeOutputSchema = z.object({
  name: z.string(),
  serverVersion: z.string(),
  mode: z.enum(['structured', 'exec']),
  tools: z.array(z.object({ name: z.string(), description: z.string() })),
  allowedCommands: z.array(
    z.object({ name: z.string(), available: z.boolean(), version: z.string().nullable() }),
  ),
  presets: z.array(
    z.object({
      name: z.string(),
      available: z.boolean(),
      missingBinaries: z.array(z.string()),
      versions: z.record(z.string(), z.string().nullable()),
    }),
  ),
  handles: z.object({ commands: z.array(z.string()), files: z.array(z.string()) }),
  limits: z.object({
    defaultTimeoutSeconds: z.number(),
    maxTimeoutSeconds: z.number(),
    maxOutputBytes: z.number(),
    maxConcurrency: z.number(),
    maxQueue: z.number(),
    maxSessions: z.number(),
  }),
  workspaceRoots: z.array(z.string()),
});

export type ToolchainDescription = z.infer<typeof describeOutputSchema>;
