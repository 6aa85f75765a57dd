import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planAgent } from '../../constructs/src/plan.ts';
import { toolchainServerConfig } from '../../constructs/src/toolchain-config.ts';
import { parseToolchainServerConfig } from '../../toolchain-server/src/config.ts';
import { find, type Json, labelsFor, minimalAgent, objectsOf, podSpecOf, rustToolchain } from './fixtures.ts';

const securityContext = {
  allowPrivilegeEscalation: false,
  capabilities: { drop: ['ALL'] },
  privileged: false,
  readOnlyRootFilesystem: true,
  runAsGroup: 65532,
  runAsNonRoot: true,
  runAsUser: 65532,
  seccompProfile: { type: 'RuntimeDefault' },
};

describe('ToolchainSidecar', () => {
  const objects = objectsOf(minimalAgent({ toolchains: [rustToolchain] }));
  const pod = podSpecOf(objects, 'tiny');

  it('runs the injected server in the stock image, hardened, with scratch space and probes on the health port', () => {
    const container = pod.containers.find((c: { name: string }) => c.name === 'toolchain-rust');
    assert.deepEqual(container, {
      command: [
        '/opt/toolyard/bin/node',
        '--max-semi-space-size=1',
        '/opt/toolyard/toolchain-server.mjs',
        '--config',
        '/etc/toolyard/toolchain/config.json',
      ],
      env: [
        { name: 'HOME', value: '/home/toolyard' },
        { name: 'TMPDIR', value: '/tmp' },
        { name: 'XDG_CACHE_HOME', value: '/home/toolyard/.cache' },
        { name: 'CARGO_HOME', value: '/home/toolyard/.cargo' },
        { name: 'GOPATH', value: '/home/toolyard/go' },
        { name: 'GOCACHE', value: '/home/toolyard/.cache/go-build' },
        { name: 'npm_config_cache', value: '/home/toolyard/.npm' },
        { name: 'UV_CACHE_DIR', value: '/home/toolyard/.cache/uv' },
        { name: 'PIP_CACHE_DIR', value: '/home/toolyard/.cache/pip' },
        { name: 'TF_PLUGIN_CACHE_DIR', value: '/home/toolyard/.terraform.d/plugin-cache' },
        { name: 'HELM_CACHE_HOME', value: '/home/toolyard/.cache/helm' },
        { name: 'HELM_CONFIG_HOME', value: '/home/toolyard/.config/helm' },
        { name: 'HELM_DATA_HOME', value: '/home/toolyard/.local/share/helm' },
      ],
      image: 'docker.io/library/rust:1.83',
      imagePullPolicy: 'IfNotPresent',
      livenessProbe: {
        failureThreshold: 3,
        httpGet: { path: '/healthz', port: 9702 },
        initialDelaySeconds: 5,
        periodSeconds: 20,
        timeoutSeconds: 2,
      },
      name: 'toolchain-rust',
      ports: [{ containerPort: 9702, name: 'health-9702', protocol: 'TCP' }],
      readinessProbe: {
        failureThreshold: 3,
        httpGet: { path: '/readyz', port: 9702 },
        periodSeconds: 10,
        timeoutSeconds: 2,
      },
      resources: { limits: { memory: '2Gi' }, requests: { cpu: '500m', memory: '1Gi' } },
      securityContext,
      volumeMounts: [
        { mountPath: '/workspace', name: 'workspace' },
        { mountPath: '/tmp', name: 'toolchain-rust-tmp' },
        { mountPath: '/home/toolyard', name: 'toolchain-rust-home' },
        { mountPath: '/etc/toolyard/toolchain', name: 'toolchain-rust-config', readOnly: true },
        { mountPath: '/opt/toolyard', name: 'toolyard-server', readOnly: true },
      ],
    });
  });

  it('installs the server bundle with one hardened init container into an emptyDir', () => {
    assert.deepEqual(pod.initContainers, [
      {
        command: ['cp', '-R', '/opt/toolyard/.', '/toolyard/'],
        image: 'ghcr.io/toolyard/toolchain-server:0.1.0',
        imagePullPolicy: 'IfNotPresent',
        name: 'toolyard-install',
        resources: { limits: { memory: '64Mi' }, requests: { cpu: '50m', memory: '32Mi' } },
        securityContext,
        volumeMounts: [{ mountPath: '/toolyard', name: 'toolyard-server' }],
      },
    ]);
  });

  it('omits the installer when every toolchain image brings its own server', () => {
    const pod2 = podSpecOf(
      objectsOf(minimalAgent({ toolchains: [{ ...rustToolchain, injectServer: false }] })),
      'tiny',
    );
    assert.equal(pod2.initContainers, undefined);
    assert.ok(!pod2.volumes.some((v: { name: string }) => v.name === 'toolyard-server'));
  });

  it('emits a config the toolchain server parses, bound to 127.0.0.1 with a probe-only health listener', () => {
    const configMap = find(objects, 'ConfigMap', 'tiny-toolchain-rust') as Json;
    assert.deepEqual(configMap.metadata.labels, labelsFor('tiny', 'agent'));
    const parsed = parseToolchainServerConfig(JSON.parse(configMap.data['config.json']!));
    assert.ok(parsed.ok, JSON.stringify(parsed));
    assert.deepEqual(parsed.config.listen, {
      host: '127.0.0.1',
      port: 8702,
      allowedHosts: [],
      allowUnauthenticated: false,
    });
    assert.deepEqual(parsed.config.health, { host: '0.0.0.0', port: 9702, metrics: false });
    assert.deepEqual(parsed.config.workspaceRoots, ['/workspace']);
    assert.deepEqual(parsed.config.tools, { mode: 'exec', presets: ['cargo'], allowedCommands: ['cargo'] });
    assert.equal(parsed.config.env.set['HOME'], '/home/toolyard');
    assert.ok(parsed.config.env.passthrough.includes('PATH'));
  });

  it('carries every limit and routing hint of the spec into the server config', () => {
    const plan = planAgent(
      minimalAgent({
        toolchains: [
          {
            ...rustToolchain,
            handles: { commands: ['cargo'], files: ['Cargo.toml'] },
            limits: {
              defaultTimeoutSeconds: 60,
              maxTimeoutSeconds: 120,
              maxOutputBytes: 4096,
              maxConcurrency: 3,
              maxQueue: 0,
              confinement: 'required',
              connect: 'egress',
              testPorts: [8080],
            },
            env: { RUSTFLAGS: '-Dwarnings' },
          },
        ],
      }),
    );
    const config = toolchainServerConfig(plan.toolchains[0]!, '/src');
    assert.deepEqual(config.limits, {
      defaultTimeoutSeconds: 60,
      maxTimeoutSeconds: 120,
      maxOutputBytes: 4096,
      maxConcurrency: 3,
      maxQueue: 0,
      confinement: 'required',
      connect: 'egress',
      testPorts: [8080],
    });
    // Without a spec value, a rendered toolchain drops the TCP rule: its pod bounds egress (docs/confinement.md).
    const defaults = toolchainServerConfig(
      planAgent(minimalAgent({ toolchains: [rustToolchain] })).toolchains[0]!,
      '/src',
    );
    assert.equal(defaults.limits?.connect, 'pod');
    assert.deepEqual(config.handles, { commands: ['cargo'], files: ['Cargo.toml'] });
    assert.deepEqual(config.workspaceRoots, ['/src']);
    assert.ok(config.env?.passthrough?.includes('RUSTFLAGS'));
  });

  it('never gives a toolchain container a Secret reference', () => {
    const pod3 = podSpecOf(
      objectsOf(
        minimalAgent({
          backends: [
            {
              name: 'claude',
              type: 'claude',
              image: { repository: 'x', tag: '1' },
              port: 8080,
              model: { apiKeySecret: { name: 'm', key: 'k' } },
              secretEnv: [{ name: 'KEY', secretName: 's', key: 'k' }],
            },
          ],
          toolchains: [rustToolchain],
          gateways: [
            {
              name: 'gh',
              url: 'https://gh.example/mcp',
              auth: { bearerTokenSecret: { name: 't', key: 'k' } },
            },
          ],
        }),
      ),
      'tiny',
    );
    const toolchain = pod3.containers.find((c: { name: string }) => c.name === 'toolchain-rust');
    assert.equal(JSON.stringify(toolchain).includes('secretKeyRef'), false);
    const backend = pod3.containers.find((c: { name: string }) => c.name === 'claude');
    // Its own secretEnv, and its broker token twice (TOOLYARD_BROKER_TOKEN, ANTHROPIC_API_KEY); the gateway's
    // token is the broker's.
    assert.equal((JSON.stringify(backend).match(/secretKeyRef/g) ?? []).length, 3);
    assert.equal(JSON.stringify(backend).includes('"name":"t"'), false);
  });

  it('with auth, mounts only its own token as a read-only file the server reads; backends get it by reference', () => {
    const objects = objectsOf(
      minimalAgent({
        toolchains: [{ ...rustToolchain, auth: { bearerTokenSecret: { name: 'rust-token', key: 'token' } } }],
      }),
    );
    const pod = podSpecOf(objects, 'tiny');
    const toolchain = pod.containers.find((c: { name: string }) => c.name === 'toolchain-rust');
    assert.equal(JSON.stringify(toolchain.env).includes('secretKeyRef'), false, 'never in its environment');
    assert.deepEqual(
      toolchain.volumeMounts.find((m: { mountPath: string }) => m.mountPath === '/etc/toolyard/auth'),
      { name: 'toolchain-rust-token', mountPath: '/etc/toolyard/auth', readOnly: true },
    );
    assert.deepEqual(
      pod.volumes.find((v: { name: string }) => v.name === 'toolchain-rust-token'),
      {
        name: 'toolchain-rust-token',
        secret: {
          secretName: 'rust-token',
          items: [{ key: 'token', path: 'token', mode: 0o440 }],
          defaultMode: 0o440,
        },
      },
    );
    const config = JSON.parse(
      (find(objects, 'ConfigMap', 'tiny-toolchain-rust') as Json).data['config.json'],
    );
    assert.deepEqual(config.auth, { bearerTokenFile: '/etc/toolyard/auth/token' });
    assert.equal(parseToolchainServerConfig(config).ok, true);
    const backend = pod.containers.find((c: { name: string }) => c.name === 'claude');
    assert.deepEqual(
      backend.env.find((e: { name: string }) => e.name === 'TOOLYARD_TOOLCHAIN_RUST_TOKEN'),
      {
        name: 'TOOLYARD_TOOLCHAIN_RUST_TOKEN',
        valueFrom: { secretKeyRef: { name: 'rust-token', key: 'token' } },
      },
    );
    const mcp = JSON.parse(
      (find(objects, 'ConfigMap', 'tiny-mcp-clients') as Json).data['claude.managed-mcp.json'],
    );
    assert.deepEqual(mcp.mcpServers['toolchain-rust'].headers, {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the client config names the variable, literally
      Authorization: 'Bearer ${TOOLYARD_TOOLCHAIN_RUST_TOKEN}',
    });
    // The other toolchains' tokens are never in this one's reach.
    assert.equal(
      pod.containers.filter((c: { volumeMounts: { name: string }[] }) =>
        c.volumeMounts.some((m) => m.name === 'toolchain-rust-token'),
      ).length,
      1,
    );
  });
});
