/**
 * The chart's `helm test` (templates/tests/):
 * - for every example and generated spec, its NetworkPolicies let the test pod — and only it — reach each
 *   target it checks (and DNS), nothing more: without the test's policies it could not, other pods gain no
 *   path, and the test pod cannot reach a backend;
 * - the rendered test pod's own command, run with Node as its image runs it, passes against the real
 *   toolchain servers (readiness endpoint, rendered config; a toolchain pod's through its Service, on its MCP
 *   listener, which answers readiness without the token) and gateway listeners on 127.0.0.1, and fails,
 *   naming the check, when a toolchain is not ready or a gateway is down.
 * Cluster DNS is the one thing emulated: each `<service>.<namespace>.svc` target (shown to be a rendered
 * Service that selects the checked pod and port) is replaced by 127.0.0.1, where the same ports listen.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { stringify } from 'yaml';
import { generateChart } from '../../chart-generator/src/generate.ts';
import type { KubeObject } from '../../constructs/src/render.ts';
import { renderAgent } from '../../constructs/src/render.ts';
import { freePort } from '../support/free-port.ts';
import { allowed, type PodEndpoint } from '../support/network-policy.ts';
import { makeWorkspaceDir } from '../support/workspace-dir.ts';
import { type ServerProcess, startServerProcess } from '../toolchain-server/process-helpers.ts';
import { chartTargets, type Json, podOf } from './chart-targets.ts';
import { isTestHook, loadSpec, renderChart, writeChart } from './support.ts';

const DNS: PodEndpoint = { namespace: 'kube-system', labels: { 'k8s-app': 'kube-dns' } };

function endpoint(object: KubeObject): PodEndpoint {
  const template = (object['spec'] as Json)['template'] as Json | undefined;
  const metadata = object.kind === 'Pod' ? object.metadata : (template!['metadata'] as Json);
  return {
    namespace: String(object.metadata.namespace),
    labels: metadata['labels'] as Record<string, string>,
  };
}

interface Target {
  readonly url: URL;
  readonly service: KubeObject;
  readonly pod: KubeObject;
  readonly port: number;
}

/** Each target of the test pod, resolved as the cluster would: Service → selected pod → container port. */
function resolveTargets(objects: readonly KubeObject[]): Target[] {
  const testPod = objects.find((o) => o.kind === 'Pod')!;
  const args = ((testPod['spec'] as Json)['containers'] as Json[])[0]!['args'] as string[];
  return args.map((arg) => {
    const url = new URL(arg);
    const [name, namespace, svc] = url.hostname.split('.');
    assert.equal(svc, 'svc', arg);
    const service = objects.find(
      (o) => o.kind === 'Service' && o.metadata.name === name && o.metadata.namespace === namespace,
    );
    assert.ok(service, `${arg}: no such Service`);
    const spec = service['spec'] as Json;
    const servicePort = (spec['ports'] as Json[]).find((p) => p['port'] === Number(url.port));
    assert.ok(servicePort, `${arg}: the Service has no port ${url.port}`);
    const pod = objects.find(
      (o) =>
        (o.kind === 'Deployment' || o.kind === 'StatefulSet') &&
        Object.entries(spec['selector'] as Json).every(([k, v]) => endpoint(o).labels[k] === v),
    );
    assert.ok(pod, `${arg}: the Service selects no pods`);
    const target = servicePort['targetPort'];
    const containers = podOf(
      [pod],
      String((endpoint(pod).labels as Json)['app.kubernetes.io/component']),
    ).containers;
    const port =
      typeof target === 'number'
        ? target
        : Number(
            containers.flatMap((c) => (c['ports'] ?? []) as Json[]).find((p) => p['name'] === target)?.[
              'containerPort'
            ],
          );
    assert.ok(port > 0, `${arg}: targetPort ${String(target)} resolves to no container port`);
    return { url, service, pod, port };
  });
}

describe('helm test: the NetworkPolicies let the test pod, and only it, reach what it checks', () => {
  for (const t of chartTargets()) {
    const objects = t.render();
    const testPod = objects.find((o) => o.kind === 'Pod' && isTestHook(o));
    const hasPolicies = objects.some((o) => o.kind === 'NetworkPolicy' && !isTestHook(o));
    if (!testPod || !hasPolicies) continue;
    it(t.label, () => {
      const tester = endpoint(testPod);
      const targets = resolveTargets(objects);
      assert.ok(targets.length > 0);
      const withoutTest = objects.filter((o) => !isTestHook(o));
      for (const target of targets) {
        const to = endpoint(target.pod);
        assert.ok(
          allowed(objects, tester, to, target.port),
          `test pod → ${target.url.hash} (${target.port})`,
        );
        assert.ok(
          !allowed(withoutTest, tester, to, target.port),
          `${target.url.hash}: allowed without the test policies`,
        );
      }
      assert.ok(allowed(objects, tester, DNS, 53, 'UDP'), 'DNS');
      // The test policies open nothing for any other pod, and not the backends for the test pod.
      const workloads = objects.filter((o) => o.kind === 'Deployment' || o.kind === 'StatefulSet');
      const stranger: PodEndpoint = { namespace: tester.namespace, labels: { app: 'stranger' } };
      const ports = [
        ...new Set([
          ...targets.map((x) => x.port),
          ...workloads.flatMap((w) =>
            podOf([w], String(endpoint(w).labels['app.kubernetes.io/component'])).containers.flatMap((c) =>
              ((c['ports'] ?? []) as Json[]).map((p) => Number(p['containerPort'])),
            ),
          ),
        ]),
      ];
      for (const source of [stranger, ...workloads.map(endpoint)]) {
        for (const w of workloads) {
          for (const port of ports) {
            assert.equal(
              allowed(objects, source, endpoint(w), port),
              allowed(withoutTest, source, endpoint(w), port),
              `${JSON.stringify(source.labels)} → ${w.metadata.name}:${port}`,
            );
          }
        }
      }
      const agent = podOf(objects, 'agent');
      for (const backend of t.rendered.plan.backends) {
        assert.ok(
          !allowed(objects, tester, endpoint(agent.object), backend.port),
          `test pod → backend ${backend.name}`,
        );
      }
    });
  }
});

// ---------------------------------------------------------------------------------------------- run it

function runCheck(command: string[], args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...command.slice(1), ...args], {
      env: {
        PATH: process.env['PATH'] ?? '/usr/bin:/bin',
        TOOLYARD_CHECK_ATTEMPTS: '2',
        TOOLYARD_CHECK_PAUSE_MS: '50',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      output += d.toString();
    });
    child.on('exit', (code) => resolve({ code, output }));
  });
}

describe('helm test: the rendered test pod against the real toolchain server and gateway listeners', () => {
  // The workspace: not under /tmp, which toolyard mounts itself (the spec check refuses an overlap).
  const dir = makeWorkspaceDir('helm-test-workspace-');
  // The servers' config files live outside the workspace, as in a pod (a server refuses a config inside a root).
  const configDir = makeWorkspaceDir('helm-test-config-');
  const servers: ServerProcess[] = [];
  const listeners: Server[] = [];
  let objects: KubeObject[] = [];
  let command: string[] = [];
  let args: string[] = [];
  const ports: Record<string, number> = {};

  before(async () => {
    for (const name of [
      'ready',
      'readyHealth',
      'broken',
      'brokenHealth',
      'isolated',
      'isolatedHealth',
      'httpGateway',
      'tcpGateway',
    ]) {
      ports[name] = await freePort();
    }
    const agent = loadSpec(
      'helm-test.yaml',
      stringify({
        apiVersion: 'toolyard.dev/v1alpha1',
        kind: 'Agent',
        metadata: { name: 'checked', namespace: 'agents' },
        spec: {
          workspace: {
            mountPath: dir,
            volume: { persistentVolumeClaim: { storage: '1Gi', accessModes: ['ReadWriteMany'] } },
          },
          backends: [
            {
              name: 'claude',
              type: 'claude',
              image: { repository: 'ghcr.io/example/claude', tag: '1' },
              port: 8080,
              model: { apiKeySecret: { name: 'claude-credentials', key: 'api-key' } },
            },
          ],
          toolchains: [
            {
              name: 'ready',
              image: { repository: 'docker.io/library/node', tag: '24' },
              port: ports['ready'],
              healthPort: ports['readyHealth'],
              tools: { mode: 'exec', allowedCommands: ['node'] },
            },
            {
              name: 'broken',
              image: { repository: 'docker.io/hashicorp/terraform', tag: '1.9.8' },
              port: ports['broken'],
              healthPort: ports['brokenHealth'],
              tools: { mode: 'structured', presets: ['terraform'] },
            },
            {
              name: 'isolated',
              placement: 'pod',
              image: { repository: 'docker.io/library/node', tag: '24' },
              port: ports['isolated'],
              healthPort: ports['isolatedHealth'],
              tools: { mode: 'exec', allowedCommands: ['node'] },
              auth: { bearerTokenSecret: { name: 'isolated-token', key: 'token' } },
            },
          ],
          gateways: [
            {
              name: 'web',
              image: { repository: 'ghcr.io/example/mcp', tag: '1' },
              port: ports['httpGateway'],
              healthPath: '/health',
            },
            {
              name: 'raw',
              image: { repository: 'ghcr.io/example/mcp', tag: '1' },
              port: ports['tcpGateway'],
            },
          ],
        },
      }),
    );
    const rendered = renderAgent(agent);
    objects = renderChart(writeChart(generateChart(rendered)), { release: 'checked', namespace: 'agents' });
    const testPod = objects.find((o) => o.kind === 'Pod')!;
    const container = ((testPod['spec'] as Json)['containers'] as Json[])[0]!;
    command = container['command'] as string[];
    assert.equal(command[0], '/opt/toolyard/bin/node', 'the image runs the script with its own Node');
    const targets = resolveTargets(objects);
    args = targets.map((target) => {
      const local = new URL(target.url);
      local.hostname = '127.0.0.1';
      assert.equal(Number(local.port), target.port, 'Service port = pod port here');
      return local.toString();
    });
    // The toolchain servers, each with its rendered config (the ConfigMap its container mounts); listeners on
    // the pod IP listen on 127.0.0.1 instead, and the toolchain pod's token file is a file of the test's.
    const tokenFile = join(dir, '..', `${dir.split('/').at(-1)}-token`);
    writeFileSync(tokenFile, 'isolated-token-value\n', { mode: 0o600 });
    for (const name of ['ready', 'broken', 'isolated']) {
      const configMap = objects.find(
        (o) => o.kind === 'ConfigMap' && o.metadata.name === `checked-toolchain-${name}`,
      )!;
      const config = JSON.parse(String((configMap['data'] as Json)['config.json'])) as Json;
      const listen = config['listen'] as Json;
      servers.push(
        await startServerProcess({
          dir: configDir,
          config: {
            ...config,
            listen: { ...listen, host: '127.0.0.1' },
            health: { ...(config['health'] as Json), host: '127.0.0.1' },
            ...(config['auth'] ? { auth: { bearerTokenFile: tokenFile } } : {}),
          },
          env: { PATH: `${dirname(process.execPath)}:/usr/bin:/bin` },
        }),
      );
    }
    const web = createHttpServer((req, res) => {
      res.statusCode = req.url === '/health' ? 200 : 404;
      res.end();
    });
    const raw = createTcpServer((socket) => socket.end());
    await new Promise<void>((resolve) => web.listen(ports['httpGateway'], '127.0.0.1', resolve));
    await new Promise<void>((resolve) => raw.listen(ports['tcpGateway'], '127.0.0.1', resolve));
    listeners.push(web, raw as unknown as Server);
  });

  after(async () => {
    for (const server of servers) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    for (const listener of listeners) listener.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(configDir, { recursive: true, force: true });
    rmSync(`${dir}-token`, { force: true });
  });

  it('checks each toolchain readiness endpoint and each gateway Service, HTTP or TCP', () => {
    assert.deepEqual(
      args.map((a) => decodeURIComponent(new URL(a).hash)),
      [
        '#toolchain ready readiness',
        '#toolchain broken readiness',
        '#toolchain isolated readiness',
        '#gateway web Service',
        '#gateway raw Service',
      ],
    );
    // A toolchain pod is checked through its own Service, on the MCP port.
    assert.ok(args[2]!.startsWith(`http://127.0.0.1:${ports['isolated']}/readyz`));
    assert.ok(args[3]!.startsWith(`http://127.0.0.1:${ports['httpGateway']}/health`));
    assert.ok(args[4]!.startsWith(`tcp://127.0.0.1:${ports['tcpGateway']}`));
  });

  it('passes when every toolchain is ready and every gateway answers', async () => {
    const { code, output } = await runCheck(
      command,
      args.filter((a) => !a.includes('broken')),
    );
    assert.equal(code, 0, output);
    assert.match(output, /^ok {3}toolchain ready readiness: .*\(HTTP 200\)$/m);
    assert.match(output, /^ok {3}toolchain isolated readiness: .*\(HTTP 200\)$/m);
    assert.match(output, /^ok {3}gateway web Service: .*\(HTTP 200\)$/m);
    assert.match(output, /^ok {3}gateway raw Service: .*\(connected\)$/m);
  });

  it('fails, naming it, when a toolchain is not ready (the real server answers 503: terraform is missing)', async () => {
    const { code, output } = await runCheck(command, args);
    assert.equal(code, 1, output);
    assert.match(output, /^FAIL toolchain broken readiness: .*HTTP 503 \(2 attempts\)$/m);
    assert.match(output, /^ok {3}toolchain ready readiness/m);
  });

  it('fails when a gateway is down', async () => {
    const [web] = listeners;
    await new Promise<void>((resolve) => web!.close(() => resolve()));
    const { code, output } = await runCheck(command, [args[3]!]);
    assert.equal(code, 1, output);
    assert.match(output, /^FAIL gateway web Service: .*ECONNREFUSED/m);
  });
});
