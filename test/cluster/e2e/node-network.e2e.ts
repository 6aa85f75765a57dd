/**
 * NetworkPolicies enforced for real (issue 28, "(node)"): an agent rendered by toolyard runs on the real test node
 * — containerd + runc, the CNI bridge, kube-proxy, CoreDNS and kube-router's NetworkPolicy firewall —, its broker
 * the real toolyard broker image, its toolchain pod the real toolchain-node image. Probes inside each pod (the
 * backend container itself, or an ephemeral probe container sharing a pod's network) try every other pod, cluster
 * DNS, the API server and a public host, and what gets through must be exactly what toolyard's own NetworkPolicy
 * evaluator (test/support/network-policy.ts) says the rendered policies allow. Then the claims one by one:
 * - the backend reaches DNS, its toolchains and its broker, and nothing else (no public host, no API server);
 * - a toolchain with `egress: none` reaches nothing, not even DNS;
 * - the broker reaches a public upstream by name: a request through its model route, with the backend's broker
 *   token, arrives at a fake api.anthropic.com (TLS, a test CA the broker is told to trust) carrying the model key
 *   and never the broker token;
 * - a pod outside the agent cannot reach the toolchain server; control: without the toolchain's policy it can.
 */
import assert from 'node:assert/strict';
import { createServer as createHttpsServer } from 'node:https';
import { after, before, describe, it } from 'node:test';
import { stringify } from 'yaml';
import { checkSpecText } from '../../../constructs/src/check-spec-text.ts';
import { renderAgent } from '../../../constructs/src/render.ts';
import { makeTestCa, type TestCa } from '../../broker/tls-fixture.ts';
import { allowed, allowedOut, type PodEndpoint } from '../../support/network-policy.ts';
import type { ClusterClient, NodeHandle } from '../client.ts';
import { INTERNET_HOST } from '../node/node-network.ts';
import {
  attachProbe,
  listenOnInternet,
  pinnedToNode,
  probeIn,
  probeInAsync,
  requireNode,
  secretsFor,
} from './node-support.ts';
import {
  applyObjects,
  type KubeObjectRef,
  restrictedNamespace,
  useCluster,
  waitFor,
  waitForWorkloads,
} from './support.ts';

const NS = 'node-net';
const AGENT = 'netcheck';
const MODEL_KEY = 'sk-node-test-model-key';

function spec(node: NodeHandle): string {
  return stringify({
    apiVersion: 'toolyard.dev/v1alpha1',
    kind: 'Agent',
    metadata: { name: AGENT, namespace: NS },
    spec: {
      workspace: { volume: { persistentVolumeClaim: { storage: '1Gi', accessModes: ['ReadWriteMany'] } } },
      backends: [
        {
          name: 'claude',
          type: 'claude',
          image: { repository: node.probeImage.split(':')[0], tag: node.probeImage.split(':')[1] },
          args: ['serve', '8080'],
          port: 8080,
          model: { apiKeySecret: { name: 'netcheck-model', key: 'api-key' } },
        },
      ],
      toolchains: [
        {
          name: 'node',
          placement: 'pod',
          image: { repository: 'ghcr.io/toolyard/toolchain-node', tag: '0.1.0' },
          port: 8701,
          tools: { mode: 'structured', presets: ['node'] },
          network: { egress: 'none' },
          auth: { bearerTokenSecret: { name: 'netcheck-node-token', key: 'token' } },
        },
      ],
      gateways: [
        {
          name: 'gw',
          image: {
            repository: node.probeGatewayImage.split(':')[0],
            tag: node.probeGatewayImage.split(':')[1],
          },
          port: 8000,
        },
      ],
      broker: { enabled: true },
    },
  });
}

interface Pod {
  readonly name: string;
  readonly ip: string;
  readonly labels: Record<string, string>;
}

function podOf(cluster: ClusterClient, component: string): Pod {
  const list = cluster.kubectlJson<{
    items: {
      metadata: { name: string; labels: Record<string, string>; deletionTimestamp?: string };
      status: { podIP?: string; phase?: string };
    }[];
  }>(['get', 'pods', '-n', NS, '-l', `app.kubernetes.io/component=${component}`]);
  // A terminating pod is still Running, with its IP, until its grace period ends — and never starts a probe.
  const running = list.items.find(
    (p) => p.status.phase === 'Running' && p.status.podIP && !p.metadata.deletionTimestamp,
  );
  assert.ok(running, `a running ${component} pod`);
  return { name: running.metadata.name, ip: running.status.podIP ?? '', labels: running.metadata.labels };
}

describe('the rendered NetworkPolicies, enforced on a real node', () => {
  let cluster: ClusterClient;
  let node: NodeHandle | undefined;
  let objects: KubeObjectRef[];
  let ca: TestCa;
  const seen: { path: string; key: string | undefined; auth: string | undefined }[] = [];
  const closers: (() => void)[] = [];

  before(async () => {
    cluster = await useCluster();
    node = requireNode(cluster);
    if (!node) return;
    const checked = checkSpecText(spec(node), 'netcheck.yaml');
    assert.ok(checked.ok, checked.ok ? '' : JSON.stringify(checked.errors));
    const rendered = renderAgent(checked.specs[0]!.agent).objects as unknown as KubeObjectRef[];

    // The fake public upstream: api.anthropic.com (CoreDNS on the node answers it with INTERNET_HOST), TLS from a
    // test CA that the broker, and only the broker, is told to trust (a test-only patch of its config below).
    ca = makeTestCa(['api.anthropic.com']);
    const upstream = createHttpsServer({ cert: ca.cert, key: ca.key }, (request, response) => {
      seen.push({
        path: request.url ?? '',
        key: request.headers['x-api-key'] as string | undefined,
        auth: request.headers.authorization,
      });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    const listener = await listenOnInternet(node, INTERNET_HOST, 443);
    listener.on('connection', (socket) => upstream.emit('connection', socket));
    closers.push(
      () => listener.close(),
      () => ca.cleanup(),
    );

    objects = pinnedToNode(rendered).map(withTestCa);
    restrictedNamespace(cluster, NS);
    const secrets = secretsFor(objects) as {
      metadata: { name: string };
      stringData: Record<string, string>;
    }[];
    for (const secret of secrets)
      if (secret.metadata.name === 'netcheck-model') secret.stringData['api-key'] = MODEL_KEY;
    applyObjects(cluster, [
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'test-ca', namespace: NS },
        data: { 'ca.pem': ca.ca },
      },
    ]);
    // Created once: pods of an earlier run on this cluster read their tokens at start.
    for (const secret of secrets) {
      const created = cluster.kubectl(['create', '-f', '-'], { input: JSON.stringify(secret) });
      assert.ok(created.status === 0 || /AlreadyExists/.test(created.stderr), created.stderr);
    }
    applyObjects(cluster, objects);
    // The broker reads its CA file at start: a broker pod of an earlier run on this cluster trusts an older CA.
    // Its replacement is waited for by name: the Deployment may still report the old pod Available for a moment,
    // and a terminating pod never starts the ephemeral probe the test adds to it.
    const brokerPods = (): string[] =>
      cluster
        .kubectlOk(['get', 'pods', '-n', NS, '-l', 'app.kubernetes.io/component=broker', '-o', 'name'])
        .split('\n')
        .filter(Boolean);
    const replaced = brokerPods();
    cluster.kubectlOk([
      'delete',
      'pods',
      '-n',
      NS,
      '-l',
      'app.kubernetes.io/component=broker',
      '--wait=false',
    ]);
    await waitFor(
      `the broker pods ${replaced.join(', ')} to be gone`,
      () => !brokerPods().some((pod) => replaced.includes(pod)),
      120_000,
    );
    await waitForWorkloads(cluster, objects, 180_000);
  });
  after(() => {
    for (const close of closers) close();
  });

  it('what gets through between pods, to DNS, the API server and a public host is what the policies allow', async (t) => {
    if (!node) return t.skip('no real node (TOOLYARD_TEST_NODE=skip)');
    const pods = {
      agent: podOf(cluster, 'agent'),
      toolchain: podOf(cluster, 'toolchain-node'),
      broker: podOf(cluster, 'broker'),
      gateway: podOf(cluster, 'gateway-gw'),
    };
    // A pod of the namespace that is none of the agent's, serving a port of its own.
    applyObjects(cluster, pinnedToNode([outsider(node)]));
    await waitForWorkloads(cluster, [
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'outsider', namespace: NS } },
    ]);
    const outsiderPod = podOf(cluster, 'outsider');
    const dns = cluster.kubectlJson<{ items: { status: { podIP: string } }[] }>([
      'get',
      'pods',
      '-n',
      'kube-system',
      '-l',
      'k8s-app=kube-dns',
    ]).items[0]?.status.podIP;
    assert.ok(dns);
    const api = cluster.kubectlJson<{
      subsets: { addresses: { ip: string }[]; ports: { port: number }[] }[];
    }>(['get', 'endpoints', 'kubernetes', '-n', 'default']).subsets[0];
    assert.ok(api);

    const sources: [string, Pod, string][] = [
      ['agent', pods.agent, 'claude'],
      ['toolchain', pods.toolchain, await attachProbe(cluster, node, NS, pods.toolchain.name)],
      ['broker', pods.broker, await attachProbe(cluster, node, NS, pods.broker.name)],
      ['gateway', pods.gateway, await attachProbe(cluster, node, NS, pods.gateway.name)],
      ['outsider', outsiderPod, 'probe'],
    ];
    const endpoint = (pod: Pod): PodEndpoint => ({ namespace: NS, labels: pod.labels });
    const targets: { name: string; ip: string; port: number; expected: (from: Pod) => boolean }[] = [
      ...[
        ['agent', pods.agent, 8080],
        ['toolchain', pods.toolchain, 8701],
        ['broker', pods.broker, 8480],
        ['gateway', pods.gateway, 8000],
        ['outsider', outsiderPod, 9000],
      ].map(([name, pod, port]) => ({
        name: name as string,
        ip: (pod as Pod).ip,
        port: port as number,
        expected: (from: Pod) =>
          allowed(objects as never, endpoint(from), endpoint(pod as Pod), port as number),
      })),
      {
        name: 'dns',
        ip: dns,
        port: 53,
        expected: (from) =>
          allowed(
            objects as never,
            endpoint(from),
            { namespace: 'kube-system', labels: { 'k8s-app': 'kube-dns' } },
            53,
          ),
      },
      {
        name: 'api-server',
        ip: api.addresses[0]?.ip ?? '',
        port: api.ports[0]?.port ?? 0,
        expected: (from) =>
          allowedOut(
            objects as never,
            endpoint(from),
            { ip: api.addresses[0]?.ip ?? '' },
            api.ports[0]?.port ?? 0,
          ),
      },
      {
        name: 'public-host',
        ip: INTERNET_HOST,
        port: 443,
        expected: (from) => allowedOut(objects as never, endpoint(from), { ip: INTERNET_HOST }, 443),
      },
    ];
    const mismatches: string[] = [];
    let probes = 0;
    let open = 0;
    for (const [label, pod, container] of sources)
      for (const target of targets) {
        if (target.ip === pod.ip) continue;
        const result = probeIn(cluster, NS, pod.name, container, [
          'tcp',
          target.ip,
          String(target.port),
          '1500',
        ]);
        const want = target.expected(pod);
        probes++;
        if (result === 'open') open++;
        if ((result === 'open') !== want)
          mismatches.push(
            `${label} -> ${target.name} (${target.ip}:${target.port}): ${result}, policies say ${want ? 'allowed' : 'denied'}`,
          );
      }
    assert.deepEqual(mismatches, [], 'the real node enforces exactly what toolyard computes');
    assert.ok(open > 0 && open < probes, 'some paths open, some closed');
    t.diagnostic(
      `node: ${probes} probes between ${sources.length} pods and ${targets.length} destinations, ${open} open, every one as the policies say`,
    );

    // The claims, said plainly.
    const agentTo = (ip: string, port: number) =>
      probeIn(cluster, NS, pods.agent.name, 'claude', ['tcp', ip, String(port), '1500']);
    assert.equal(agentTo(pods.broker.ip, 8480), 'open', 'the backend reaches its broker');
    assert.equal(agentTo(pods.toolchain.ip, 8701), 'open', 'the backend reaches its toolchain');
    assert.notEqual(agentTo(INTERNET_HOST, 443), 'open', 'the backend reaches no public host');
    assert.notEqual(
      agentTo(api.addresses[0]?.ip ?? '', api.ports[0]?.port ?? 0),
      'open',
      'nor the API server',
    );
    assert.match(
      probeIn(cluster, NS, pods.agent.name, 'claude', ['udp-dns', `${AGENT}-broker.${NS}.svc.cluster.local`]),
      /^10\./,
    );
    const toolchainProbe = sources[1]?.[2] ?? '';
    assert.match(
      probeIn(cluster, NS, pods.toolchain.name, toolchainProbe, [
        'udp-dns',
        'kubernetes.default.svc.cluster.local',
      ]),
      /^error/,
      'egress none: not even DNS',
    );
    const outsiderTo = probeIn(cluster, NS, outsiderPod.name, 'probe', [
      'tcp',
      pods.toolchain.ip,
      '8701',
      '1500',
    ]);
    assert.notEqual(outsiderTo, 'open', 'a pod outside the agent cannot reach the toolchain server');
  });

  it('the broker reaches its upstream by name, with the model key, never the broker token', async (t) => {
    if (!node) return t.skip('no real node (TOOLYARD_TEST_NODE=skip)');
    const agent = podOf(cluster, 'agent');
    const answer = await probeInAsync(cluster, NS, agent.name, 'claude', [
      'http',
      `http://${AGENT}-broker.${NS}.svc:8480/model-claude/v1/models`,
      'x-api-key=$ANTHROPIC_API_KEY',
    ]);
    assert.match(answer, /^200 OK \{"ok":true\}$/, answer);
    const last = seen.at(-1);
    assert.ok(last, 'the fake api.anthropic.com got the request');
    assert.equal(last.path, '/v1/models');
    assert.equal(last.key, MODEL_KEY, 'the broker set the model key');
    const brokerToken = readSecretValue(cluster, NS, `${AGENT}-broker-tokens`, 'claude');
    assert.ok(
      brokerToken && !JSON.stringify(seen).includes(brokerToken),
      'the broker token never reached the upstream',
    );
    // Control: the same request without the backend's broker token is refused by the broker itself.
    const refused = await probeInAsync(cluster, NS, agent.name, 'claude', [
      'http',
      `http://${AGENT}-broker.${NS}.svc:8480/model-claude/v1/models`,
    ]);
    assert.match(refused, /^40[13] /, refused);
  });

  it("control: without the toolchain pod's NetworkPolicy, the outside pod does reach it", async (t) => {
    if (!node) return t.skip('no real node (TOOLYARD_TEST_NODE=skip)');
    const toolchain = podOf(cluster, 'toolchain-node');
    const outsiderPod = podOf(cluster, 'outsider');
    const policy = objects.find(
      (o) => o.kind === 'NetworkPolicy' && o.metadata.name === `${AGENT}-toolchain-node`,
    );
    assert.ok(policy);
    cluster.kubectlOk(['delete', 'networkpolicy', policy.metadata.name, '-n', NS]);
    try {
      await waitFor(
        'the outside pod to reach the toolchain once its policy is gone',
        () =>
          probeIn(cluster, NS, outsiderPod.name, 'probe', ['tcp', toolchain.ip, '8701', '1500']) === 'open',
        30_000,
      );
    } finally {
      applyObjects(cluster, [policy]);
    }
    await waitFor(
      'the policy to bite again',
      () => probeIn(cluster, NS, outsiderPod.name, 'probe', ['tcp', toolchain.ip, '8701', '1500']) !== 'open',
      30_000,
    );
  });
});

function readSecretValue(cluster: ClusterClient, ns: string, name: string, key: string): string | undefined {
  const data =
    cluster.kubectlJson<{ data?: Record<string, string> }>(['get', 'secret', name, '-n', ns]).data ?? {};
  const value = data[key];
  return value ? Buffer.from(value, 'base64').toString('utf8') : undefined;
}

function outsider(node: NodeHandle): KubeObjectRef {
  const labels = { 'app.kubernetes.io/component': 'outsider' };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'outsider', namespace: NS },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          automountServiceAccountToken: false,
          securityContext: {
            runAsNonRoot: true,
            runAsUser: 65532,
            seccompProfile: { type: 'RuntimeDefault' },
          },
          containers: [
            {
              name: 'probe',
              image: node.probeImage,
              imagePullPolicy: 'Never',
              args: ['serve', '9000'],
              securityContext: {
                allowPrivilegeEscalation: false,
                capabilities: { drop: ['ALL'] },
                readOnlyRootFilesystem: true,
              },
            },
          ],
        },
      },
    },
  } as KubeObjectRef;
}

/**
 * Test-only: the broker trusts the test CA (its config's `extraCaFile`, a ConfigMap mounted beside its config),
 * standing in for the public roots the fake api.anthropic.com has no certificate from.
 */
function withTestCa(object: KubeObjectRef): KubeObjectRef {
  interface Container {
    volumeMounts?: unknown[];
  }
  interface Loose {
    kind: string;
    metadata: { name: string; labels?: Record<string, string> };
    data?: Record<string, string>;
    spec?: { template: { spec: { volumes?: unknown[]; containers: Container[] } } };
  }
  const o = structuredClone(object) as unknown as Loose;
  if (o.kind === 'ConfigMap' && o.metadata.name === `${AGENT}-broker` && o.data?.['config.json']) {
    const config = JSON.parse(o.data['config.json']) as Record<string, unknown>;
    config['extraCaFile'] = '/etc/toolyard/test-ca/ca.pem';
    o.data['config.json'] = JSON.stringify(config);
  }
  if (o.kind === 'Deployment' && o.metadata.labels?.['app.kubernetes.io/component'] === 'broker' && o.spec) {
    const pod = o.spec.template.spec;
    pod.volumes = [...(pod.volumes ?? []), { name: 'test-ca', configMap: { name: 'test-ca' } }];
    for (const c of pod.containers)
      c.volumeMounts = [
        ...(c.volumeMounts ?? []),
        { name: 'test-ca', mountPath: '/etc/toolyard/test-ca', readOnly: true },
      ];
  }
  return o as unknown as KubeObjectRef;
}
