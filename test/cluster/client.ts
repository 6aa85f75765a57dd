/**
 * What a test needs of a running test cluster, from its handle (`handle.json` in the cluster's directory): kubectl
 * as the cluster admin or as anyone else (a client certificate of the cluster's CA, or a ServiceAccount's bound
 * token), and small waits. The process that started the cluster and the test files attached to it share this.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeKubeconfig } from './kubeconfig.ts';
import { type ClusterPki, loadClusterPki } from './pki.ts';

export interface ClusterHandle {
  readonly dir: string;
  /** `https://127.0.0.1:<port>` */
  readonly server: string;
  /** A cluster-admin kubeconfig (group system:masters). */
  readonly kubeconfig: string;
  readonly kubectlPath: string;
  /** Whether kwok runs (fake nodes; pods "run" by its stages). */
  readonly kwok: boolean;
  /** The PID of the API server (for its memory). */
  readonly apiserverPid: number;
  /** The real node, when the cluster has one (node/node.ts). */
  readonly node?: NodeHandle;
}

export interface NodeHandle {
  readonly name: string;
  readonly address: string;
  /** The network namespace where fake public hosts listen (at node-network.ts's INTERNET_HOST). */
  readonly internetNamespace: string;
  readonly probeImage: string;
  readonly probeGatewayImage: string;
}

export interface KubectlResult {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface KubectlOptions {
  readonly input?: string;
  /** Another kubeconfig than the admin's (e.g. a ServiceAccount's). */
  readonly kubeconfig?: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly timeoutMs?: number;
}

export interface ClusterClient extends ClusterHandle {
  readonly pki: ClusterPki;
  kubectl(args: readonly string[], options?: KubectlOptions): KubectlResult;
  /** Like `kubectl`, but throws with the command and its stderr on a non-zero exit; returns stdout. */
  kubectlOk(args: readonly string[], options?: KubectlOptions): string;
  /** kubectl's JSON output of `args` (`-o json` is added). */
  kubectlJson<T = unknown>(args: readonly string[], options?: KubectlOptions): T;
  /** A kubeconfig authenticating as `user` in `groups` (a client certificate of the cluster's CA). */
  userKubeconfig(user: string, groups?: readonly string[]): string;
  /** A kubeconfig holding a bound token of a ServiceAccount (TokenRequest), as a pod would get it. */
  serviceAccountKubeconfig(namespace: string, name: string, expirationSeconds?: number): string;
  /** The API server's resident memory, in bytes. */
  apiserverRss(): number;
}

export const HANDLE_FILE = 'handle.json';

export function writeHandle(handle: ClusterHandle): string {
  const file = join(handle.dir, HANDLE_FILE);
  writeFileSync(file, `${JSON.stringify(handle, null, 2)}\n`);
  return file;
}

export function readHandle(file: string): ClusterHandle {
  return JSON.parse(readFileSync(file, 'utf8')) as ClusterHandle;
}

export function clusterClient(handle: ClusterHandle): ClusterClient {
  const pki = loadClusterPki(join(handle.dir, 'pki'));
  let kubeconfigs = 0;
  const kubectl = (args: readonly string[], opts: KubectlOptions = {}): KubectlResult => {
    const result = spawnSync(
      handle.kubectlPath,
      [`--kubeconfig=${opts.kubeconfig ?? handle.kubeconfig}`, ...args],
      {
        input: opts.input,
        encoding: 'utf8',
        // HOME in the cluster's directory: kubectl's discovery cache never mixes two clusters on the same port.
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: handle.dir, ...opts.env },
        timeout: opts.timeoutMs ?? 120_000,
        maxBuffer: 512 * 1024 * 1024,
      },
    );
    return { status: result.status ?? -1, stdout: result.stdout ?? '', stderr: result.stderr ?? '' };
  };
  const kubectlOk = (args: readonly string[], opts: KubectlOptions = {}): string => {
    const result = kubectl(args, opts);
    if (result.status !== 0)
      throw new Error(`kubectl ${args.join(' ')} exited ${result.status}:\n${result.stderr}${result.stdout}`);
    return result.stdout;
  };
  return {
    ...handle,
    pki,
    kubectl,
    kubectlOk,
    kubectlJson: <T>(args: readonly string[], opts: KubectlOptions = {}) =>
      JSON.parse(kubectlOk([...args, '-o', 'json'], opts)) as T,
    userKubeconfig: (user, groups = []) => {
      const name = `user-${process.pid}-${++kubeconfigs}`;
      return writeKubeconfig(
        join(handle.dir, `${name}.kubeconfig`),
        handle.server,
        pki.ca.cert,
        pki.client(name, user, groups),
        user,
      );
    },
    serviceAccountKubeconfig: (namespace, name, expirationSeconds = 3600) => {
      const token = kubectlOk([
        'create',
        'token',
        name,
        '-n',
        namespace,
        `--duration=${expirationSeconds}s`,
      ]).trim();
      const file = join(handle.dir, `sa-${namespace}-${name}-${process.pid}-${++kubeconfigs}.kubeconfig`);
      const config = {
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [
          { name: 'toolyard-test', cluster: { server: handle.server, 'certificate-authority': pki.ca.cert } },
        ],
        users: [{ name, user: { token } }],
        contexts: [{ name: 'toolyard-test', context: { cluster: 'toolyard-test', user: name, namespace } }],
        'current-context': 'toolyard-test',
      };
      writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
      return file;
    },
    apiserverRss: () => {
      const status = readFileSync(`/proc/${handle.apiserverPid}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
    },
  };
}
