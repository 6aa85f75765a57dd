/**
 * The real `toolyard-broker` in the broker's network namespace, run as its rendered pod: the rendered
 * Deployment's container (its command, uid 65532, read-only root) emulated by pod-emulation, its config
 * ConfigMap and its caller-token and key Secrets laid out as the kubelet lays them out (the Secrets' values
 * are the test's). The stand-in image is `/opt/toolyard` with the broker bundle (`npm run build:server`) and
 * the Node runtime. The broker's /etc/hosts maps the upstream names to the upstream namespace's addresses:
 * its own `dns.lookup` finds them there, as it would ask cluster DNS.
 *
 * Two test-only changes to the rendered config, both in the ConfigMap the broker reads:
 * - `deniedCidrs`: the fake upstreams live on 10.231.2.0/24, so that /24 is carved out of 10.0.0.0/8 (see
 *   `testDeniedCidrs`); loopback and every other default range stay denied;
 * - `extraCaFile`: the test CA, added to the ConfigMap, stands in for the public roots.
 * Its stdout is parsed as JSON lines (the `listening` event, then one audit line per request or tunnel).
 */
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { KubeObject } from '../../constructs/src/render.ts';
import { BROKER_PATHS, DEFAULT_DENIED_CIDRS } from '../../toolchain-server/broker/config.ts';
import { BROKER_BUNDLE_PATH } from '../../toolchain-server/scripts/bundle.ts';
import { PodVolumes, renderedPod, startContainer } from '../backends/pod-emulation.ts';
import { type BrokerTopology, testDeniedCidrs } from './topology.ts';

export type AuditLine = Readonly<Record<string, unknown>>;

export interface BrokerProcess {
  /** Every JSON line the broker printed, in order. */
  readonly lines: AuditLine[];
  /** Its stdout and stderr as text, for failure messages and the no-secret-in-output check. */
  output(): string;
  /** Audit lines of requests and tunnels (those with a `decision`). */
  audit(): AuditLine[];
  stop(): Promise<void>;
}

/**
 * Waits until `check` holds, for up to `ms`: a tunnel's audit line is written when the tunnel closes, which may
 * be just after the client process has exited.
 */
export async function eventually(check: () => boolean, ms = 5000): Promise<boolean> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

/** Why the broker cannot be run here, or undefined. */
export function brokerMissing(): string | undefined {
  return existsSync(BROKER_BUNDLE_PATH)
    ? undefined
    : `no broker bundle at ${BROKER_BUNDLE_PATH}; run: npm run build:server (npm test does)`;
}

const CA_KEY = 'test-ca.pem';

export interface BrokerPodOptions {
  readonly topology: BrokerTopology;
  /** Everything the renderer emitted for the agent. */
  readonly objects: readonly KubeObject[];
  /** Test values of the Secrets the broker mounts: name → key → value. */
  readonly secrets: ReadonlyMap<string, Record<string, string>>;
  readonly caPem: string;
  readonly dir: string;
}

export async function startBrokerPod(options: BrokerPodOptions): Promise<BrokerProcess> {
  const broker = options.objects.find((o) => o.kind === 'Deployment' && o.metadata.name.endsWith('-broker'));
  if (!broker) throw new Error('the rendered objects hold no broker Deployment');
  const { pod, configMaps } = renderedPod(options.objects, broker.metadata.name);
  const configMap = configMaps.get(broker.metadata.name);
  if (!configMap?.['config.json']) throw new Error(`ConfigMap ${broker.metadata.name} has no config.json`);
  const config = JSON.parse(configMap['config.json']) as Record<string, unknown>;
  configMaps.set(broker.metadata.name, {
    ...configMap,
    'config.json': JSON.stringify({
      ...config,
      deniedCidrs: testDeniedCidrs(
        (config['deniedCidrs'] as string[] | undefined) ?? [...DEFAULT_DENIED_CIDRS],
      ),
      extraCaFile: `${BROKER_PATHS.configDir}/${CA_KEY}`,
    }),
    [CA_KEY]: options.caPem,
  });
  const volumes = new PodVolumes(join(options.dir, 'broker-pod'), pod, configMaps, options.secrets);
  // The image's /opt/toolyard: the bundle, and bin/ where the Node runtime is mounted.
  const image = join(options.dir, 'broker-image');
  mkdirSync(join(image, 'bin'), { recursive: true });
  copyFileSync(BROKER_BUNDLE_PATH, join(image, 'toolyard-broker.mjs'));
  const container = pod.containers[0];
  if (!container) throw new Error('the broker pod has no container');
  const started = startContainer(volumes, container.name, {
    imageMounts: { '/opt/toolyard': image, '/opt/toolyard/bin': dirname(process.execPath) },
    netns: options.topology.namespaces.exec('broker', []),
    hosts: options.topology.brokerHosts(),
  });
  return watch(
    started.child,
    started.done.then((r) => r.code),
  );
}

/** Follows a broker's stdout until it listens. */
function watch(
  child: {
    stdout: NodeJS.ReadableStream | null;
    stderr: NodeJS.ReadableStream | null;
    pid?: number | undefined;
  },
  exited: Promise<number | null>,
): Promise<BrokerProcess> {
  const lines: AuditLine[] = [];
  let stdout = '';
  let stderr = '';
  let pending = '';
  let running = true;
  void exited.then(() => {
    running = false;
  });
  return new Promise<BrokerProcess>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the broker did not start:\n${stdout}\n${stderr}`)),
      30_000,
    );
    const process_: BrokerProcess = {
      lines,
      output: () => `${stdout}\n${stderr}`,
      audit: () => lines.filter((line) => 'decision' in line),
      stop: async () => {
        if (running && child.pid)
          try {
            process.kill(-child.pid, 'SIGTERM');
          } catch {}
        await exited;
      },
    };
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      stdout += text;
      pending += text;
      const parts = pending.split('\n');
      pending = parts.pop() ?? '';
      for (const part of parts) {
        if (!part.trim()) continue;
        try {
          const line = JSON.parse(part) as AuditLine;
          lines.push(line);
          if (line['event'] === 'listening') {
            clearTimeout(timer);
            resolve(process_);
          }
        } catch {
          // not JSON: kept in stdout for the failure message
        }
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the broker exited ${code} before listening:\n${stdout}\n${stderr}`));
    });
  });
}
