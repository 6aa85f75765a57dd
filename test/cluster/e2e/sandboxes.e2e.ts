/**
 * Sandboxes on the real test cluster (docs/sandboxes.md): agent-sandbox's controller built from its pinned module
 * with its CRDs applied, toolyard's rendered objects applied, the sandbox manager running as its own process with
 * its rendered ServiceAccount's real token, and each sandbox pod's container run as rendered in its own network
 * namespace (test/sandboxes/cluster-world.ts, sandbox-node.ts: kwok runs no containers). Shown, in order: the warm
 * pool fills; a new session's claim gets a ready sandbox from the pool; the same key returns the same sandbox;
 * exec and files end to end; a quota refusal; an idle sandbox is stopped and its files survive the resume; retention
 * destroys it and its volume; the manager's Role allows exactly what it needs, and a request beyond it is refused;
 * then, with the CRDs and the controller gone, the `kubernetes` provider on the same cluster.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sessionObjectName } from '../../../toolchain-server/sandbox-manager/records.ts';
import {
  agentSandboxCrds,
  type Controller,
  type SandboxWorld,
  startAgentSandbox,
  startSandboxWorld,
} from '../../sandboxes/cluster-world.ts';
import type { SocketMcpClient, ToolAnswer } from '../../sandboxes/mcp-over-socket.ts';
import { sandboxImageMissing } from '../../sandboxes/sandbox-node.ts';
import type { ClusterClient } from '../client.ts';
import { useCluster, waitFor } from './support.ts';

const lacking =
  sandboxImageMissing() ?? (process.getuid?.() !== 0 ? 'needs root (network namespaces)' : undefined);
// CI has what these need (npm test builds the server first, as root): there a lack fails instead of skipping.
if (lacking && process.env.CI) throw new Error(`sandboxes e2e cannot run in CI: ${lacking}`);
const missing = lacking;

interface Claim {
  metadata: { name: string; uid: string };
  status?: {
    sandbox?: { name?: string; podIPs?: string[] };
    conditions?: { type: string; status: string }[];
  };
}

/**
 * `kubectl auth can-i` as the manager. A subresource goes in its own flag: `pods/exec` as an argument would ask
 * about the pod named exec.
 */
function canIAs(
  cluster: ClusterClient,
  world: SandboxWorld,
  verb: string,
  resource: string,
  ns: string,
): string {
  const [type, subresource] = resource.split('/');
  return cluster
    .kubectl(
      [
        'auth',
        'can-i',
        verb,
        type as string,
        ...(subresource ? [`--subresource=${subresource}`] : []),
        '-n',
        ns,
      ],
      {
        kubeconfig: world.managerKubeconfig,
      },
    )
    .stdout.trim();
}

function structured(answer: ToolAnswer): Record<string, unknown> {
  assert.notEqual(answer.isError, true, answer.content[0]?.text);
  return answer.structuredContent ?? {};
}

describe('sandboxes on agent-sandbox: warm pool, sessions, lifecycle, quota, RBAC', { skip: missing }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolyard-sbx-e2e-'));
  const namespace = 'sbx-e2e';
  const agent = 'analyst';
  let cluster: ClusterClient;
  let controller: Controller;
  let world: SandboxWorld;
  let client: SocketMcpClient;
  const json = <T>(args: readonly string[]) => cluster.kubectlJson<T>([...args, '-n', namespace]);
  const describeState = () =>
    `${cluster.kubectl(['get', 'sandboxwarmpools,sandboxclaims,sandboxes,pods,pvc', '-n', namespace, '-o', 'wide']).stdout}\n--- node\n${world?.node.failures.join('\n')}\n${JSON.stringify(world?.node.events.slice(-20))}\n--- manager\n${world?.managerOutput().slice(-4000)}\n--- controller\n${controller?.log().slice(-3000)}`;

  before(async () => {
    cluster = await useCluster();
    controller = await startAgentSandbox(cluster, dir);
    world = await startSandboxWorld(cluster, {
      agent,
      namespace,
      provider: 'agent-sandbox',
      templates: [
        { name: 'python', warmPool: 2, codeMode: true },
        { name: 'brief', warmPool: 1, idleTimeoutSeconds: 3, retentionSeconds: 4 },
      ],
      quota: { maxSandboxes: 3 },
      dir,
    });
    client = await world.client();
  });

  after(async () => {
    await world?.stop();
    await controller?.stop();
    cluster?.kubectl(['delete', 'namespace', namespace, '--wait=false']);
    for (const crd of agentSandboxCrds())
      cluster?.kubectl(['delete', 'crd', (crd.metadata as { name: string }).name, '--wait=false']);
    rmSync(dir, { recursive: true, force: true });
  });

  it('fills the warm pool: ready sandboxes whose servers run before any claim', async () => {
    await waitFor(
      'the warm pools to be ready',
      () => {
        const pools = json<{ items: { metadata: { name: string }; status?: { readyReplicas?: number } }[] }>([
          'get',
          'sandboxwarmpools',
        ]).items;
        const ready = Object.fromEntries(pools.map((p) => [p.metadata.name, p.status?.readyReplicas ?? 0]));
        return ready[`${agent}-sandbox-python`] === 2 && ready[`${agent}-sandbox-brief`] === 1;
      },
      90_000,
      describeState,
    );
    await waitFor(
      'three sandbox servers listening',
      () => world.node.events.filter((e) => e.event === 'listening').length >= 3,
      60_000,
      describeState,
    );
    assert.equal(json<{ items: unknown[] }>(['get', 'sandboxclaims']).items.length, 0);
  });

  let first: Record<string, unknown>;
  it('gives a new session a ready sandbox from the pool, bound to it', async () => {
    const outcome = structured(await client.callTool('sandbox_create', { sessionKey: 'conv-1' }));
    first = outcome;
    const sandbox = outcome.sandbox as { sandbox: string; state: string; launch: string };
    assert.equal(outcome.created, true);
    assert.equal(sandbox.state, 'running');
    assert.equal(sandbox.launch, 'warm', 'taken from the warm pool');
    assert.equal(sandbox.sandbox, sessionObjectName(agent, 'conv-1'));
    const claim = json<Claim>(['get', 'sandboxclaim', sandbox.sandbox]);
    const adopted = claim.status?.sandbox?.name as string;
    const object = json<{ metadata: { labels: Record<string, string> } }>(['get', 'sandbox', adopted]);
    assert.equal(object.metadata.labels['agents.x-k8s.io/launch-type'], 'warm');
    // The claim carries no env and no volume templates (either would force a cold start).
    const spec = json<{ spec: Record<string, unknown> }>(['get', 'sandboxclaim', sandbox.sandbox]).spec;
    assert.equal(spec.env, undefined);
    assert.equal(spec.volumeClaimTemplates, undefined);
    assert.ok(Number(outcome.readyMs) < 10_000, `ready in ${outcome.readyMs} ms`);
  });

  it('returns the same sandbox for the same session key', async () => {
    const again = structured(await client.callTool('sandbox_create', { sessionKey: 'conv-1' }));
    assert.equal(again.created, false);
    assert.equal(
      (again.sandbox as { sandbox: string }).sandbox,
      (first.sandbox as { sandbox: string }).sandbox,
    );
    assert.equal(json<{ items: unknown[] }>(['get', 'sandboxclaims']).items.length, 1);
  });

  it('runs commands and moves files in the sandbox pod, under its policy', async () => {
    structured(
      await client.callTool('sandbox_upload', {
        sessionKey: 'conv-1',
        path: 'data/numbers.txt',
        content: '3\n1\n2\n',
      }),
    );
    const sorted = structured(
      await client.callTool('sandbox_exec', {
        sessionKey: 'conv-1',
        command: ['sort', '-n', 'data/numbers.txt', '-o', 'outputs/sorted.txt'],
      }),
    );
    assert.equal(sorted.exitCode, 0, JSON.stringify(sorted));
    const down = structured(
      await client.callTool('sandbox_download', { sessionKey: 'conv-1', path: 'outputs/sorted.txt' }),
    );
    assert.equal(down.text, '1\n2\n3\n');
    const listed = structured(
      await client.callTool('sandbox_list_files', { sessionKey: 'conv-1', depth: 2 }),
    );
    const paths = (listed.entries as { path: string }[]).map((e) => e.path);
    assert.ok(paths.includes('outputs/sorted.txt') && paths.includes('data/numbers.txt'), paths.join());
    const refused = await client.callTool('sandbox_exec', {
      sessionKey: 'conv-1',
      command: ['curl', 'https://example.com'],
    });
    assert.equal(refused.isError, true);
    assert.match(refused.content[0]!.text, /TOOLYARD_COMMAND_NOT_ALLOWED/);
  });

  it("runs a Python program in the sandbox pod (sandbox_run_code): it calls the sandbox's own tool, confined, with no network", async () => {
    const ran = structured(
      await client.callTool('sandbox_run_code', {
        sessionKey: 'conv-1',
        language: 'python',
        code: [
          'import socket',
          'r = mcp_python.exec_allowed(command=["sort", "-n", "data/numbers.txt"])',
          'nums = [int(x) for x in r["structuredContent"]["stdout"].split()]',
          'open("outputs/sum.txt", "w").write("sum " + str(sum(nums)))',
          'try:',
          '    socket.create_connection(("10.96.0.1", 443), timeout=2)',
          '    net = "connected"',
          'except OSError as error:',
          '    net = type(error).__name__',
          '{"total": sum(nums), "network": net}',
        ].join('\n'),
        timeoutSeconds: 60,
      }),
    );
    assert.equal(ran.exitCode, 0, JSON.stringify(ran));
    // The program's socket() is refused by code mode's filter (EACCES: PermissionError), whatever the policies.
    assert.deepEqual(ran.returnValue, { total: 6, network: 'PermissionError' }, JSON.stringify(ran));
    assert.deepEqual(
      (ran.mcpCalls as { server: string; tool: string; ok: boolean }[]).map(
        (c) => `${c.server}.${c.tool}:${c.ok}`,
      ),
      ['python.exec_allowed:true'],
    );
    assert.deepEqual(ran.outputs, [{ path: 'outputs/sum.txt', size: 'sum 6'.length }]);
    const down = structured(
      await client.callTool('sandbox_download', { sessionKey: 'conv-1', path: 'outputs/sum.txt' }),
    );
    assert.equal(down.text, 'sum 6');
    // The manager audited the call; the sandbox server ran it confined, as a toolchain's run_code.
    assert.ok(
      world
        .managerLines()
        .some(
          (l) => l.event === 'sandbox-audit' && l.tool === 'sandbox_run_code' && l.decision === 'allowed',
        ),
    );
  });

  it('refuses a sandbox beyond the quota, saying which and how to get one', async () => {
    structured(await client.callTool('sandbox_create', { sessionKey: 'conv-2' }));
    structured(await client.callTool('sandbox_create', { sessionKey: 'conv-3', template: 'brief' }));
    const refused = await client.callTool('sandbox_create', { sessionKey: 'conv-4' });
    assert.equal(refused.isError, true);
    assert.match(
      refused.content[0]!.text,
      /^TOOLYARD_SANDBOX_QUOTA: 3 sandboxes of the agent are running, the most spec\.sandboxes\.quota\.maxSandboxes allows \(3\)/,
    );
    assert.equal(
      cluster.kubectl(['get', 'sandboxclaim', sessionObjectName(agent, 'conv-4'), '-n', namespace]).status,
      1,
    );
  });

  it('stops an idle sandbox (its pod goes, its volume stays) and its files survive the resume', async () => {
    const name = sessionObjectName(agent, 'conv-3');
    structured(
      await client.callTool('sandbox_upload', { sessionKey: 'conv-3', path: 'notes.md', content: 'kept\n' }),
    );
    const claim = json<Claim>(['get', 'sandboxclaim', name]);
    const sandbox = claim.status?.sandbox?.name as string;
    await waitFor(
      'the idle sandbox to be suspended',
      () =>
        json<{ spec: { operatingMode?: string } }>(['get', 'sandbox', sandbox]).spec.operatingMode ===
        'Suspended',
      30_000,
      describeState,
    );
    await waitFor(
      'its pod to go',
      () => cluster.kubectl(['get', 'pod', sandbox, '-n', namespace]).status === 1,
      30_000,
      describeState,
    );
    assert.equal(
      cluster.kubectl(['get', 'pvc', `workspace-${sandbox}`, '-n', namespace]).status,
      0,
      'the workspace claim stays',
    );
    const listed = structured(await client.callTool('sandbox_list', {}));
    assert.equal(
      (listed.sandboxes as { sandbox: string; state: string }[]).find((s) => s.sandbox === name)?.state,
      'stopped',
    );
    assert.ok(
      world
        .managerLines()
        .some((l) => l.event === 'sandbox-lifecycle' && l.action === 'stopped' && l.sandbox === name),
    );
    // Any call resumes it, on the same volume.
    const down = structured(
      await client.callTool('sandbox_download', { sessionKey: 'conv-3', path: 'notes.md' }),
    );
    assert.equal(down.text, 'kept\n');
    assert.equal(
      json<{ spec: { operatingMode?: string } }>(['get', 'sandbox', sandbox]).spec.operatingMode,
      'Running',
    );
  });

  it('destroys a stopped sandbox and its volume after the retention period', async () => {
    const name = sessionObjectName(agent, 'conv-3');
    const sandbox = json<Claim>(['get', 'sandboxclaim', name]).status?.sandbox?.name as string;
    structured(await client.callTool('sandbox_stop', { sessionKey: 'conv-3' }));
    await waitFor(
      'the claim to be destroyed',
      () => cluster.kubectl(['get', 'sandboxclaim', name, '-n', namespace]).status === 1,
      30_000,
      describeState,
    );
    await waitFor(
      'its Sandbox and workspace claim to go (the garbage collector deletes them)',
      () =>
        cluster.kubectl(['get', 'sandbox', sandbox, '-n', namespace]).status === 1 &&
        cluster.kubectl(['get', 'pvc', `workspace-${sandbox}`, '-n', namespace]).status === 1,
      180_000,
      describeState,
    );
    await waitFor(
      'the lifecycle pass to report it destroyed',
      () =>
        world
          .managerLines()
          .some((l) => l.event === 'sandbox-lifecycle' && l.action === 'destroyed' && l.sandbox === name),
      30_000,
      describeState,
    );
    const gone = await client.callTool('sandbox_exec', { sessionKey: 'conv-3', command: ['ls'] });
    assert.match(gone.content[0]!.text, /TOOLYARD_SANDBOX_NOT_FOUND/);
  });

  it('holds exactly its Role: claims and sandboxes in its namespace, nothing else', () => {
    const canI = (verb: string, resource: string, ns = namespace) =>
      canIAs(cluster, world, verb, resource, ns);
    assert.equal(canI('create', 'sandboxclaims.extensions.agents.x-k8s.io'), 'yes');
    assert.equal(canI('patch', 'sandboxes.agents.x-k8s.io'), 'yes');
    for (const [verb, resource] of [
      ['get', 'secrets'],
      ['create', 'pods'],
      ['create', 'pods/exec'],
      ['delete', 'configmaps'],
      ['create', 'sandboxes.agents.x-k8s.io'],
      ['patch', 'sandboxtemplates.extensions.agents.x-k8s.io'],
      ['patch', 'sandboxwarmpools.extensions.agents.x-k8s.io'],
      ['create', 'rolebindings.rbac.authorization.k8s.io'],
    ] as const)
      assert.equal(canI(verb, resource), 'no', `${verb} ${resource}`);
    assert.equal(
      canI('list', 'sandboxclaims.extensions.agents.x-k8s.io', 'default'),
      'no',
      'another namespace',
    );
    // A real request beyond the Role, with the manager's credentials: refused by the API server.
    const refused = cluster.kubectl(['get', 'secrets', '-n', namespace], {
      kubeconfig: world.managerKubeconfig,
    });
    assert.notEqual(refused.status, 0);
    assert.match(refused.stderr, /forbidden/);
  });

  it('keeps every sandbox pod on its own ServiceAccount without a token, restricted', () => {
    const pods = json<{
      items: {
        spec: {
          serviceAccountName: string;
          automountServiceAccountToken?: boolean;
          containers: { env?: { name: string }[] }[];
        };
      }[];
    }>(['get', 'pods', '-l', 'app.kubernetes.io/component in (sandbox-python,sandbox-brief)']).items;
    assert.ok(pods.length >= 3);
    for (const pod of pods) {
      assert.equal(pod.spec.serviceAccountName, `${agent}-sandbox`);
      assert.equal(pod.spec.automountServiceAccountToken, false);
      assert.ok(
        !(pod.spec.containers[0]?.env ?? []).some((e) => /TOKEN|SESSION/.test(e.name)),
        'no per-claim env',
      );
    }
  });
});

describe('sandboxes on the kubernetes provider, on the same cluster without agent-sandbox', {
  skip: missing,
}, () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolyard-sbx-k8s-'));
  const namespace = 'sbx-e2e-pods';
  const agent = 'coder';
  let cluster: ClusterClient;
  let world: SandboxWorld;
  let client: SocketMcpClient;

  before(async () => {
    cluster = await useCluster();
    // The CRDs of the run above are deleted: nothing here may need them.
    for (const crd of agentSandboxCrds())
      cluster.kubectl([
        'delete',
        'crd',
        (crd.metadata as { name: string }).name,
        '--wait=true',
        '--timeout=60s',
      ]);
    assert.equal(cluster.kubectl(['get', 'crd', 'sandboxclaims.extensions.agents.x-k8s.io']).status, 1);
    world = await startSandboxWorld(cluster, {
      agent,
      namespace,
      provider: 'kubernetes',
      templates: [{ name: 'shell' }, { name: 'brief', idleTimeoutSeconds: 3, retentionSeconds: 4 }],
      quota: { maxSandboxes: 2 },
      dir,
    });
    client = await world.client();
  });

  after(async () => {
    await world?.stop();
    cluster?.kubectl(['delete', 'namespace', namespace, '--wait=false']);
    rmSync(dir, { recursive: true, force: true });
  });

  it('renders no agent-sandbox object and a Role over pods and claims only', () => {
    assert.ok(!world.objects.some((o) => o.apiVersion.includes('agents.x-k8s.io')));
    const role = world.objects.find(
      (o) => o.kind === 'Role' && o.metadata.name === `${agent}-sandboxes`,
    ) as unknown as {
      rules: { resources: string[] }[];
    };
    assert.deepEqual(role.rules.flatMap((r) => r.resources).sort(), ['persistentvolumeclaims', 'pods']);
  });

  it('creates a pod and a claim for a session (cold), reuses them, runs commands and moves files', async () => {
    const outcome = structured(
      await client.callTool('sandbox_create', { sessionKey: 'task-1', template: 'brief' }),
    );
    const name = (outcome.sandbox as { sandbox: string }).sandbox;
    assert.equal((outcome.sandbox as { launch: string }).launch, 'cold');
    assert.equal(cluster.kubectl(['get', 'pod', name, '-n', namespace]).status, 0);
    assert.equal(cluster.kubectl(['get', 'pvc', name, '-n', namespace]).status, 0);
    assert.equal(
      structured(await client.callTool('sandbox_create', { sessionKey: 'task-1' })).created,
      false,
    );
    structured(
      await client.callTool('sandbox_upload', { sessionKey: 'task-1', path: 'in.txt', content: 'b\na\n' }),
    );
    const ran = structured(
      await client.callTool('sandbox_exec', { sessionKey: 'task-1', command: ['sort', 'in.txt'] }),
    );
    assert.equal(ran.stdout, 'a\nb\n');
  });

  it('stops it when idle, keeps its files across the resume, destroys it and its claim after retention', async () => {
    const name = sessionObjectName(agent, 'task-1');
    await waitFor(
      'the idle pod to go',
      () => cluster.kubectl(['get', 'pod', name, '-n', namespace]).status === 1,
      30_000,
    );
    assert.equal(cluster.kubectl(['get', 'pvc', name, '-n', namespace]).status, 0);
    const down = structured(
      await client.callTool('sandbox_download', { sessionKey: 'task-1', path: 'in.txt' }),
    );
    assert.equal(down.text, 'b\na\n');
    structured(await client.callTool('sandbox_stop', { sessionKey: 'task-1' }));
    await waitFor(
      'the claim to be destroyed',
      () => cluster.kubectl(['get', 'pvc', name, '-n', namespace]).status === 1,
      30_000,
    );
  });

  it('refuses beyond its quota, and its Role allows no more than pods and claims', async () => {
    structured(await client.callTool('sandbox_create', { sessionKey: 'task-2' }));
    structured(await client.callTool('sandbox_create', { sessionKey: 'task-3' }));
    const refused = await client.callTool('sandbox_create', { sessionKey: 'task-4' });
    assert.equal(refused.isError, true);
    assert.match(refused.content[0]!.text, /^TOOLYARD_SANDBOX_QUOTA: 2 sandboxes of the agent are running/);
    assert.equal(
      cluster.kubectl(['get', 'pvc', sessionObjectName(agent, 'task-4'), '-n', namespace]).status,
      1,
    );
    const canI = (verb: string, resource: string) => canIAs(cluster, world, verb, resource, namespace);
    assert.equal(canI('create', 'pods'), 'yes');
    for (const [verb, resource] of [
      ['get', 'secrets'],
      ['create', 'pods/exec'],
      ['create', 'deployments.apps'],
      ['update', 'pods'],
    ] as const)
      assert.equal(canI(verb, resource), 'no', `${verb} ${resource}`);
  });
});
