/**
 * The sandbox manager config of the in-process tests (agent `tester` in `agents`, agent-sandbox provider, one
 * bootstrap token file), parsed by the manager's own schema: each test names its templates and what it changes.
 */
import assert from 'node:assert/strict';
import {
  parseSandboxManagerConfig,
  type SandboxManagerConfig,
} from '../../toolchain-server/sandbox-manager/config.ts';

/** A template of agent `tester` whose sandbox servers listen on 127.0.0.1:`serverPort`; `overrides` win. */
export function testTemplate(
  name: string,
  serverPort: number,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    name,
    warmPool: `tester-sandbox-${name}`,
    serverPort,
    serverHost: '127.0.0.1',
    cpuMillis: 1000,
    memoryBytes: 1024 ** 3,
    idleTimeoutSeconds: 600,
    retentionSeconds: 3600,
    maxTimeoutSeconds: 30,
    maxUploadBytes: 2048,
    maxDownloadBytes: 2048,
    ...overrides,
  };
}

/** The parsed config with `templates` (the first is the default); `overrides` win over the rest. */
export function testManagerConfig(
  bootstrapFile: string,
  templates: readonly Record<string, unknown>[],
  overrides: Record<string, unknown> = {},
): SandboxManagerConfig {
  const parsed = parseSandboxManagerConfig({
    agent: 'tester',
    namespace: 'agents',
    provider: 'agent-sandbox',
    listen: { port: 0 },
    health: { port: 0 },
    auth: { bearerTokenFile: '/unused' },
    bootstrapTokenFile: bootstrapFile,
    labels: { 'toolyard.dev/sandbox-manager': 'tester' },
    quota: { maxSandboxes: 2, maxSessions: 3, cpuMillis: 0, memoryBytes: 0 },
    templates,
    defaultTemplate: templates[0]?.name,
    ...overrides,
  });
  assert.ok(parsed.ok, JSON.stringify(!parsed.ok && parsed.issues));
  return parsed.config;
}
