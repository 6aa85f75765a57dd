import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mcpClientConfigFiles } from '../../constructs/src/mcp-client-configs.ts';
import { planAgent } from '../../constructs/src/plan.ts';
import { find, type Json, minimalAgent, objectsOf, podSpecOf, rustToolchain } from './fixtures.ts';

/** What the configs must contain literally: a reference that the backend runtime expands from its env. */
const TOKEN_REFERENCE = ['Bearer $', '{TOOLYARD_GATEWAY_KUBERNETES_TOKEN}'].join('');

const agent = minimalAgent({
  backends: [
    { name: 'claude', type: 'claude', image: { repository: 'c', tag: '1' }, port: 8080 },
    { name: 'codex', type: 'openai', image: { repository: 'o', tag: '1' }, port: 8081 },
    { name: 'gemini', type: 'gemini', image: { repository: 'g', tag: '1' }, port: 8082 },
  ],
  toolchains: [rustToolchain],
  gateways: [
    {
      name: 'kubernetes',
      image: { repository: 'k', tag: '1' },
      port: 8000,
      auth: { bearerTokenSecret: { name: 'k8s-token', key: 'token' } },
    },
    { name: 'github', url: 'https://mcp.github.example/mcp' },
  ],
});

describe('MCP client configs', () => {
  const files = mcpClientConfigFiles(planAgent(agent));
  const byBackend = Object.fromEntries(files.map((f) => [f.backend, f]));

  it('writes Claude Code mcpServers JSON with type http and the token as an env reference', () => {
    assert.equal(
      byBackend['claude']!.content,
      `${JSON.stringify(
        {
          mcpServers: {
            'toolchain-rust': { type: 'http', url: 'http://127.0.0.1:8702/mcp' },
            kubernetes: {
              type: 'http',
              url: 'http://tiny-kubernetes.agents.svc:8000/mcp',
              headers: { Authorization: TOKEN_REFERENCE },
            },
            github: { type: 'http', url: 'https://mcp.github.example/mcp' },
          },
        },
        null,
        2,
      )}\n`,
    );
  });

  it('writes Codex config.toml tables with bearer_token_env_var', () => {
    assert.equal(
      byBackend['codex']!.content,
      [
        '[mcp_servers.toolchain-rust]',
        'url = "http://127.0.0.1:8702/mcp"',
        '',
        '[mcp_servers.kubernetes]',
        'url = "http://tiny-kubernetes.agents.svc:8000/mcp"',
        'bearer_token_env_var = "TOOLYARD_GATEWAY_KUBERNETES_TOKEN"',
        '',
        '[mcp_servers.github]',
        'url = "https://mcp.github.example/mcp"',
        '',
      ].join('\n'),
    );
  });

  it('writes Gemini CLI settings.json with httpUrl', () => {
    const settings = JSON.parse(byBackend['gemini']!.content);
    assert.deepEqual(settings.mcpServers['toolchain-rust'], { httpUrl: 'http://127.0.0.1:8702/mcp' });
    assert.deepEqual(settings.mcpServers.kubernetes.headers, {
      Authorization: TOKEN_REFERENCE,
    });
  });

  it('mounts each backend only its own file, where its runtime looks for it', () => {
    const objects = objectsOf(agent);
    const configMap = find(objects, 'ConfigMap', 'tiny-mcp-clients') as Json;
    assert.deepEqual(Object.keys(configMap.data).sort(), [
      'claude.mcp.json',
      'codex.config.toml',
      'gemini.settings.json',
    ]);
    const pod = podSpecOf(objects, 'tiny');
    const codexVolume = pod.volumes.find((v: { name: string }) => v.name === 'codex-mcp');
    assert.deepEqual(codexVolume.configMap, {
      items: [{ key: 'codex.config.toml', path: 'config.toml' }],
      name: 'tiny-mcp-clients',
    });
    const codex = pod.containers.find((c: { name: string }) => c.name === 'codex');
    const env = Object.fromEntries(
      codex.env.filter((e: Json) => e.value).map((e: Json) => [e.name, e.value]),
    );
    assert.equal(env.CODEX_HOME, '/etc/toolyard/mcp');
    assert.equal(env.TOOLYARD_MCP_CONFIG, '/etc/toolyard/mcp/config.toml');
  });

  it('never writes a credential value into a config', () => {
    for (const file of files) assert.ok(!/k8s-token|"token"/.test(file.content), file.backend);
  });
});
