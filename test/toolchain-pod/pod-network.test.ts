/**
 * The real counterpart of `placement: pod`: the real toolchain server, started with the config toolyard
 * renders for a toolchain pod, listening in a network namespace of its own on its pod IP; a backend-side
 * client in the agent pod's network namespace, using the backend's rendered MCP client config and the token
 * as the backend's environment carries it, reaching the server by its Service name. A call without the token
 * (or with a wrong one) is refused, a call with it succeeds, a foreign Host is refused, and the agent pod's
 * own 127.0.0.1 no longer serves the toolchain. What is emulated: cluster DNS and the Service VIP (the
 * Service name maps straight to the pod IP in the agent side's /etc/hosts) and the Secret volume (the
 * config's token path points at a file of the test's; kubelet would mount the Secret there).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { checkSpecText } from '../../constructs/src/check-spec-text.ts';
import { type KubeObject, renderAgent } from '../../constructs/src/render.ts';
import { makeWorkspaceDir } from '../support/workspace-dir.ts';
import { type ServerProcess, startServerProcess } from '../toolchain-server/process-helpers.ts';
import { createPodNetwork, type PodNetwork } from './pod-network.ts';

type Json = Record<string, unknown>;
const PROBE = fileURLToPath(new URL('./backend-side-probe.ts', import.meta.url));
const TOKEN = 'a-token-only-backends-hold';

function find(objects: readonly KubeObject[], kind: string, name: string): Json {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  assert.ok(found, `no ${kind}/${name}`);
  return found as unknown as Json;
}

function run(
  argv: readonly string[],
  env: Record<string, string>,
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.on('exit', (code) => resolve({ code, out }));
  });
}

describe('a toolchain pod on a pod network: the real server with its rendered config', () => {
  const dir = makeWorkspaceDir('toolchain-pod-');
  const workspace = join(dir, 'workspace');
  let net: PodNetwork | undefined;
  let server: ServerProcess | undefined;
  let objects: readonly KubeObject[] = [];
  let probe: Json = {};

  before(async () => {
    mkdirSync(workspace);
    // The shared workspace, as the agent pod wrote it: the toolchain pod runs what is there.
    writeFileSync(join(workspace, 'version.js'), 'console.log(process.version);\n');
    const text = stringify({
      apiVersion: 'toolyard.dev/v1alpha1',
      kind: 'Agent',
      metadata: { name: 'builder', namespace: 'agents' },
      spec: {
        workspace: {
          mountPath: workspace,
          volume: { persistentVolumeClaim: { storage: '1Gi', accessModes: ['ReadWriteMany'] } },
        },
        backends: [
          {
            name: 'claude',
            type: 'claude',
            image: { repository: 'ghcr.io/example/claude', tag: '1' },
            port: 8080,
            // The broker is on by default: the model key is the broker's.
            model: { apiKeySecret: { name: 'claude-key', key: 'api-key' } },
          },
        ],
        toolchains: [
          {
            name: 'node',
            placement: 'pod',
            image: { repository: 'docker.io/library/node', tag: '24' },
            port: 8702,
            tools: { mode: 'exec', allowedCommands: ['node'] },
            auth: { bearerTokenSecret: { name: 'builder-node-token', key: 'token' } },
          },
        ],
      },
    });
    const checked = checkSpecText(text, 'builder.yaml');
    assert.ok(checked.ok);
    objects = renderAgent(checked.specs[0]!.agent).objects;

    // The toolchain pod's server, with the config its ConfigMap carries; the Secret volume's file is ours.
    const config = JSON.parse(
      String((find(objects, 'ConfigMap', 'builder-toolchain-node')['data'] as Json)['config.json']),
    ) as Json;
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o440 });
    net = createPodNetwork();
    server = await startServerProcess({
      node: 'ip',
      nodeFlags: ['netns', 'exec', net.toolchainNamespace, process.execPath],
      config: { ...config, auth: { bearerTokenFile: tokenFile } },
      dir,
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' },
    });

    // The backend's side: its mounted client config, its token variable as kubelet fills it from the Secret.
    const clients = find(objects, 'ConfigMap', 'builder-mcp-clients')['data'] as Json;
    const mcpJson = join(dir, 'mcp.json');
    writeFileSync(mcpJson, String(clients['claude.managed-mcp.json']));
    const agentPod = ((find(objects, 'Deployment', 'builder')['spec'] as Json)['template'] as Json)[
      'spec'
    ] as Json;
    const backend = (agentPod['containers'] as Json[]).find((c) => c['name'] === 'claude')!;
    const tokenVariable = (backend['env'] as Json[]).find(
      (e) =>
        ((e['valueFrom'] as Json | undefined)?.['secretKeyRef'] as Json | undefined)?.['name'] ===
        'builder-node-token',
    )!['name'] as string;
    const service = find(objects, 'Service', 'builder-toolchain-node');
    const hosts = net.writeHosts(dir, {
      [`${String((service['metadata'] as Json)['name'])}.agents.svc`]: net.toolchainPodIp,
    });
    const result = await run(
      net.inAgentPod([process.execPath, PROBE, mcpJson, 'toolchain-node', net.toolchainPodIp], hosts),
      { PATH: process.env['PATH'] ?? '/usr/bin:/bin', [tokenVariable]: TOKEN },
    );
    assert.equal(result.code, 0, result.out);
    probe = JSON.parse(result.out.trim().split('\n').at(-1)!) as Json;
  });

  after(async () => {
    if (server) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    net?.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is rendered to listen beyond loopback, for its Service name, with a token file', () => {
    const config = JSON.parse(
      String((find(objects, 'ConfigMap', 'builder-toolchain-node')['data'] as Json)['config.json']),
    ) as Json;
    assert.deepEqual(config['listen'], {
      host: '0.0.0.0',
      port: 8702,
      allowedHosts: ['builder-toolchain-node.agents.svc'],
    });
    assert.deepEqual(config['auth'], { bearerTokenFile: '/etc/toolyard/auth/token' });
  });

  it("the agent pod reaches it by its Service name at the toolchain pod's IP, and not on its own 127.0.0.1", () => {
    assert.equal(probe['url'], 'http://builder-toolchain-node.agents.svc:8702/mcp');
    assert.equal(probe['resolved'], net!.toolchainPodIp);
    assert.equal(probe['tokenSent'], true, 'the rendered config sends the token');
    assert.deepEqual(probe['loopback'], { status: 'ECONNREFUSED' });
  });

  it('refuses a call without the token, or with a wrong one', () => {
    assert.deepEqual(probe['withoutToken'], { status: 401, challenge: 'Bearer' });
    assert.deepEqual(probe['wrongToken'], { status: 401, challenge: 'Bearer' });
  });

  it('serves the backend that presents the token: lists and calls its tools', () => {
    assert.equal(probe['clientError'], undefined, String(probe['clientError']));
    assert.deepEqual(probe['tools'], ['describe_toolchain', 'exec_allowed']);
    assert.deepEqual(probe['described'], { isError: false });
    const ran = probe['ran'] as { isError: boolean; structured: Json };
    assert.equal(ran.isError, false);
    assert.equal(ran.structured['exitCode'], 0);
    assert.match(String(ran.structured['stdout']), /^v\d+\.\d+\.\d+\n$/);
  });

  it('refuses a Host other than its Service name, token or not (DNS rebinding)', () => {
    assert.deepEqual(probe['foreignHost'], { status: 403 });
    assert.deepEqual(probe['podIpAsHost'], { status: 403 });
  });
});
