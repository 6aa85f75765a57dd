/** Small builders for the parts every generated container shares: env, resources, probes, scratch volumes. */
import { k8s } from 'cdk8s-plus-28';
import type { Resources } from '../../schema/src/types.generated.ts';
import { PATHS, TOKEN_FILE_MODE, TOKEN_FILE_NAME } from './defaults.ts';
import type { SecretRef } from './plan.ts';

export function plainEnv(env: Readonly<Record<string, string>>): k8s.EnvVar[] {
  return Object.entries(env).map(([name, value]) => ({ name, value }));
}

export function secretEnv(refs: readonly SecretRef[]): k8s.EnvVar[] {
  return refs.map((ref) => ({
    name: ref.env,
    valueFrom: { secretKeyRef: { name: ref.secretName, key: ref.key } },
  }));
}

export function resourceRequirements(resources: Resources): k8s.ResourceRequirements {
  const toQuantities = (list: Resources['requests']) => {
    if (!list) return undefined;
    const out: Record<string, k8s.Quantity> = {};
    for (const [name, value] of Object.entries(list))
      if (value !== undefined) out[name] = k8s.Quantity.fromString(value);
    return out;
  };
  const limits = toQuantities(resources.limits);
  const requests = toQuantities(resources.requests);
  return { ...(limits ? { limits } : {}), ...(requests ? { requests } : {}) };
}

/** Readiness and liveness: HTTP on `path` when given, else a TCP connect. */
export function probes(port: number, path?: string): Pick<k8s.Container, 'readinessProbe' | 'livenessProbe'> {
  const target = path
    ? { httpGet: { path, port: k8s.IntOrString.fromNumber(port) } }
    : { tcpSocket: { port: k8s.IntOrString.fromNumber(port) } };
  return {
    readinessProbe: { ...target, periodSeconds: 10, timeoutSeconds: 2, failureThreshold: 3 },
    livenessProbe: {
      ...target,
      initialDelaySeconds: 10,
      periodSeconds: 20,
      timeoutSeconds: 2,
      failureThreshold: 3,
    },
  };
}

/**
 * Probes of toolyard's own servers (the toolchain server, the broker) on their health listener: ready when
 * `/readyz` answers, alive while `/healthz` does.
 */
export function serverProbes(healthPort: number): Pick<k8s.Container, 'readinessProbe' | 'livenessProbe'> {
  const port = k8s.IntOrString.fromNumber(healthPort);
  return {
    readinessProbe: {
      httpGet: { path: '/readyz', port },
      periodSeconds: 10,
      timeoutSeconds: 2,
      failureThreshold: 3,
    },
    livenessProbe: {
      httpGet: { path: '/healthz', port },
      initialDelaySeconds: 5,
      periodSeconds: 20,
      timeoutSeconds: 2,
      failureThreshold: 3,
    },
  };
}

/** Writable scratch space for a read-only root filesystem: `/tmp` and `HOME` (where language caches live). */
export function scratchVolumes(container: string): { volumes: k8s.Volume[]; mounts: k8s.VolumeMount[] } {
  return {
    volumes: [
      { name: `${container}-tmp`, emptyDir: { sizeLimit: k8s.Quantity.fromString('1Gi') } },
      { name: `${container}-home`, emptyDir: { sizeLimit: k8s.Quantity.fromString('5Gi') } },
    ],
    mounts: [
      { name: `${container}-tmp`, mountPath: PATHS.tmp },
      { name: `${container}-home`, mountPath: PATHS.home },
    ],
  };
}

/**
 * A bearer token as a file: one key of a Secret, projected read-only at `PATHS.authDir/token` with mode 0440
 * (root-owned, group fsGroup), so the container's user reads it and it never enters an environment.
 */
export function tokenFile(
  volumeName: string,
  secret: { readonly name: string; readonly key: string },
): { volume: k8s.Volume; mount: k8s.VolumeMount } {
  return {
    volume: {
      name: volumeName,
      secret: {
        secretName: secret.name,
        items: [{ key: secret.key, path: TOKEN_FILE_NAME, mode: TOKEN_FILE_MODE }],
        defaultMode: TOKEN_FILE_MODE,
      },
    },
    mount: { name: volumeName, mountPath: PATHS.authDir, readOnly: true },
  };
}

/** A deterministic, dependency-free content hash (FNV-1a, 32-bit, hex) for config-change rollouts. */
export function contentHash(parts: readonly string[]): string {
  let hash = 0x811c9dc5;
  for (const part of parts) {
    for (let i = 0; i < part.length; i++) {
      hash ^= part.charCodeAt(i);
      hash = Math.imul(hash, 0x01000193) >>> 0;
    }
    hash ^= 0xff;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}
