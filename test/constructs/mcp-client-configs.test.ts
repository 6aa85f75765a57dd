import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'smol-toml';
import { mcpClientConfigFiles } from '../../constructs/src/mcp-client-configs.ts';
import { planAgent } from '../../constructs/src/plan.ts';
import { checkAgentPlan } from '../../constructs/src/semantic-checks.ts';
import { find, type Json, minimalAgent, modelKey, objectsOf, podSpecOf, rustToolchain } from './fixtures.ts';

/** What the configs must contain literally: a reference that the backend runtime expands from its env. */
const TOKEN_REFERENCE = ['Bearer $', '{TOOLYARD_BROKER_TOKEN}'].join('');

const agent = minimalAgent({
  backends: [
    { name: 'claude', type: 'claude', image: { repository: 'c', tag: '1' }, port: 8080, model: modelKey },
    { name: 'codex', type: 'openai', image: { repository: 'o', tag: '1' }, port: 8081, model: modelKey },
    { name: 'gemini', type: 'gemini', image: { repository: 'g', tag: '1' }, port: 8082, model: modelKey },
    {
      name: 'own',
      type: 'custom',
      image: { repository: 'x', tag: '1' },
      port: 8083,
      model: {
        ...modelKey,
        upstream: 'https://llm.example/v1',
        credentialHeader: { name: 'authorization', prefix: 'Bearer ' },
      },
    },
  ],
  toolchains: [{ ...rustToolchain, limits: { maxTimeoutSeconds: 900 } }],
  gateways: [
    {
      name: 'kubernetes',
      image: { repository: 'k', tag: '1' },
      port: 8000,
      auth: { bearerTokenSecret: { name: 'k8s-token', key: 'token' } },
      toolTimeoutSeconds: 120,
    },
    { name: 'github', url: 'https://mcp.github.example/mcp', preApproved: false },
  ],
});

/** TOML as plain JSON values (smol-toml builds null-prototype objects). */
const parseToml = (text: string): Json => JSON.parse(JSON.stringify(parse(text)));

const files = mcpClientConfigFiles(planAgent(agent));
const content = (key: string) => {
  const file = files.find((f) => f.configMapKey === key);
  if (!file) throw new Error(`no ${key} among ${files.map((f) => f.configMapKey).join(', ')}`);
  return file.content;
};
// Both gateways are behind broker routes: the broker holds the kubernetes gateway's token.
const BROKER = 'http://tiny-broker.agents.svc:8480';
const K8S_URL = `${BROKER}/gateway-kubernetes`;
const GITHUB_URL = `${BROKER}/gateway-github`;

describe('Claude Code managed files (/etc/claude-code)', () => {
  it('managed-mcp.json: every server over http, always loaded, timeouts above the toolchain maximum', () => {
    assert.deepEqual(JSON.parse(content('claude.managed-mcp.json')), {
      mcpServers: {
        'toolchain-rust': {
          type: 'http',
          url: 'http://127.0.0.1:8702/mcp',
          alwaysLoad: true,
          timeout: 960_000,
        },
        kubernetes: {
          type: 'http',
          url: K8S_URL,
          headers: { Authorization: TOKEN_REFERENCE },
          alwaysLoad: true,
          timeout: 120_000,
        },
        github: {
          type: 'http',
          url: GITHUB_URL,
          headers: { Authorization: TOKEN_REFERENCE },
          alwaysLoad: true,
          timeout: 600_000,
        },
      },
    });
  });

  it('managed-settings.json: pre-approves all but the withheld gateway, ignores workspace rules, hooks and servers', () => {
    assert.deepEqual(JSON.parse(content('claude.managed-settings.json')), {
      permissions: { allow: ['mcp__toolchain-rust', 'mcp__kubernetes'] },
      allowManagedPermissionRulesOnly: true,
      allowManagedHooksOnly: true,
      allowedMcpServers: [
        { serverName: 'toolchain-rust' },
        { serverName: 'kubernetes' },
        { serverName: 'github' },
      ],
      // The model route, in the file a workspace .claude/settings.json cannot override.
      env: { ANTHROPIC_BASE_URL: `${BROKER}/model-claude` },
      // Pinned, so a workspace apiKeyHelper never runs (test/broker-e2e proves both with the real CLI).
      apiKeyHelper: 'printenv ANTHROPIC_API_KEY',
    });
  });
});

describe('Codex system layer (/etc/codex)', () => {
  it('config.toml: approval mode per server, the token by variable name, required toolchains', () => {
    assert.equal(
      content('codex.config.toml'),
      [
        'check_for_update_on_startup = false',
        'model_provider = "toolyard"',
        '',
        '[model_providers.toolyard]',
        'name = "toolyard"',
        `base_url = "${BROKER}/model-codex"`,
        'env_key = "OPENAI_API_KEY"',
        'wire_api = "responses"',
        '',
        '[mcp_servers.toolchain-rust]',
        'url = "http://127.0.0.1:8702/mcp"',
        'required = true',
        'startup_timeout_sec = 30',
        'tool_timeout_sec = 960',
        'default_tools_approval_mode = "approve"',
        '',
        '[mcp_servers.kubernetes]',
        `url = "${K8S_URL}"`,
        'bearer_token_env_var = "TOOLYARD_BROKER_TOKEN"',
        'startup_timeout_sec = 30',
        'tool_timeout_sec = 120',
        'default_tools_approval_mode = "approve"',
        '',
        '[mcp_servers.github]',
        `url = "${GITHUB_URL}"`,
        'bearer_token_env_var = "TOOLYARD_BROKER_TOKEN"',
        'startup_timeout_sec = 30',
        'tool_timeout_sec = 600',
        'default_tools_approval_mode = "prompt"',
        '',
      ].join('\n'),
    );
  });

  it('requirements.toml: allows exactly these servers, by name and URL', () => {
    assert.deepEqual(parseToml(content('codex.requirements.toml')), {
      mcp_servers: {
        'toolchain-rust': { identity: { url: 'http://127.0.0.1:8702/mcp' } },
        kubernetes: { identity: { url: K8S_URL } },
        github: { identity: { url: GITHUB_URL } },
      },
    });
  });
});

describe('Gemini CLI system settings (/etc/gemini-cli/settings.json)', () => {
  it('url + type http, trust as pre-approval, and the keys a trusted workspace could otherwise set', () => {
    assert.deepEqual(JSON.parse(content('gemini.settings.json')), {
      mcpServers: {
        'toolchain-rust': { type: 'http', url: 'http://127.0.0.1:8702/mcp', trust: true, timeout: 960_000 },
        kubernetes: {
          type: 'http',
          url: K8S_URL,
          headers: { Authorization: TOKEN_REFERENCE },
          trust: true,
          timeout: 120_000,
        },
        github: {
          type: 'http',
          url: GITHUB_URL,
          headers: { Authorization: TOKEN_REFERENCE },
          trust: false,
          timeout: 600_000,
        },
      },
      // github withholds pre-approval: Gemini CLI's allowlist is also its approval list.
      mcp: { allowed: ['toolchain-rust', 'kubernetes'], serverCommand: '' },
      tools: { discoveryCommand: '', callCommand: '' },
      hooksConfig: { enabled: false },
      advanced: { ignoreLocalEnv: true },
      // With GOOGLE_GEMINI_BASE_URL alone Gemini CLI picks its "gateway" auth type, which `gemini -p` refuses.
      security: { auth: { selectedType: 'gemini-api-key' } },
      general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
    });
  });
});

describe('Gemini CLI allowlist', () => {
  it('never empty, which Gemini CLI would read as no allowlist', () => {
    const onlyWithheld = minimalAgent({
      backends: [
        { name: 'gemini', type: 'gemini', image: { repository: 'g', tag: '1' }, port: 8082, model: modelKey },
      ],
      gateways: [{ name: 'github', url: 'https://mcp.github.example/mcp', preApproved: false }],
    });
    const settings = JSON.parse(mcpClientConfigFiles(planAgent(onlyWithheld))[0]?.content ?? '{}');
    assert.deepEqual(settings.mcp.allowed, ['toolyard:none']);
  });
});

describe('custom backends', () => {
  it('get the server list in all three formats', () => {
    assert.deepEqual(
      files.filter((f) => f.backend === 'own').map((f) => f.path),
      ['/etc/toolyard/mcp/mcp.json', '/etc/toolyard/mcp/config.toml', '/etc/toolyard/mcp/settings.json'],
    );
    assert.deepEqual(Object.keys(JSON.parse(content('own.mcp.json')).mcpServers), [
      'toolchain-rust',
      'kubernetes',
      'github',
    ]);
    assert.deepEqual(Object.keys(parseToml(content('own.config.toml')).mcp_servers as object), [
      'toolchain-rust',
      'kubernetes',
      'github',
    ]);
    assert.equal(JSON.parse(content('own.settings.json')).mcpServers.github.trust, false);
  });
});

describe('mounts and environment', () => {
  const objects = objectsOf(agent);
  const pod = podSpecOf(objects, 'tiny');
  const container = (name: string) => pod.containers.find((c: { name: string }) => c.name === name);
  const volume = (name: string) => pod.volumes.find((v: { name: string }) => v.name === name);
  const plainEnv = (name: string) =>
    Object.fromEntries(
      container(name)
        .env.filter((e: Json) => e.value !== undefined)
        .map((e: Json) => [e.name, e.value]),
    );
  const mountOf = (name: string) => container(name).volumeMounts.find((m: Json) => m.name === `${name}-mcp`);

  it('one ConfigMap with every file, keyed <backend>.<file>', () => {
    assert.deepEqual(Object.keys((find(objects, 'ConfigMap', 'tiny-mcp-clients') as Json).data).sort(), [
      'claude.managed-mcp.json',
      'claude.managed-settings.json',
      'codex.config.toml',
      'codex.requirements.toml',
      'gemini.settings.json',
      'own.config.toml',
      'own.mcp.json',
      'own.settings.json',
    ]);
  });

  it('Claude Code and Codex: their managed directory, read-only; Gemini CLI: the one file by subPath', () => {
    assert.deepEqual(mountOf('claude'), {
      name: 'claude-mcp',
      mountPath: '/etc/claude-code',
      readOnly: true,
    });
    assert.deepEqual(mountOf('codex'), { name: 'codex-mcp', mountPath: '/etc/codex', readOnly: true });
    assert.deepEqual(mountOf('gemini'), {
      name: 'gemini-mcp',
      mountPath: '/etc/gemini-cli/settings.json',
      subPath: 'settings.json',
      readOnly: true,
    });
    assert.deepEqual(mountOf('own'), { name: 'own-mcp', mountPath: '/etc/toolyard/mcp', readOnly: true });
    assert.deepEqual(volume('gemini-mcp').configMap, {
      name: 'tiny-mcp-clients',
      items: [{ key: 'gemini.settings.json', path: 'settings.json' }],
    });
  });

  it('the CLIs find their configs without flags; git ignores hooks and fsmonitor planted in the workspace', () => {
    const git = {
      GIT_CONFIG_COUNT: '3',
      GIT_CONFIG_KEY_0: 'core.hooksPath',
      GIT_CONFIG_VALUE_0: '/dev/null',
      GIT_CONFIG_KEY_1: 'core.fsmonitor',
      GIT_CONFIG_VALUE_1: 'false',
      GIT_CONFIG_KEY_2: 'safe.directory',
      GIT_CONFIG_VALUE_2: '/workspace',
    };
    const base = { HOME: '/home/toolyard', TMPDIR: '/tmp' };
    const route = (backend: string) => ({ TOOLYARD_BROKER_URL: `${BROKER}/model-${backend}` });
    assert.deepEqual(plainEnv('claude'), { ...base, DISABLE_AUTOUPDATER: '1', ...git, ...route('claude') });
    assert.deepEqual(plainEnv('codex'), { ...base, ...git, ...route('codex') });
    assert.deepEqual(plainEnv('gemini'), {
      ...base,
      GEMINI_CLI_SYSTEM_SETTINGS_PATH: '/etc/gemini-cli/settings.json',
      GEMINI_CLI_TRUST_WORKSPACE: 'true',
      GOOGLE_GEMINI_BASE_URL: `${BROKER}/model-gemini`,
      ...git,
      ...route('gemini'),
    });
    assert.deepEqual(plainEnv('own'), {
      ...base,
      TOOLYARD_MCP_CONFIG: '/etc/toolyard/mcp/mcp.json',
      TOOLYARD_MCP_CONFIG_DIR: '/etc/toolyard/mcp',
      ...git,
      ...route('own'),
    });
  });

  it("each backend's key variable and TOOLYARD_BROKER_TOKEN hold its own broker token; no provider key, no gateway token", () => {
    const secretEnv = (name: string) =>
      Object.fromEntries(
        container(name)
          .env.filter((e: Json) => e.valueFrom)
          .map((e: Json) => [e.name, `${e.valueFrom.secretKeyRef.name}/${e.valueFrom.secretKeyRef.key}`]),
      );
    assert.deepEqual(secretEnv('claude'), {
      TOOLYARD_BROKER_TOKEN: 'tiny-broker-tokens/claude',
      ANTHROPIC_API_KEY: 'tiny-broker-tokens/claude',
    });
    assert.deepEqual(secretEnv('codex'), {
      TOOLYARD_BROKER_TOKEN: 'tiny-broker-tokens/codex',
      OPENAI_API_KEY: 'tiny-broker-tokens/codex',
    });
    assert.deepEqual(secretEnv('gemini'), {
      TOOLYARD_BROKER_TOKEN: 'tiny-broker-tokens/gemini',
      GEMINI_API_KEY: 'tiny-broker-tokens/gemini',
    });
    assert.deepEqual(secretEnv('own'), { TOOLYARD_BROKER_TOKEN: 'tiny-broker-tokens/own' });
  });

  it('never writes a credential value into a config', () => {
    for (const file of files) assert.ok(!/k8s-token|"token"/.test(file.content), file.configMapKey);
  });
});

describe('backend settings', () => {
  const withSettings = (type: 'claude' | 'openai' | 'gemini', settings: Record<string, unknown>) =>
    minimalAgent({
      backends: [
        { name: 'b', type, image: { repository: 'x', tag: '1' }, port: 8080, settings, model: modelKey },
      ],
    });

  it('are merged under the generated keys: Codex gets TOML, JSON CLIs get JSON', () => {
    const codex = mcpClientConfigFiles(
      planAgent(
        withSettings('openai', {
          model: 'gpt-5.2',
          model_providers: { proxy: { base_url: 'https://p/v1' } },
        }),
      ),
    ).find((f) => f.fileName === 'config.toml');
    assert.deepEqual(parseToml(codex?.content ?? ''), {
      check_for_update_on_startup: false,
      model_provider: 'toolyard',
      model_providers: {
        toolyard: {
          name: 'toolyard',
          base_url: 'http://tiny-broker.agents.svc:8480/model-b',
          env_key: 'OPENAI_API_KEY',
          wire_api: 'responses',
        },
        proxy: { base_url: 'https://p/v1' },
      },
      mcp_servers: {},
      model: 'gpt-5.2',
    });
    const gemini = mcpClientConfigFiles(
      planAgent(withSettings('gemini', { general: { vimMode: true }, model: { name: 'g' } })),
    );
    const settings = JSON.parse(gemini[0]?.content ?? '{}');
    assert.deepEqual(settings.general, {
      enableAutoUpdate: false,
      enableAutoUpdateNotification: false,
      vimMode: true,
    });
    assert.deepEqual(settings.model, { name: 'g' });
  });

  it('cannot override what toolyard generates, nor hold what TOML cannot express', () => {
    const problems = (type: 'claude' | 'openai' | 'gemini', settings: Record<string, unknown>) =>
      checkAgentPlan(planAgent(withSettings(type, settings))).map((p) => `${p.path}: ${p.message}`);
    assert.deepEqual(problems('claude', { allowManagedHooksOnly: false, mcpServers: {} }), [
      '/spec/backends/0/settings/allowManagedHooksOnly: "allowManagedHooksOnly" is set by toolyard to true',
      `/spec/backends/0/settings/mcpServers: "mcpServers" is generated by toolyard: MCP servers are the spec's toolchains and gateways, in managed-mcp.json`,
    ]);
    assert.deepEqual(
      problems('openai', { projects: { '/workspace': { trust_level: 'trusted' } }, x: [1, null] }),
      [
        '/spec/backends/0/settings/projects: "projects" is generated by toolyard: the workspace stays untrusted, so Codex ignores configuration planted in it',
        '/spec/backends/0/settings/x/1: Codex reads TOML: null has no TOML form; leave the key out instead',
      ],
    );
    assert.deepEqual(problems('gemini', { mcp: { allowed: ['*'] } }), [
      '/spec/backends/0/settings/mcp/allowed: "allowed" is set by toolyard to ["toolyard:none"]',
    ]);
  });
});
