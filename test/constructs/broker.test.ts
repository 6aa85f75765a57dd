/** The broker's objects for a small spec, exactly; its config and the toolchain's egressProxy against the contract. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { BROKER_CONFIG_FILE } from '../../constructs/src/broker.ts';
import { checkSpecText } from '../../constructs/src/check-spec-text.ts';
import * as D from '../../constructs/src/defaults.ts';
import { planAgent } from '../../constructs/src/plan.ts';
import { renderAgent } from '../../constructs/src/render.ts';
import { checkAgentPlan } from '../../constructs/src/semantic-checks.ts';
import {
  BROKER_PATHS,
  DEFAULT_DENIED_CIDRS,
  parseBrokerConfig,
} from '../../toolchain-server/broker/config.ts';
import { parseToolchainServerConfig } from '../../toolchain-server/src/config.ts';
import { exampleFiles, REPO_ROOT } from '../support/golden.ts';
import { find, type Json, labelsFor, minimalAgent, objectsOf, podSpecOf, rustToolchain } from './fixtures.ts';

const agent = minimalAgent({
  toolchains: [
    { ...rustToolchain, network: { egress: { ecosystems: ['crates'], hosts: ['api.github.com'] } } },
  ],
  gateways: [
    {
      name: 'github',
      url: 'https://mcp.github.example/mcp',
      auth: { bearerTokenSecret: { name: 'github-mcp', key: 'token' } },
    },
  ],
});
const objects = objectsOf(agent);
const BROKER = 'http://tiny-broker.agents.svc:8480';
const selector = (component: string) => ({
  'app.kubernetes.io/component': component,
  'app.kubernetes.io/instance': 'tiny',
  'app.kubernetes.io/name': 'tiny',
});
const secretFiles = (secretName: string, items: [string, string][]) => ({
  defaultMode: 0o440,
  items: items.map(([key, path]) => ({ key, mode: 0o440, path })),
  secretName,
});
const dnsRule = {
  ports: [
    { port: 53, protocol: 'UDP' },
    { port: 53, protocol: 'TCP' },
  ],
  to: [
    {
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } },
      podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } },
    },
  ],
};

describe('Broker', () => {
  it('a ServiceAccount without a token and a Service exposing only the proxy port', () => {
    assert.deepEqual(find(objects, 'ServiceAccount', 'tiny-broker'), {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { labels: labelsFor('tiny', 'broker'), name: 'tiny-broker', namespace: 'agents' },
      automountServiceAccountToken: false,
    });
    assert.deepEqual((find(objects, 'Service', 'tiny-broker') as Json).spec, {
      ports: [{ name: 'proxy', port: 8480, protocol: 'TCP', targetPort: 'proxy' }],
      selector: selector('broker'),
      type: 'ClusterIP',
    });
  });

  it("a restricted pod: every caller's token and every route's credential as 0440 files, nothing in env", () => {
    const pod = podSpecOf(objects, 'tiny-broker');
    assert.equal(pod.serviceAccountName, 'tiny-broker');
    assert.equal(pod.automountServiceAccountToken, false);
    assert.equal(pod.enableServiceLinks, false);
    assert.equal(pod.containers.length, 1);
    const container = pod.containers[0];
    assert.equal(container.env, undefined);
    assert.deepEqual(container.command, [
      '/opt/toolyard/bin/node',
      '--max-semi-space-size=1',
      '/opt/toolyard/toolyard-broker.mjs',
      '--config',
      BROKER_PATHS.configFile,
    ]);
    assert.equal(container.image, `ghcr.io/toolyard/toolyard-broker:${D.DEFAULT_BROKER_IMAGE.tag}`);
    assert.deepEqual(container.ports, [
      { containerPort: 8480, name: 'proxy', protocol: 'TCP' },
      { containerPort: 9480, name: 'health', protocol: 'TCP' },
    ]);
    assert.deepEqual(container.readinessProbe.httpGet, { path: '/readyz', port: 9480 });
    assert.deepEqual(container.livenessProbe.httpGet, { path: '/healthz', port: 9480 });
    assert.equal(container.securityContext.readOnlyRootFilesystem, true);
    assert.deepEqual(container.securityContext.capabilities, { drop: ['ALL'] });
    assert.deepEqual(container.volumeMounts, [
      { mountPath: '/tmp', name: 'tmp' },
      { mountPath: BROKER_PATHS.configDir, name: 'config', readOnly: true },
      { mountPath: BROKER_PATHS.callerTokensDir, name: 'caller-tokens', readOnly: true },
      { mountPath: `${BROKER_PATHS.keysDir}/model-claude`, name: 'key-model-claude', readOnly: true },
      { mountPath: `${BROKER_PATHS.keysDir}/gateway-github`, name: 'key-gateway-github', readOnly: true },
    ]);
    assert.deepEqual(pod.volumes, [
      { emptyDir: { sizeLimit: '64Mi' }, name: 'tmp' },
      { configMap: { name: 'tiny-broker' }, name: 'config' },
      {
        name: 'caller-tokens',
        secret: secretFiles('tiny-broker-tokens', [
          ['claude', 'claude'],
          ['toolchain-rust', 'toolchain-rust'],
        ]),
      },
      { name: 'key-model-claude', secret: secretFiles('claude-credentials', [['api-key', 'key']]) },
      { name: 'key-gateway-github', secret: secretFiles('github-mcp', [['token', 'key']]) },
    ]);
  });

  it('its config: one route per model and gateway, one caller per container, and it parses with the contract', () => {
    const json = (find(objects, 'ConfigMap', 'tiny-broker') as Json).data[BROKER_CONFIG_FILE];
    const config = JSON.parse(json);
    assert.deepEqual(config, {
      agent: 'tiny',
      listen: { host: '0.0.0.0', port: 8480, allowedHosts: ['tiny-broker.agents.svc'] },
      health: { host: '0.0.0.0', port: 9480 },
      routes: [
        {
          name: 'model-claude',
          kind: 'model',
          upstream: 'https://api.anthropic.com',
          credential: { file: `${BROKER_PATHS.keysDir}/model-claude/key`, header: 'x-api-key', prefix: '' },
          insecureHttp: false,
        },
        {
          name: 'gateway-github',
          kind: 'gateway',
          upstream: 'https://mcp.github.example/mcp',
          credential: {
            file: `${BROKER_PATHS.keysDir}/gateway-github/key`,
            header: 'authorization',
            prefix: 'Bearer ',
          },
          insecureHttp: false,
        },
      ],
      callers: [
        {
          name: 'claude',
          tokenFile: `${BROKER_PATHS.callerTokensDir}/claude`,
          routes: ['model-claude', 'gateway-github'],
          egress: [],
          openPorts: [],
        },
        {
          name: 'toolchain-rust',
          tokenFile: `${BROKER_PATHS.callerTokensDir}/toolchain-rust`,
          routes: [],
          egress: [
            { host: 'api.github.com', ports: [443] },
            { host: 'crates.io', ports: [443] },
            { host: 'index.crates.io', ports: [443] },
            { host: 'static.crates.io', ports: [443] },
          ],
          openPorts: [],
        },
      ],
      deniedCidrs: [...DEFAULT_DENIED_CIDRS],
    });
    const parsed = parseBrokerConfig(config);
    assert.ok(parsed.ok, JSON.stringify(parsed));
  });

  it('a NetworkPolicy: ingress only from its agent pod on the proxy port; egress DNS and public addresses on 443', () => {
    assert.deepEqual((find(objects, 'NetworkPolicy', 'tiny-broker') as Json).spec, {
      podSelector: { matchLabels: selector('broker') },
      policyTypes: ['Ingress', 'Egress'],
      ingress: [
        {
          from: [{ podSelector: { matchLabels: selector('agent') } }],
          ports: [{ port: 8480, protocol: 'TCP' }],
        },
      ],
      egress: [
        dnsRule,
        {
          ports: [{ port: 443, protocol: 'TCP' }],
          to: [
            { ipBlock: { cidr: '0.0.0.0/0', except: DEFAULT_DENIED_CIDRS.filter((c) => !c.includes(':')) } },
            // IPv4-mapped ranges stay with the broker: the API server refuses them in an ipBlock.
            {
              ipBlock: {
                cidr: '::/0',
                except: DEFAULT_DENIED_CIDRS.filter((c) => c.includes(':') && !c.startsWith('::ffff:')),
              },
            },
          ],
        },
      ],
    });
  });

  it('the agent pod reaches DNS and the broker, nothing else', () => {
    assert.deepEqual((find(objects, 'NetworkPolicy', 'tiny') as Json).spec.egress, [
      dnsRule,
      {
        ports: [{ port: 8480, protocol: 'TCP' }],
        to: [{ podSelector: { matchLabels: selector('broker') } }],
      },
    ]);
  });

  it('the toolchain gets egressProxy in its server config and its own token as a file, the contract parses it', () => {
    const config = JSON.parse(
      (find(objects, 'ConfigMap', 'tiny-toolchain-rust') as Json).data['config.json'],
    );
    assert.deepEqual(config.egressProxy, {
      url: BROKER,
      user: 'toolchain-rust',
      tokenFile: '/etc/toolyard/broker/token',
      noProxy: ['localhost', '127.0.0.1', '::1', 'tiny-broker.agents.svc', '.svc', '.cluster.local'],
    });
    assert.ok(parseToolchainServerConfig(config).ok);
    const pod = podSpecOf(objects, 'tiny');
    const rust = pod.containers.find((c: Json) => c.name === 'toolchain-rust');
    assert.deepEqual(
      rust.volumeMounts.find((m: Json) => m.name === 'toolchain-rust-broker'),
      { mountPath: '/etc/toolyard/broker', name: 'toolchain-rust-broker', readOnly: true },
    );
    assert.deepEqual(
      pod.volumes.find((v: Json) => v.name === 'toolchain-rust-broker').secret,
      secretFiles('tiny-broker-tokens', [['toolchain-rust', 'token']]),
    );
    assert.ok(!(rust.env ?? []).some((e: Json) => e.valueFrom), 'no Secret in the toolchain environment');
  });

  it('a backend with egress gets proxy variables with its own token by reference, never a value', () => {
    const withEgress = minimalAgent({
      backends: [
        {
          name: 'claude',
          type: 'claude',
          image: { repository: 'c', tag: '1' },
          port: 8080,
          model: { apiKeySecret: { name: 'k', key: 'api-key' } },
          network: { egress: { hosts: ['api.github.com'] } },
        },
      ],
    });
    const env = podSpecOf(objectsOf(withEgress), 'tiny').containers[0].env as Json[];
    const value = (name: string) => env.find((e) => e.name === name)?.value;
    const proxy = `http://claude:$(TOOLYARD_BROKER_TOKEN)@tiny-broker.agents.svc:8480`;
    for (const name of ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'])
      assert.equal(value(name), proxy);
    assert.equal(value('NO_PROXY'), 'localhost,127.0.0.1,::1,tiny-broker.agents.svc,.svc,.cluster.local');
    // $(VAR) expands only from variables defined earlier in the list.
    const tokenAt = env.findIndex((e) => e.name === 'TOOLYARD_BROKER_TOKEN');
    assert.ok(tokenAt >= 0 && tokenAt < env.findIndex((e) => e.name === 'HTTPS_PROXY'));
  });

  it('broker off: no broker objects, keys from model.apiKeySecret in the CLI variable, CIDR egress', () => {
    const off = objectsOf(minimalAgent({ broker: { enabled: false } }));
    assert.ok(!off.some((o) => o.metadata.name === 'tiny-broker'));
    const env = podSpecOf(off, 'tiny').containers[0].env as Json[];
    assert.deepEqual(
      env.filter((e) => e.valueFrom),
      [
        {
          name: 'ANTHROPIC_API_KEY',
          valueFrom: { secretKeyRef: { name: 'claude-credentials', key: 'api-key' } },
        },
      ],
    );
    assert.ok(!env.some((e) => e.name.startsWith('TOOLYARD_BROKER')));
  });
});

describe('broker off', () => {
  it('leaves no trace of the broker in any example rendered with broker.enabled: false', () => {
    for (const file of exampleFiles()) {
      // Egress only while fetching needs the broker's per-call proxy (docs/caches.md): off, it goes too.
      // Observability needs the broker: off with it.
      const text = `${readFileSync(join(REPO_ROOT, file), 'utf8')
        .replaceAll(', phase: fetch', '')
        .replace(
          '  observability:\n    enabled: true',
          '  observability:\n    enabled: false',
        )}  broker: { enabled: false }\n`;
      const checked = checkSpecText(text, file);
      assert.ok(checked.ok, file);
      if (!checked.ok) continue;
      const json = JSON.stringify(renderAgent(checked.specs[0]!.agent).objects);
      assert.doesNotMatch(json, /broker|TOOLYARD_BROKER/i, file);
    }
  });

  it("refuses a deployed gateway whose objects would be the broker's", () => {
    const problems = checkAgentPlan(
      planAgent(
        minimalAgent({ gateways: [{ name: 'broker', image: { repository: 'g', tag: '1' }, port: 8000 }] }),
      ),
    );
    assert.deepEqual(
      problems.map((p) => `${p.path}: ${p.message}`),
      ['/spec/gateways/0/name: gateway "broker" would be named "tiny-broker", which is the broker\'s name'],
    );
  });
});

describe('the broker contract', () => {});
