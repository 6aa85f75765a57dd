/**
 * Agent specs with `spec.sandboxes` for the chart tests (examples/ has none): one per provider, with a broker (a
 * template with egress by name), two templates, a declared warm pool and idle timeout, and per-agent quotas.
 */
import type { Sandboxes, ToolyardAgent } from '../../schema/src/types.generated.ts';

export function sandboxAgent(provider: NonNullable<Sandboxes['provider']> = 'agent-sandbox'): ToolyardAgent {
  return {
    apiVersion: 'toolyard.dev/v1alpha1',
    kind: 'Agent',
    metadata: { name: provider === 'kubernetes' ? 'analyst-k8s' : 'analyst', namespace: 'agents' },
    spec: {
      backends: [
        {
          name: 'claude',
          type: 'claude',
          image: { repository: 'ghcr.io/example/claude', tag: '1' },
          port: 8080,
          model: { apiKeySecret: { name: 'claude-key', key: 'api-key' } },
        },
      ],
      networkPolicy: { apiServerEgress: { cidrs: ['10.96.0.1/32'], ports: [443] } },
      sandboxes: {
        provider,
        auth: { bearerTokenSecret: { name: 'analyst-sandboxes-token', key: 'token' } },
        bootstrapTokenSecret: { name: 'analyst-sandbox-bootstrap', key: 'token' },
        quota: { maxSandboxes: 6, maxSessions: 40, cpu: '6', memory: '12Gi' },
        templates: [
          {
            name: 'python',
            image: { repository: 'ghcr.io/toolyard/toolchain-go-python', tag: '0.1.0' },
            tools: { allowedCommands: ['python3'] },
            network: { egress: { ecosystems: ['pypi'] } },
            ...(provider === 'kubernetes' ? {} : { warmPool: { replicas: 3 } }),
            idleTimeoutMinutes: 10,
          },
          {
            name: 'offline',
            image: { repository: 'docker.io/library/debian', tag: '13' },
            tools: { allowedCommands: ['sh'] },
            retentionHours: 48,
          },
        ],
      },
    },
  };
}
