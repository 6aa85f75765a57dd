/**
 * A node for the test cluster's sandbox pods, doing what a kubelet and a container runtime would do with them
 * (kwok only marks pods running; it runs nothing): it watches the sandbox pods of a namespace and, for each one
 * kwok has running with a pod IP, starts its `sandbox` container as rendered — the Pod's own spec as the
 * controller created it, the ConfigMaps toolyard rendered, the test's Secret values, uid 65532, read-only root —
 * in a network namespace of its own with that pod IP, on the workspace claim's own directory (kept per claim, so
 * a sandbox's files survive its pod; removed when the claim goes, as a Delete reclaim policy would). A pod that
 * is deleted (a sandbox stopped or destroyed) has its container killed and its namespace removed.
 *
 * The stand-in image is `/opt/toolyard` with the server bundle (`npm run build:server`), the confinement helper
 * and this Node runtime, over the host's /usr (python3, sh, coreutils): toolyard's own images hold the same.
 */
import { chownSync, copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject as RenderedObject } from '../../constructs/src/render.ts';
import { Informer } from '../../toolchain-server/sandbox-manager/informer.ts';
import type { KubeClient, KubeObject } from '../../toolchain-server/sandbox-manager/kube-client.ts';
import { CONFINE_BINARY, CONFINE_DIST } from '../../toolchain-server/scripts/build-confine.ts';
import { BUNDLE_PATH } from '../../toolchain-server/scripts/bundle.ts';
import {
  type PodSpec,
  PodVolumes,
  type StartedContainer,
  startContainer,
} from '../backends/pod-emulation.ts';
import type { NodeNetwork, PodNetns } from './node-network.ts';

const POD_UID = 65532;
/** The container a sandbox pod runs (constructs/src/sandbox-pod.ts). */
const SANDBOX_CONTAINER = 'sandbox';

interface Pod extends KubeObject {
  readonly spec: PodSpec & {
    readonly volumes?: readonly { name: string; persistentVolumeClaim?: { claimName: string } }[];
  };
  readonly status?: { readonly phase?: string; readonly podIP?: string };
}

interface RunningPod {
  readonly name: string;
  readonly ip: string;
  readonly netns: PodNetns;
  readonly container: StartedContainer;
  readonly started: number;
  /** When the server printed its `listening` line. */
  listening?: number;
  output: string;
}

/** Why the stand-in image cannot be made here, or undefined. */
export function sandboxImageMissing(): string | undefined {
  const arch = process.arch === 'arm64' ? 'arm64' : 'amd64';
  if (!existsSync(BUNDLE_PATH)) return `no server bundle at ${BUNDLE_PATH}; run: npm run build:server`;
  if (!existsSync(join(CONFINE_DIST, arch, CONFINE_BINARY)))
    return `no confinement helper in ${CONFINE_DIST}; run: npm run build:server`;
  return undefined;
}

export interface SandboxNodeOptions {
  readonly kube: KubeClient;
  readonly network: NodeNetwork;
  readonly namespace: string;
  /** Label selector of the pods to run. */
  readonly selector: string;
  /** What toolyard rendered (the ConfigMaps the pods mount). */
  readonly objects: readonly RenderedObject[];
  /** Secret name → key → value, as the cluster's Secrets hold them. */
  readonly secrets: ReadonlyMap<string, Record<string, string>>;
  readonly dir: string;
}

export class SandboxNode {
  readonly events: {
    readonly at: number;
    readonly pod: string;
    readonly event: 'started' | 'listening' | 'stopped';
  }[] = [];
  private readonly pods: Informer<Pod>;
  private readonly claims: Informer<KubeObject>;
  private readonly running = new Map<string, RunningPod>();
  private readonly options: SandboxNodeOptions;
  private readonly image: string;
  private readonly configMaps = new Map<string, Record<string, string>>();
  private unsubscribe: Array<() => void> = [];
  /** Pods that could not be started, and why. */
  readonly failures: string[] = [];
  private reconciling = false;
  private again = false;

  constructor(options: SandboxNodeOptions) {
    this.options = options;
    const ns = options.namespace;
    this.pods = new Informer(options.kube, `/api/v1/namespaces/${ns}/pods`, options.selector);
    this.claims = new Informer(options.kube, `/api/v1/namespaces/${ns}/persistentvolumeclaims`, '');
    for (const object of options.objects)
      if (object.kind === 'ConfigMap')
        this.configMaps.set(
          object.metadata.name,
          (object as unknown as { data: Record<string, string> }).data,
        );
    this.image = this.makeImage();
  }

  /** /opt/toolyard as toolyard's images hold it: the bundle, bin/node and the confinement helpers. */
  private makeImage(): string {
    const arch = process.arch === 'arm64' ? 'arm64' : 'amd64';
    const image = join(this.options.dir, 'image');
    mkdirSync(join(image, 'bin'), { recursive: true });
    copyFileSync(BUNDLE_PATH, join(image, 'toolchain-server.mjs'));
    copyFileSync(process.execPath, join(image, 'bin', 'node'));
    for (const helper of [CONFINE_BINARY, 'toolyard-codebox']) {
      const built = join(CONFINE_DIST, arch, helper);
      if (existsSync(built)) copyFileSync(built, join(image, 'bin', helper));
    }
    return image;
  }

  async start(): Promise<void> {
    await Promise.all([this.pods.start(), this.claims.start()]);
    const kick = () => void this.reconcile();
    this.unsubscribe = [this.pods.subscribe(kick), this.claims.subscribe(kick)];
    await this.reconcile();
  }

  /** The directory standing in for a claim's volume (one per claim object: its name and uid). */
  claimDir(claimName: string): string | undefined {
    const claim = this.claims.get(claimName);
    if (!claim) return undefined;
    const dir = join(this.options.dir, 'volumes', `${claimName}-${claim.metadata.uid}`);
    if (!existsSync(dir)) {
      mkdirSync(dir, { recursive: true, mode: 0o2775 });
      chownSync(dir, POD_UID, POD_UID);
    }
    return dir;
  }

  /** Pods whose container runs, by name. */
  runningPods(): string[] {
    return [...this.running.values()].map((p) => p.name);
  }

  /** How many started containers have their server listening. */
  listeningCount(): number {
    return [...this.running.values()].filter((p) => p.listening !== undefined).length;
  }

  listeningAt(pod: string): number | undefined {
    return [...this.running.values()].find((p) => p.name === pod)?.listening;
  }

  private async reconcile(): Promise<void> {
    if (this.reconciling) {
      this.again = true;
      return;
    }
    this.reconciling = true;
    try {
      do {
        this.again = false;
        const live = new Map<string, Pod>();
        for (const pod of this.pods.list())
          if (
            !pod.metadata.deletionTimestamp &&
            pod.status?.phase === 'Running' &&
            pod.status.podIP &&
            pod.spec.containers.some((c) => c.name === SANDBOX_CONTAINER)
          )
            live.set(pod.metadata.uid ?? pod.metadata.name, pod);
        for (const [uid, running] of this.running) if (!live.has(uid)) await this.stopPod(uid, running);
        for (const [uid, pod] of live)
          if (!this.running.has(uid))
            try {
              this.startPod(uid, pod);
            } catch (error) {
              this.failures.push(`${pod.metadata.name}: ${(error as Error).message}`);
            }
        // Volumes of claims that are gone are deleted, as the Delete reclaim policy does.
        const volumes = join(this.options.dir, 'volumes');
        if (existsSync(volumes)) {
          const keep = new Set(this.claims.list().map((c) => `${c.metadata.name}-${c.metadata.uid}`));
          for (const entry of readdirSafe(volumes))
            if (!keep.has(entry)) rmSync(join(volumes, entry), { recursive: true, force: true });
        }
      } while (this.again);
    } finally {
      this.reconciling = false;
    }
  }

  private startPod(uid: string, pod: Pod): void {
    const claims = new Map<string, string>();
    for (const volume of pod.spec.volumes ?? []) {
      const claimName = volume.persistentVolumeClaim?.claimName;
      if (!claimName) continue;
      const dir = this.claimDir(claimName);
      if (!dir) return; // its claim is not in the cache yet: the next change starts it
      claims.set(claimName, dir);
    }
    const root = join(this.options.dir, 'pods', `${pod.metadata.name}-${uid}`);
    const volumes = new PodVolumes(root, pod.spec, this.configMaps, this.options.secrets, claims);
    const netns = this.options.network.addPod(pod.status?.podIP as string);
    const container = startContainer(volumes, SANDBOX_CONTAINER, {
      imageMounts: { '/opt/toolyard': this.image },
      imageEnv: { PATH: '/usr/local/bin:/usr/bin:/bin' },
      netns: netns.exec([]),
    });
    const running: RunningPod = {
      name: pod.metadata.name,
      ip: netns.ip,
      netns,
      container,
      started: Date.now(),
      output: '',
    };
    container.child.stdout?.on('data', (chunk: Buffer) => {
      running.output += chunk.toString('utf8');
      if (running.listening === undefined && running.output.includes('"event":"listening"')) {
        running.listening = Date.now();
        this.events.push({ at: running.listening, pod: running.name, event: 'listening' });
      }
    });
    container.child.stderr?.on('data', (chunk: Buffer) => {
      running.output += chunk.toString('utf8');
    });
    this.running.set(uid, running);
    this.events.push({ at: running.started, pod: running.name, event: 'started' });
  }

  private async stopPod(uid: string, running: RunningPod): Promise<void> {
    this.running.delete(uid);
    try {
      process.kill(-(running.container.child.pid as number), 'SIGKILL');
    } catch {}
    await running.container.done;
    running.netns.remove();
    this.events.push({ at: Date.now(), pod: running.name, event: 'stopped' });
  }

  /** The output of a pod's container (for failure messages). */
  output(pod: string): string {
    return [...this.running.values()].find((p) => p.name === pod)?.output ?? '';
  }

  async stop(): Promise<void> {
    for (const unsubscribe of this.unsubscribe) unsubscribe();
    this.pods.stop();
    this.claims.stop();
    for (const [uid, running] of [...this.running]) await this.stopPod(uid, running);
  }
}

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
